// `varlab plan FILE --effect E [--from EARLIER]` as a user runs it (issue 21): restarts per cell,
// repetitions, warm-up and time from the variance components and costs an earlier run measured.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliFixture } from '../fixtures/cli.js';
import { roundsExperiment } from '../fixtures/rounds-experiment.js';

const { dir, varlab } = cliFixture('plan');

test('plan --effect from an earlier run says which run, and gives restarts, repetitions, warm-up and time', () => {
  const earlier = join(dir(), 'earlier.varlab.json');
  // Each restart took 9 s of wall time, 2 s of it idle: 5 executions of ~100 ms leave ~6.5 s of restart cost.
  writeFileSync(earlier, JSON.stringify(roundsExperiment({ rounds: 10, between: 0.03, shared: 0.5, effectPct: 0 })));
  const r = varlab('examples/quickstart.varlab.json', '--effect', '5', '--from', earlier);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /plan for a 5% effect, from the run of 2026-11-26 10:00 UTC/);
  assert.match(r.out, /restarts per cell: \d+\n/);
  assert.match(r.out, /repetitions per restart: \d+ \(warm-up 1, then \d+ measured\)/);
  assert.match(r.out, /time: about \d+ min \d\d s for 16 cells/);
  assert.match(r.out, /costs measured: 6\.\d s per restart beyond its executions, .* idle 2 s/);
  const none = varlab('examples/quickstart.varlab.json', '--effect', '5');
  assert.equal(none.code, 2);
  assert.match(none.err, /no measured run to plan from: run it first, or give --from EARLIER\.varlab\.json/);
  assert.match(varlab('examples/quickstart.varlab.json', '--from', earlier).err, /--from: goes with --effect E/);
});
