// `varlab analyze` as a user runs it: a real process on files written here, exit codes and messages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliFixture } from '../fixtures/cli.js';
import { seededRandom } from '../../src/common/plan.js';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';

const { dir, varlab, write } = cliFixture('analyze');

const SYSBENCH = [
  [330.7, 332.44, 332.55, 332.79, 333.45],
  [302.72, 302.49, 303.13, 303.11, 302.29],
];

/** Two cells: the seeds' sysbench starts, and a steadier cell 1% faster; rows shuffled. */
function csv(): string {
  const rows: string[] = [];
  SYSBENCH.forEach((vals, r) => vals.forEach((v, i) => rows.push(`mysql-5.6,${r + 1},tps,${i + 1},${v}`)));
  SYSBENCH.forEach((vals, r) => vals.forEach((v, i) => rows.push(`"mysql-5.6,patched",${r + 1},tps,${i + 1},${(v * 1.01).toFixed(3)}`)));
  rows.push('mysql-5.6,1,other,1,5', 'mysql-5.6,1,other,2,6', 'mysql-5.6,2,other,1,5.5', 'mysql-5.6,2,other,2,5.7');
  const random = seededRandom(9);
  rows.sort(() => random() - 0.5);
  return ['cell,restart,query,rep,value', ...rows].join('\n') + '\n';
}

test('--json: the numbers of issue 5, cells and queries sorted, comparisons with the baseline', () => {
  const file = write('data.csv', csv());
  const r = varlab(file, '--json', '--baseline', 'mysql-5.6');
  assert.equal(r.code, 0, r.err);
  const j = JSON.parse(r.out);
  assert.deepEqual(j.cells.map((c: { cell: string }) => c.cell), ['mysql-5.6', 'mysql-5.6,patched']);
  const base = j.cells[0];
  assert.deepEqual(base.queries.map((q: { query: string }) => q.query), ['other', 'tps']);
  const tps = base.queries[1];
  assert.deepEqual(Object.keys(tps).slice(0, 12), ['query', 'n_restarts', 'reps_per_restart', 'mean', 'within_cov_pct', 'between_cov_pct', 'sigma_within', 'sigma_between', 'icc', 'spread_pct', 'mde_pct', 'restarts_for_target']);
  assert.equal(tps.within_cov_pct.toFixed(2), '0.24');
  assert.equal(tps.between_cov_pct.toFixed(1), '6.6');
  assert.equal(typeof base.spread_avg_pct, 'number');
  assert.equal(j.comparisons.length, 2);
  const cmp = j.comparisons.find((c: { query: string }) => c.query === 'tps');
  assert.equal(cmp.cell, 'mysql-5.6,patched');
  assert.equal(cmp.baseline, 'mysql-5.6');
  assert.equal(cmp.effect_pct.toFixed(2), '1.00');
  assert.ok(cmp.ci_low_pct < 0 && cmp.ci_high_pct > 2, 'two restarts that far apart cannot show a 1% effect');
  // Issue 12: the ratio interval never leaves (−100 %, +∞); raw and adjusted p; no MDE from 2 restarts.
  assert.ok(cmp.ci_low_pct > -100);
  assert.equal(typeof cmp.p_value, 'number');
  assert.equal(cmp.p_adjusted, cmp.p_value, 'one comparison with a p-value: its own family');
  assert.equal(cmp.adjustment, 'holm');
  assert.equal(cmp.verdict, 'inconclusive');
  assert.equal(j.summary, '0 of 1 comparison differs after Holm adjustment (α = 0.05)');
  assert.deepEqual(Object.keys(tps.steady), ['flat', 'warmup', 'slowdown', 'none']);
  assert.equal(tps.mde_pct, null);
  assert.equal(tps.null_reasons.mde_pct, 'needs 1 more restart (3 per cell)');
  assert.equal(j.ranking.most_stable, null);
  const bh = JSON.parse(varlab(file, '--json', '--baseline', 'mysql-5.6', '--adjust', 'bh').out);
  assert.equal(bh.comparisons.find((c: { query: string }) => c.query === 'tps').adjustment, 'bh');
  // The patched cell has no "other" query: null, with the reason, never NaN.
  const other = j.comparisons.find((c: { query: string }) => c.query === 'other');
  assert.equal(other.effect_pct, null);
  assert.match(other.null_reasons.effect_pct, /this cell has no executions of other/);
  assert.ok(!r.out.includes('NaN'));
});

