// Stop when answered (issue 21), with real parts: a sandbox mariadbd over the sandbox sshd, with three
// builds registered by `varlab sandbox create --build`: two copies of the same mariadbd at two paths
// (A and B, an A/A comparison) and a wrapper H that execs the same binary with in-memory temporary
// tables and sort buffers at their minimum (a real handicap: the GROUP BY below spills to disk).
// `varlab run --until-answered` runs in rounds, takes the rule's looks, prints each, and stops: the A/A
// design never says "differs"; the handicapped one stops "differs" before its maximum. The file on
// disk, read again, says at which look and why, and running it again finds it finished. Detached, the
// varlab that follows the run (attach) takes the looks and stops the runner at the one that answers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';
import { buildsEnvForTests } from './builds-env.js';
import { shortQuickstartCopy, varlabSync, type RunEnv } from './run-env.js';

// Copies A and B (builds-env.ts), and H, a wrapper of B's binary with the handicap, which comes after
// the profile's own options, so it wins.
const fx = buildsEnvForTests('stop', {
  more: (dir, binOf) => {
    mkdirSync(join(dir, 'h'), { mode: 0o755 });
    writeFileSync(join(dir, 'h', 'slow'), `#!/bin/sh\nexec ${binOf('B')} "$@" --tmp-memory-table-size=1024 --max-heap-table-size=16384 --sort-buffer-size=16384\n`, { mode: 0o755 });
    return [`H=${join(dir, 'h', 'slow')}`];
  },
  ready: (made) => {
    ({ home, authArgs } = made);
  },
});
let home: string;
let authArgs: string[];

const env = (): RunEnv => fx.runEnv();

/**
 * One short query whose GROUP BY needs a temporary table of tens of thousands of groups: in memory for A
 * and B (about 12 ms), on disk for H (about 150 ms, 13 times as long). Eight measured executions after
 * four of warm-up: A's restart means, short as they are, scattered 30 % from restart to restart with
 * two (on a machine running three test files), 13 % with eight.
 */
function stopFile(name: string, levels: string[]): string {
  return shortQuickstartCopy(env(), name, { factors: [{ tunable: 'build', levels }], restartsPerCell: 2, repetitions: 12, warmup: 4 }, (d) => {
    d.design.order = 'interleaved';
    d.design.workload.queries = [{ name: 'groups', sql: 'SELECT l_extendedprice, COUNT(*) AS c FROM lineitem GROUP BY l_extendedprice ORDER BY NULL' }];
  });
}

const read = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;

// The target effect is ±50 %, not less: H is 13 times as slow, so "differs" does not depend on it, but the
// futility bound does. It asks how likely the effect E is to be shown by the maximum, from the first
// look's Z, which with 3 rounds (df 2) is small whatever the effect (a t of 15 is a Z of 2.9). At ±5 %, one
// restart thrown by a loaded machine (log differences scattered 100 %) was enough to stop the run
// "inconclusive" at round 3; at ±50 % it takes a scatter of 200 %, and a build without the handicap still
// never says "differs".
test('a handicapped build stops "differs" at a look before its maximum; the file says where and why', { timeout: 900_000 }, async () => {
  const file = stopFile('handicap', ['A', 'H']);
  const r = varlabSync(['run', file, ...authArgs, '--trust', '--until-answered', '--effect', '50', '--max-restarts', '8'], home);
  assert.equal(r.code, 0, r.stderr);
  // Every look is told, with the boundary and what is left.
  assert.match(r.stderr, /stop when answered: at most 8 rounds \(restarts per cell\), looks at rounds 3, 4, 6, 7, 8, target ±50 %/);
  assert.match(r.stderr, /look at round 3 of at most 8 \(stop when answered, target ±50 %\): boundary \|Z\| ≥ \d+\.\d\d/);
  assert.match(r.stderr, /build=H \/ groups: \+\d+\.\d\d %, repeated 95 % interval \[/);
  assert.match(r.stderr, /stopped when answered at round (3|4|6|7): every comparison decided at round \1/);
  assert.equal(r.stderr.match(/stopped when answered at round/g)?.length, 1, `said once: ${r.stderr}`);

  // Reopened from disk: the design as run carries the rule, the results the stop, and no restart after it.
  const doc = read(file);
  assert.deepEqual(doc.design.stopping, { effect: 50, alpha: 0.05, power: 0.8, maxRestartsPerCell: 8 });
  const stopped = doc.results!.stopped!;
  assert.equal(stopped.length, 1);
  assert.ok(stopped[0].round < 8, JSON.stringify(stopped));
  assert.match(stopped[0].because, new RegExp(`^every comparison decided at round ${stopped[0].round}: \\d+ (differs?|equivalent|inconclusive)`));
  assert.equal(doc.results!.restarts.length, 2 * stopped[0].round);
  for (const x of doc.results!.restarts) assert.equal(x.status, 'ok', x.reason);

  // The replay on the file gives the same stop, with the verdict "differs" for H and H slower.
  const a = varlabSync(['analyze', file, '--until-answered', '--json'], home);
  assert.equal(a.code, 0, a.stderr);
  const seq = JSON.parse(a.stdout).sequential;
  assert.equal(seq.stopped_round, stopped[0].round);
  assert.equal(seq.comparisons[0].cell, 'build=H');
  assert.equal(seq.comparisons[0].verdict, 'differs');
  assert.ok(seq.comparisons[0].effect_pct > 50, JSON.stringify(seq.comparisons[0]));

  // Stopped counts as finished: nothing is resumed.
  const again = varlabSync(['run', file, ...authArgs], home);
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, new RegExp(`already finished \\(stopped when answered at round ${stopped[0].round}: ${2 * stopped[0].round} of at most 16 restarts\\); nothing to run`));
});

