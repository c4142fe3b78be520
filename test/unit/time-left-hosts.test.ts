// The time left of a design run on several hosts at once starts, on each host, from the costs that
// host measured in the file's earlier run, as a run on one host starts from its file's (engine/run.ts
// progress, runs/prepare.ts PreparedRun.measured). Before, each host's engine was given no results
// and said the design's estimates. The time said before Run is the slowest host's: the hosts run at
// once, each at its own costs (stats/planner.ts learnedEstimate, hostResults).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExperimentDoc, RestartResult } from '../../src/common/experiment/types.js';
import { buildPlan, estimatePlan, perRestartMs } from '../../src/common/plan.js';
import { learnedCosts, learnedEstimate, runPoint, timeLeftMs } from '../../src/common/stats/planner.js';
import { prepareRun } from '../../src/node/runs/prepare.js';

const dir = mkdtempSync(join(tmpdir(), 'varlab-time-left-hosts-'));
process.env.VARLAB_HOME = join(dir, 'home');
after(() => rmSync(dir, { recursive: true, force: true }));
const profile = (target: string) => ({ kind: 'direct', target, mysqld: '/usr/sbin/mariadbd', datadir: join(dir, 'data'), socket: join(dir, 'mysqld.sock'), port: 23306, user: 'root', extraArgs: [], sudo: false });
const [A, B] = ['ssh://a.example', 'ssh://b.example'];
mkdirSync(process.env.VARLAB_HOME, { recursive: true });
writeFileSync(join(process.env.VARLAB_HOME, 'profiles.json'), JSON.stringify({ [A]: profile(A), [B]: profile(B) }));

test("each host of a several-host run starts its time left from what it measured itself; the time said before Run is the slowest host's", async () => {
  const doc = JSON.parse(readFileSync('examples/quickstart.varlab.json', 'utf8')) as ExperimentDoc;
  const d = doc.design;
  Object.assign(d, { target: A, targets: [A, B], factors: [], excludedCells: [], restartsPerCell: 4, idleSeconds: 0 });
  d.workload = { ...d.workload, queries: d.workload.queries.slice(0, 1), repetitions: 3, warmup: 1 };
  delete d.serverProfile;
  const designs = estimatePlan(d, 1).perRestartSeconds * 1000;
  const query = buildPlan(d)[0].queries[0];
  const cell = buildPlan(d)[0].cell;
  // Both hosts start at 0 and reach their first restart at 2 s. A's restarts take 5 s; B's 6 s, then 9 s.
  // B ends last, at 35 s; the run 1.5 s later (B's mysqld stopped and its host restored).
  const restarts = (host: string, seconds: number[]): RestartResult[] => {
    let at = 2_000;
    return seconds.map((s, i) => {
      const r: RestartResult = { seq: i + 1, cell, host, status: 'ok', startedAt: at, finishedAt: at + s * 1000, checks: [], queries: [{ query, unit: 'ms', source: 'performance_schema', values: [100, 100, 100] }], steps: { measure: 300 } };
      at += s * 1000;
      return r;
    });
  };
  doc.results = { startedAt: 0, finishedAt: 36_500, restarts: [...restarts(A, [5, 5, 5, 5]), ...restarts(B, [6, 9, 9, 9])] };
  const file = join(dir, 'two.varlab.json');
  writeFileSync(file, JSON.stringify(doc, null, 2));

  // Run again from scratch: each host's engine is given what that host measured.
  const p = await prepareRun({ file, fresh: true });
  const first = (host: string) => {
    const h = p.hosts!.find((x) => x.target === host)!;
    assert.ok(h.measured, `${host} is given the file's results`);
    const l = learnedCosts({ design: h.doc.design, results: h.measured });
    return timeLeftMs(h.doc.design, l.costs, perRestartMs([], l.design), runPoint(h.doc.design)).remainingMs;
  };
  // A: 4 restarts of 5 s and 2 s before the first; its end is not in the file (it waited for B).
  assert.equal(first(A), 4 * 5_000 + 2_000, `not the design's ${4 * designs} ms`);
  // B: its median restart, 9 s, and the 2 s before its first and 1.5 s after its last.
  assert.equal(first(B), 4 * 9_000 + 3_500);
  // The time said before Run (the Run view, the Designer, the Plan view, `plan`): the slowest host's, at its own costs.
  const said = learnedEstimate(doc);
  assert.equal(Math.round(said.estimate.seconds * 1000), first(B), 'not the median restart of both hosts pooled');
  assert.equal(said.costs.source, 'journal');
  assert.match(said.basis, /^from the run of 1970-01-01 00:00 UTC$/);
});