test('--warmup drops the first repetitions of every restart', () => {
  const file = write('warm.csv', csv());
  const all = JSON.parse(varlab(file, '--json').out).cells[0].queries[1];
  const warm = JSON.parse(varlab(file, '--json', '--warmup', '1').out).cells[0].queries[1];
  assert.equal(all.reps_per_restart, 5);
  assert.equal(warm.reps_per_restart, 4);
  // Without the seeds' slow first run (330.70) the first start is steadier still.
  assert.ok(warm.within_cov_pct < all.within_cov_pct);
});

test('readable tables: configurations with the most stable marked (and the test that says so), per query, bimodal starts', () => {
  const random = seededRandom(5);
  const rows = ['cell,restart,query,rep,value'];
  for (const cell of ['aslr=on', 'aslr=off']) {
    for (let r = 1; r <= 10; r++) {
      const level = cell === 'aslr=on' ? (r % 3 === 0 ? 302 : 322 + 16 * random()) : 330 + random();
      for (let rep = 1; rep <= 5; rep++) rows.push(`${cell},${r},tps,${rep},${(level + random() * 0.5).toFixed(2)}`);
    }
  }
  const r = varlab(write('bimodal.csv', rows.join('\n')), '--baseline', 'aslr=on');
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /aslr=off +\d+\.\d\d% +\d+\.\d\d% +<- most stable/);
  assert.match(r.out, /aslr=off: shown more stable than every other cell \(Brown–Forsythe test/);
  assert.match(r.out, /Bimodal starts: restart means fall into separated levels/);
  assert.match(r.out, /aslr=on \/ tps: 3 restarts around 302\.\d+ \(3, 6, 9\); 7 restarts around 3[23]\d\.\d+/);
  assert.match(r.out, /Comparisons with aslr=on/);
  assert.doesNotMatch(r.out, /NaN/);
});

test('a malformed CSV gets the line number and what is wrong (exit 2)', () => {
  const cases: [string, RegExp][] = [
    ['cell,restart,query,rep,value\nc,1,q,1,5\nc,1,q,2,6\nc,1,q,3,abc\n', /bad\.csv:4: value "abc" is not a number/],
    ['cell,restart,query,rep,value\nc,1,q,1,5\nc,1,q,1.5,6\n', /bad\.csv:3: rep "1\.5" is not a whole number from 1/],
    ['cell,restart,query,rep,value\nc,1,q,1,5\nc,1,q\n', /bad\.csv:3: expected 5 fields \(cell,restart,query,rep,value\), found 3/],
    ['cell,run,query,rep,value\nc,1,q,1,5\n', /bad\.csv:1: expected the header cell,restart,query,rep,value, found "cell,run,query,rep,value"/],
    ['cell,restart,query,rep,value\nc,1,q,1,5\nc,1,q,1,7\n', /bad\.csv:3: rep 1 appears twice for cell "c", restart "1", query "q" \(first on line 2\)/],
    ['cell,restart,query,rep,value\nc,1,q,1,5\n"c,1,q,2,6\n', /bad\.csv:\d+: .*quote/i],
    ['', /bad\.csv: empty: expected the header/],
  ];
  for (const [text, message] of cases) {
    const r = varlab(write('bad.csv', text), '--json');
    assert.equal(r.code, 2, `${JSON.stringify(text)}: ${r.err}`);
    assert.match(r.err, message);
    assert.equal(r.out, '');
  }
});

test('bad options are usage errors (exit 2) that name the option', () => {
  const file = write('ok.csv', csv());
  const cases: [string[], RegExp][] = [
    [['--alpha', '2'], /--alpha: expected a number from 0 to 1/],
    [['--power', '1'], /--power: expected a number between 0 and 1 \(exclusive\)/],
    [['--warmup=-1'], /--warmup: expected a whole number of at least 0/],
    [['--target-effect', '0'], /--target-effect: expected a percentage above 0/],
    [['--baseline', 'nope'], /--baseline: no cell "nope" in .*; cells: mysql-5\.6 \| mysql-5\.6,patched/],
    [['--bogus'], /unknown option --bogus \(a FILE whose name starts with - goes after --\)/],
  ];
  for (const [args, message] of cases) {
    const r = varlab(file, ...args);
    assert.equal(r.code, 2, args.join(' '));
    assert.match(r.err, message);
  }
  const missing = varlab(join(dir(), 'missing.csv'));
  assert.equal(missing.code, 2);
  assert.match(missing.err, /missing\.csv: cannot read: no such file/);
});