test('an A/A design (the same binary at two paths) with stopping never says "differs", and a file with design.stopping stops without the flag', { timeout: 900_000 }, async () => {
  const file = stopFile('aa', ['A', 'B']);
  const doc0 = read(file);
  // At α = 0.05 the rule says "differs" in 5 % of A/A runs by its own design (the unit tests show the
  // rate over 1,000 simulated runs), and this test once met that 5 %: a single real run can only show
  // "never" at an α whose rate a CI run will not meet, so it runs at 0.001.
  doc0.design.stopping = { effect: 10, alpha: 0.001, power: 0.8, maxRestartsPerCell: 5 };
  writeFileSync(file, JSON.stringify(doc0, null, 2));
  const r = varlabSync(['run', file, ...authArgs, '--trust'], home);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /running at most 10 restarts/);
  assert.match(r.stderr, /stopped when answered at round [345]: (every comparison decided|the maximum of 5 rounds was reached)/);
  const doc = read(file);
  const stopped = doc.results!.stopped!;
  assert.equal(stopped.length, 1);
  assert.equal(doc.results!.restarts.length, 2 * stopped[0].round);
  const a = varlabSync(['analyze', file, '--until-answered', '--json'], home);
  assert.equal(a.code, 0, a.stderr);
  const verdict = JSON.parse(a.stdout).sequential.comparisons[0].verdict;
  assert.notEqual(verdict, 'differs', a.stdout);
  assert.match(verdict, /^(equivalent|inconclusive)$/);
});

test('detached, the varlab that follows the run takes the looks and stops the runner at the look that answers', { timeout: 900_000 }, async () => {
  const file = stopFile('detached', ['A', 'H']);
  const started = varlabSync(['run', file, ...authArgs, '--trust', '--detach', '--until-answered', '--effect', '5', '--max-restarts', '8'], home);
  assert.equal(started.code, 0, started.stderr);
  assert.match(started.stdout, /^detached: run \S+ on .* \(16 restarts,/);
  assert.match(started.stderr, /stop when answered: the rule's looks are taken by the varlab that follows the run/);
  const r = varlabSync(['attach', file, ...authArgs], home);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /look at round 3 of at most 8 \(stop when answered, target ±5 %\): boundary \|Z\| ≥ \d+\.\d\d/);
  const m = /stopped when answered at round (3|4|6|7): asked the run on .* to stop/.exec(r.stderr);
  assert.ok(m, r.stderr);
  const round = Number(m[1]);
  // The count is the file's: the restarts up to the look's round.
  assert.match(r.stderr, new RegExp(`finished on .*: ${2 * round} of 16 restarts; results saved into`));

  const doc = read(file);
  assert.deepEqual(doc.design.stopping, { effect: 5, alpha: 0.05, power: 0.8, maxRestartsPerCell: 8 });
  assert.deepEqual(doc.results!.stopped!.map((x) => x.round), [round]);
  // On a quiet host H differs at the first look (as attached above); on a loaded one its restarts spread
  // and the look may find it unlikely to be shown instead (futility): either way the rule stopped the runner.
  const because = doc.results!.stopped![0].because;
  assert.match(because, new RegExp(`^every comparison decided at round ${round}: 1 (differs|equivalent|inconclusive)`));
  // The rounds up to the look are all there and measured, and no more: the runner goes on until the
  // follower has read the look's round and its stop has reached it (a read every 2 s: with restarts of a
  // second or two, a few more restarts), and those are kept aside as discarded, saying why, never in the
  // results the fixed-sample analysis reads. It never reaches its maximum.
  assert.equal(doc.results!.restarts.length, 2 * round);
  for (const x of doc.results!.restarts) assert.equal(x.status, 'ok', x.reason);
  const after = (doc.results!.discarded ?? []).filter((x) => x.reason.startsWith(`measured after the look at round ${round} stopped the run`));
  assert.ok(2 * round + after.length < 16, `${after.length} restarts after a stop at round ${round}`);
  for (const x of after) assert.ok(x.seq > 2 * round, JSON.stringify(x));
  // The replay on the file agrees: the same round, H differs.
  const a = varlabSync(['analyze', file, '--until-answered', '--json'], home);
  assert.equal(a.code, 0, a.stderr);
  const seq = JSON.parse(a.stdout).sequential;
  assert.equal(seq.stopped_round, round);
  assert.equal(seq.stopped_because, because);
  assert.equal(seq.comparisons[0].verdict, /: 1 (\w+)/.exec(because)![1]);
  // Finished, not cancelled: the status and a run of it again say so.
  assert.match(varlabSync(['status', file], home).stdout, /^finished on /);
  const again = varlabSync(['run', file, ...authArgs], home);
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, new RegExp(`already finished \\(stopped when answered at round ${round}: `));
});

test('stop when answered is refused on a blocked order and without a target effect, before anything runs', () => {
  const file = stopFile('refused', ['A', 'B']);
  const noEffect = varlabSync(['run', file, ...authArgs, '--until-answered'], home);
  assert.equal(noEffect.code, 2);
  assert.match(noEffect.stderr, /--until-answered: give the target effect with --effect E \(.*refused\.varlab\.json has no design\.stopping\)/);
  const doc = read(file);
  doc.design.order = 'blocked';
  writeFileSync(file, JSON.stringify(doc, null, 2));
  const blocked = varlabSync(['run', file, ...authArgs, '--until-answered', '--effect', '5'], home);
  assert.equal(blocked.code, 2);
  assert.match(blocked.stderr, /the run order is blocked, so no round holds every cell to compare/);
  assert.equal(read(file).results, undefined, 'nothing ran');
});
