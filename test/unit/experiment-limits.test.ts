// Limits and types of experiment files (issue 13): a hostile or mistaken file is refused with exit 2
// and a message naming the JSON path, before it can take minutes, gigabytes or the stack; numbers are
// finite and inside their ranges; results name the design's own cells and queries.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkExperiment, problemsBeforeSave } from '../../src/common/experiment/validate.js';
import { cellCount, nestingProblem } from '../../src/common/experiment/limits.js';
import { saveExperimentFile } from '../../src/node/files.js';
import type { ExperimentDoc, RestartResult } from '../../src/common/experiment/types.js';
import { CLI } from '../fixtures/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'varlab-limits-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const quickstart = (): ExperimentDoc => JSON.parse(readFileSync('examples/quickstart.varlab.json', 'utf8'));

/** `varlab ARGS` as a user runs it. */
function varlab(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [...CLI, ...args], { encoding: 'utf8', env: { ...process.env, VARLAB_HOME: join(dir, 'home'), ...env } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function file(name: string, text: string): string {
  const path = join(dir, `${name}.varlab.json`);
  writeFileSync(path, text);
  return path;
}

/** `n` server-variable factors of `levels` levels each. */
function wide(n: number, levels: number): ExperimentDoc {
  const doc = quickstart();
  doc.design.factors = Array.from({ length: n }, (_, i) => ({ tunable: 'variable', name: `var_${i}`, levels: Array.from({ length: levels }, (_, j) => String(j)) }));
  doc.design.excludedCells = [];
  return doc;
}

test('the size of a matrix is checked from the level counts, before anything is expanded', { timeout: 60_000 }, () => {
  // 5 factors of 32 levels: 33,554,432 cells (this took 117 s and 5.2 GB in validate).
  const path = file('huge', JSON.stringify(wide(5, 32)));
  for (const command of ['validate', 'plan']) {
    const r = varlab([command, path]);
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stderr.trim(), `${path}: design.factors: 33,554,432 cells (32 × 32 × 32 × 32 × 32 levels) is more than the limit of 10,000; leave out levels or factors, or raise the limit with --max-cells N (VARLAB_MAX_CELLS=N for the app)`);
  }
  assert.equal(cellCount(wide(16, 32).design.factors), 32 ** 16, 'counted, not expanded');
});

test('the user raises the limits with --max-cells and --max-restarts (or the environment)', () => {
  const path = file('wide', JSON.stringify(wide(3, 32))); // 32,768 cells × 5 restarts
  assert.match(varlab(['validate', path]).stderr, /design\.factors: 32,768 cells .* more than the limit of 10,000/);
  const cellsRaised = varlab(['validate', path, '--max-cells', '40000']);
  assert.equal(cellsRaised.code, 2);
  assert.match(cellsRaised.stderr, /design\.restartsPerCell: 163,840 restarts \(32,768 cells × 5\) is more than the limit of 100,000; .*--max-restarts N/);
  const both = varlab(['validate', path, '--max-cells', '40000', '--max-restarts', '200000']);
  assert.equal(both.code, 0, both.stderr);
  assert.equal(varlab(['validate', path], { VARLAB_MAX_CELLS: '40000', VARLAB_MAX_RESTARTS: '200000' }).code, 0);
  const badEnv = varlab(['validate', path], { VARLAB_MAX_CELLS: 'lots' });
  assert.equal(badEnv.code, 2);
  assert.match(badEnv.stderr, /VARLAB_MAX_CELLS: expected a whole number of at least 1, got "lots"/);
  const badFlag = varlab(['validate', path, '--max-cells', '1e309']);
  assert.equal(badFlag.code, 2);
  assert.match(badFlag.stderr, /--max-cells: expected a whole number/);
});

test('1e309 is not a number varlab accepts: refused with its path, and the plan never reads "Infinity h NaN min"', () => {
  const text = JSON.stringify(quickstart(), null, 2).replace(/"restartSeconds": [0-9.]+/, '"restartSeconds": 1e309');
  const path = file('infinite', text);
  for (const command of ['validate', 'plan']) {
    const r = varlab([command, path]);
    assert.equal(r.code, 2);
    assert.equal(r.stderr.trim(), `${path}: design.estimates.restartSeconds: expected at most 86400`);
    assert.doesNotMatch(r.stdout, /Infinity|NaN/);
  }
  // Everywhere a number is stored, Infinity (1e309 once parsed) is out of range.
  const doc = withResults(quickstart());
  const cases: [string, (d: ExperimentDoc) => void][] = [
    ['design.estimates.executionMs', (d) => (d.design.estimates.executionMs = Infinity)],
    ['results.restarts[0].queries[0].values[1]', (d) => (d.results!.restarts[0].queries[0].values[1] = -Infinity)],
    ['results.restarts[0].startedAt', (d) => (d.results!.restarts[0].startedAt = Infinity)],
    ['results.restarts[0].seq', (d) => (d.results!.restarts[0].seq = Infinity)],
    ['results.startedAt', (d) => (d.results!.startedAt = -1)],
  ];
  for (const [path, edit] of cases) {
    const d = structuredClone(doc);
    edit(d);
    assert.match(checkExperiment(d).problems.join('\n'), new RegExp(`^${path.replace(/[.[\]]/g, '\\$&')}: expected at (most|least)`), path);
  }
});

function withResults(doc: ExperimentDoc): ExperimentDoc {
  const restart = (seq: number, cell: string): RestartResult => ({
    seq,
    cell,
    status: 'ok',
    startedAt: 1_700_000_000_000,
    finishedAt: 1_700_000_060_000,
    checks: [],
    queries: [{ query: doc.design.workload.queries[0].name, unit: 'ms', source: 'client', values: [1.5, 1.25, 1.5] }],
  });
  doc.results = { restarts: [restart(1, 'aslr=on,ahi=on,preload=off,numa=default'), restart(2, 'aslr=off,ahi=on,preload=off,numa=default')] };
  return doc;
}

test('results must name the design’s own cells and queries', () => {
  const good = withResults(quickstart());
  assert.deepEqual(checkExperiment(good).problems, []);
  const bad = structuredClone(good);
  bad.results!.restarts[1].cell = 'aslr=maybe';
  bad.results!.restarts[0].queries[0].query = 'DROP \u001b[2J';
  bad.results!.discarded = [{ seq: 3, cell: 'nowhere', reason: 'x', at: 1 }];
  const path = file('foreign-results', JSON.stringify(bad));
  const r = varlab(['validate', path]);
  assert.equal(r.code, 2);
  assert.deepEqual(r.stderr.trim().split('\n'), [
    `${path}: results.restarts[0].queries[0].query: "DROP \\u001b[2J" is not a query of this design`,
    `${path}: results.restarts[1].cell: "aslr=maybe" is not a cell of this design`,
    `${path}: results.discarded[0].cell: "nowhere" is not a cell of this design`,
  ]);
  assert.doesNotMatch(r.stderr, /\u001b/, 'the escape sequence is shown, not sent to the terminal');
});

test('found by the fuzzer: a restart number twice, or a query twice in one restart, is refused (analyze failed with exit 1)', () => {
  const twice = withResults(quickstart());
  twice.results!.restarts[1].seq = 1;
  twice.results!.restarts[0].queries.push(structuredClone(twice.results!.restarts[0].queries[0]));
  const path = file('twice', JSON.stringify(twice));
  for (const command of ['validate', 'analyze']) {
    const r = varlab([command, path]);
    assert.equal(r.code, 2, r.stderr);
    assert.deepEqual(r.stderr.trim().split('\n'), [
      `${path}: results.restarts[0].queries[1].query: "${twice.design.workload.queries[0].name}" appears twice in this restart`,
      `${path}: results.restarts[1].seq: restart 1 appears twice (also results.restarts[0])`,
    ]);
  }
});

test('nesting 100,000 deep is refused with exit 2 and its path, not a RangeError', () => {
  const n = 100_000;
  const deep = '{"a":'.repeat(n) + '1' + '}'.repeat(n);
  const doc = withResults(quickstart());
  const text = JSON.stringify({ ...doc, results: { ...doc.results, host: '__DEEP__' } }).replace('"__DEEP__"', deep);
  const path = file('deep', text);
  for (const command of ['validate', 'plan', 'analyze']) {
    const r = varlab([command, path]);
    assert.equal(r.code, 2, `${command}: ${r.stderr}`);
    assert.match(r.stderr, /results\.host(\.a){30}: nested more than 32 levels deep/, command);
    assert.doesNotMatch(r.stderr, /RangeError|stack size/);
  }
  // Arrays too, anywhere, and before the secrets scan that walks the document on save.
  const arrays = JSON.parse(JSON.stringify(quickstart()));
  let v: unknown[] = [];
  arrays.description = v;
  for (let i = 0; i < n; i++) v = (v[0] = []) as unknown[];
  assert.equal(nestingProblem(arrays), `description${'[0]'.repeat(31)}: nested more than 32 levels deep`);
  assert.deepEqual(problemsBeforeSave(arrays), [`description${'[0]'.repeat(31)}: nested more than 32 levels deep`]);
});

test('saving a document nested too deep is an invalid-file failure naming the place, and nothing is written', async () => {
  const doc = quickstart() as unknown as Record<string, unknown>;
  let v: Record<string, unknown> = {};
  doc.deep = v;
  for (let i = 0; i < 50_000; i++) v = (v.x = {}) as Record<string, unknown>;
  const path = join(dir, 'deep-save.varlab.json');
  await assert.rejects(saveExperimentFile(path, doc as unknown as ExperimentDoc), (e: Error & { code?: string }) => e.code === 'invalid-file' && /^deep(\.x){31}: nested more than 32 levels deep$/.test(e.message));
  assert.throws(() => readFileSync(path), /ENOENT/);
});

test('a NUMA level is read whole: bind:0:<anything> is refused', () => {
  for (const level of ['bind:0:1', 'bind:0:; touch /tmp/x', 'preferred:1:', 'bind:', 'bind:01', 'bind:0 ']) {
    const doc = quickstart();
    doc.design.factors[3].levels = ['default', level];
    assert.deepEqual(checkExperiment(doc).problems, [`design.factors[3].levels[1]: level ${JSON.stringify(level)} is not valid for NUMA policy: expected default, interleave, bind:N or preferred:N`], level);
  }
  const doc = quickstart();
  doc.design.factors[3].levels = ['default', 'interleave', 'bind:0', 'preferred:12'];
  doc.design.excludedCells = [];
  assert.deepEqual(checkExperiment(doc).problems, []);
});