test('an experiment file: ok restarts only, its own warm-up unless --warmup says otherwise', () => {
  const doc: ExperimentDoc = JSON.parse(readFileSync('examples/quickstart.varlab.json', 'utf8'));
  doc.design.workload.warmup = 1;
  const restart = (seq: number, status: 'ok' | 'failed', values: number[]) => ({
    seq,
    cell: 'aslr=off,ahi=off,preload=on,numa=default',
    status,
    startedAt: 1_700_000_000_000,
    finishedAt: 1_700_000_060_000,
    checks: [],
    queries: [{ query: 'Q1 pricing summary', unit: 'ms', source: 'performance_schema' as const, values }],
  });
  doc.results = { restarts: [restart(1, 'ok', [50, 10, 12]), restart(2, 'failed', [1, 1, 1]), restart(3, 'ok', [50, 14, 16, 18])] };
  const file = write('exp.varlab.json', JSON.stringify(doc));
  const r = varlab(file, '--json');
  assert.equal(r.code, 0, r.err);
  const [q] = JSON.parse(r.out).cells[0].queries;
  assert.equal(q.n_restarts, 2);
  assert.equal(q.mean, 13.5);
  assert.equal(q.icc.toFixed(6), (10 / 13).toFixed(6));
  const none = varlab(file, '--json', '--warmup', '0');
  assert.ok(JSON.parse(none.out).cells[0].queries[0].mean > 20);

  delete doc.results;
  const empty = varlab(write('empty.varlab.json', JSON.stringify(doc)));
  assert.equal(empty.code, 2);
  assert.match(empty.err, /no results yet/);
});

test('a quoted CSV and the same data unquoted give the same analysis', () => {
  const rows = ['cell,restart,query,rep,value'];
  SYSBENCH.forEach((vals, r) => vals.forEach((v, i) => rows.push(`base,${r + 1},tps,${i + 1},${v}`)));
  const plain = write('plain.csv', '\ufeff' + rows.join('\r\n') + '\r\n\r\n');
  const quoted = write('quoted.csv', rows.map((l, i) => (i ? l.replace(/^base,/, '"base",') : l)).join('\n'));
  const a = varlab(plain, '--json');
  const b = varlab(quoted, '--json');
  assert.equal(a.code, 0, a.err);
  assert.equal(b.code, 0, b.err);
  assert.equal(a.out, b.out);
  assert.equal(JSON.parse(a.out).cells[0].queries[0].n_restarts, 2);
});

test('a grown design (run --missing): the cell measured later is marked, not compared with a baseline of another run unless --across-runs', () => {
  const doc: ExperimentDoc = JSON.parse(readFileSync('examples/quickstart.varlab.json', 'utf8'));
  doc.design.workload.warmup = 0;
  const restart = (seq: number, cell: string, base: number, part?: number) => ({
    seq,
    cell,
    status: 'ok' as const,
    startedAt: 1_700_000_000_000,
    finishedAt: 1_700_000_060_000,
    checks: [],
    ...(part ? { part } : {}),
    queries: [{ query: 'Q1 pricing summary', unit: 'ms', source: 'performance_schema' as const, values: [base + seq * 0.1, base + seq * 0.1 + 0.5] }],
  });
  const [a, b, c] = ['aslr=on,ahi=on,preload=off,numa=default', 'aslr=off,ahi=off,preload=on,numa=default', 'aslr=on,ahi=on,preload=off,numa=interleave'];
  let seq = 0;
  const restarts = [];
  for (let i = 0; i < 5; i++) restarts.push(restart(++seq, a, 10), restart(++seq, b, 11));
  for (let i = 0; i < 5; i++) restarts.push(restart(++seq, c, 12, 2));
  doc.results = { restarts };
  const file = write('grown.varlab.json', JSON.stringify(doc));
  const text = varlab(file, '--baseline', a);
  assert.equal(text.code, 0, text.err);
  assert.match(text.out, new RegExp(`${c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} .*measured later \\(run 2\\)`));
  assert.match(text.out, /Grown design: measured in 2 runs \(run --missing\); measured later: .* \(run 2\)\. A cell is compared only with cells measured in the same run/);
  assert.match(text.out, /not compared: .* was measured in run 2 and .* in run 1 of this grown design/);
  const json = JSON.parse(varlab(file, '--baseline', a, '--json').out);
  const later = json.comparisons.find((x: { cell: string }) => x.cell === c);
  assert.equal(later.effect_pct, null);
  assert.deepEqual(json.grown.later, [c]);
  assert.equal(json.settings.acrossRuns, false);
  assert.equal(json.pairing.not_compared, 1);
  assert.match(text.out, /Paired within rounds: .*\(1 of 2 comparisons; 1 not compared, their cells measured in different runs\)/);
  const across = JSON.parse(varlab(file, '--baseline', a, '--json', '--across-runs').out);
  const compared = across.comparisons.find((x: { cell: string }) => x.cell === c);
  assert.ok(compared.effect_pct > 0 && compared.pairing === 'unpaired', JSON.stringify(compared));
  assert.match(compared.pairing_reason, /compared across runs as asked/);
});
