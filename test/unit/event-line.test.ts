// One wording for a run's events (common/event-line.ts): the Run view's log says what `varlab run` and
// `varlab attach` print, line for line, for the events people read.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RunEvent } from '../../src/common/events.js';
import { eventLine } from '../../src/common/event-line.js';
import { LiveRun } from '../../src/browser/views/run/live.js';

const at = 1_700_000_000_000;
const events: RunEvent[] = [
  { type: 'run-started', at, runId: 'r', planned: 3, done: 0, cells: ['aslr=on'], queries: ['q1'], warmup: 0 } as unknown as RunEvent,
  { type: 'restart-started', at, seq: 1, cell: 'aslr=on' },
  { type: 'restart-finished', at, seq: 1, cell: 'aslr=on', status: 'failed', reason: 'mysqld on local did not start: port in use' },
  { type: 'restart-started', at, seq: 2, cell: 'aslr=on' },
  { type: 'restart-discarded', at, seq: 2, cell: 'aslr=on', reason: 'the connection dropped' },
  { type: 'log', at, level: 'warn', message: 'reconnecting to local (attempt 1 of 8) in 0.5 s' },
  { type: 'restart-started', at, seq: 3, cell: 'aslr=on' },
  { type: 'restart-finished', at, seq: 3, cell: 'aslr=on', status: 'ok' },
  { type: 'run-finished', at, state: 'failed', message: 'mysqld failed to start for 3 restarts in a row; the last: port in use' },
] as RunEvent[];

test('the Run view logs, in the same words, the lines the command line prints (routine ones left out)', () => {
  const live = new LiveRun();
  live.apply(events);
  const printed = events.map(eventLine).filter((l) => l && !l.routine).map((l) => l!.text);
  assert.deepEqual(live.log.map((l) => l.message), printed);
  assert.deepEqual(printed, [
    'restart 1 aslr=on: failed (mysqld on local did not start: port in use)',
    'restart 2 aslr=on discarded: the connection dropped',
    'warn: reconnecting to local (attempt 1 of 8) in 0.5 s',
    'run failed: mysqld failed to start for 3 restarts in a row; the last: port in use',
  ]);
});

test('in a run on several hosts, each line starts with its host', () => {
  const line = eventLine({ type: 'restart-discarded', at, seq: 2, cell: 'aslr=on', reason: 'dropped', host: 'ssh://b1' } as RunEvent);
  assert.equal(line?.text, 'ssh://b1: restart 2 aslr=on discarded: dropped');
});
