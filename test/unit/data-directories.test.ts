// The data step once per data directory (each server build has its own): which directories a run's
// restarts reach, and the server each is set up on (the first restart there), as the attached engine
// keys them (common/restart.ts datadirKey) and a detached run's launch loads them; and the step's
// outcome in words names the build.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Factor } from '../../src/common/experiment/types.js';
import type { ScheduledRestart } from '../../src/common/plan.js';
import type { RestartProcedure } from '../../src/common/restart.js';
import type { ServerControl } from '../../src/node/host/types.js';
import { firstRestartPerDataDirectory } from '../../src/node/workloads/data-step.js';
import { dataOutcomeText } from '../../src/common/dbt3/words.js';
import type { RunEvent } from '../../src/common/events.js';

const factors = [
  { tunable: 'build', levels: ['A', 'B'] },
  { tunable: 'ahi', levels: ['on', 'off'] },
] as Factor[];

// A control whose procedures start the cell's build (none: the profile's own server).
function control(asked: string[]): ServerControl {
  return {
    procedure: async (_f: Factor[], levels: Record<string, string>) => {
      asked.push(`${levels.build ?? ''}/${levels.ahi}`);
      const server = levels.build ? { server: { name: levels.build } } : {};
      return { levels, cell: [], steps: [{ kind: 'start', via: 'direct', wrapper: {}, options: [], ...server }] } as unknown as RestartProcedure;
    },
  } as unknown as ServerControl;
}

const restart = (seq: number, build: string | undefined, ahi: string): ScheduledRestart => ({ seq, cell: `${build ? `build=${build},` : ''}ahi=${ahi}`, levels: { ...(build ? { build } : {}), ahi } }) as unknown as ScheduledRestart;

test('every data directory the restarts reach, in the order they first reach it, each on its first restart there', async () => {
  const asked: string[] = [];
  const plan = [restart(1, 'B', 'off'), restart(2, 'B', 'on'), restart(3, 'A', 'on'), restart(4, 'B', 'off'), restart(5, 'A', 'off')];
  const got = await firstRestartPerDataDirectory(control(asked), { factors, workload: { database: 'dbt3' } } as never, plan);
  assert.deepEqual(
    got.map((d) => [d.datadir, d.proc.levels.ahi]),
    [
      ['B', 'off'],
      ['A', 'on'],
    ],
  );
  // One procedure per cell, not per restart.
  assert.deepEqual(asked, ['B/off', 'B/on', 'A/on', 'A/off']);
});

test('a resumed run whose restarts left reach one build loads only that one; none left, none; no build factor, the one', async () => {
  const design = { factors, workload: { database: 'dbt3' } } as never;
  assert.deepEqual((await firstRestartPerDataDirectory(control([]), design, [restart(4, 'B', 'off')])).map((d) => d.datadir), ['B']);
  assert.deepEqual(await firstRestartPerDataDirectory(control([]), design, []), []);
  assert.deepEqual((await firstRestartPerDataDirectory(control([]), design, [restart(1, undefined, 'on'), restart(2, undefined, 'off')])).map((d) => d.datadir), ['']);
});

test('the data step’s outcome names the build whose data directory it loaded', () => {
  const e = { type: 'data', at: 0, database: 'dbt3', sf: 0.01, seed: 1, source: 'generated', recognised: true, resumedChunks: 0, rows: { lineitem: 60341 }, ms: 1, method: 'load-data-local', checks: [] };
  assert.equal(dataOutcomeText({ ...e, datadir: 'B' } as Extract<RunEvent, { type: 'data' }>), 'build B: DBT-3 SF 0.01 in dbt3: already loaded (60,341 rows), not loaded again');
  assert.equal(dataOutcomeText(e as Extract<RunEvent, { type: 'data' }>), 'DBT-3 SF 0.01 in dbt3: already loaded (60,341 rows), not loaded again');
});
