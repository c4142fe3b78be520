// `varlab analyze` as a new user reads it: the same reasons in the text and the JSON, units beside
// the means, the workload's query order in the tables, warnings where the numbers cannot be trusted.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI } from '../fixtures/cli.js';
import { finishedQuickstart } from '../fixtures/export-experiment.js';
import { exportContext, markdownReport } from '../../src/common/export/index.js';

let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'varlab-analyze-ux-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

export function varlab(...args: string[]) {
  const r = spawnSync(process.execPath, [...CLI, ...args], { encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function write(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** 16 cells × 2 restarts × 3 repetitions of Q1 and Q3: too short for a warm-up to be found. */
function shortCsv(): string {
  const rows = ['cell,restart,query,rep,value'];
  for (let c = 1; c <= 16; c++) {
    for (let r = 1; r <= 2; r++) {
      for (const q of ['Q1', 'Q3']) for (let rep = 1; rep <= 3; rep++) rows.push(`cell${c},${r},${q},${rep},${100 + c + r * 3 + rep * 0.1}`);
    }
  }
  return rows.join('\n') + '\n';
}

test('warm-up: the text gives the JSON reason, said once, not a list of 16 cells', () => {
  const file = write('short.csv', shortCsv());
  const j = JSON.parse(varlab('analyze', file, '--json').out);
  const reason = j.warmup_suggestion.reason as string;
  assert.equal(j.warmup_suggestion.suggested, null);
  assert.equal(reason, 'fewer than 5 executions per restart (every cell and query)');
  assert.doesNotMatch(reason, /cell1/, 'every cell shares the reason: no cell is named');
  for (const q of j.warmup_suggestion.queries) {
    assert.equal(q.reason, 'fewer than 5 executions per restart (all 16 cells)');
  }
  const text = varlab('analyze', file).out;
  assert.ok(text.includes(`Warm-up from the data: no suggestion: ${reason}`), text);
  assert.doesNotMatch(text, /no steady state found/);
});

async function quickstartFile(): Promise<string> {
  const { finishedQuickstart } = await import('../fixtures/export-experiment.js');
  return write('qs.varlab.json', JSON.stringify(finishedQuickstart()));
}
const BASE = 'aslr=on,ahi=on,preload=off,numa=default';

test('an experiment file: the mean with its unit, queries in the workload order, the JSON sorted with a unit per query', async () => {
  const file = await quickstartFile();
  const text = varlab('analyze', file).out;
  assert.match(text, /mean \(ms\)/);
  const perQuery = text.slice(text.indexOf('Per query')).split('\n\n')[0];
  const firstCell = perQuery.split('\n').filter((l) => l.includes('aslr=off,ahi=off,preload=off,numa=default')).map((l) => l.match(/(Q\d+)/)![1]);
  assert.deepEqual(firstCell, ['Q1', 'Q3', 'Q6', 'Q12', 'Q14']);
  const j = JSON.parse(varlab('analyze', file, '--json').out);
  const qs = j.cells[0].queries as { query: string; unit: string; mean: number }[];
  assert.deepEqual(qs.map((q) => q.query.split(' ')[0]), ['Q1', 'Q12', 'Q14', 'Q3', 'Q6'], 'the JSON stays sorted');
  assert.ok(qs.every((q) => q.unit === 'ms'));
});

test('comparisons: the sign convention, one format for effect, interval and p, a warning for 2 restarts per cell', async () => {
  const file = await quickstartFile();
  const r = varlab('analyze', file, '--baseline', BASE);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /effect = \(cell − baseline\) \/ baseline: positive = slower/);
  assert.match(r.out, /Note: only 2 restarts per cell: intervals are wide; run at least 5 restarts per cell before trusting a comparison/);
  // The fixture's 2 % is a ratio of means; the restarts ran in rounds, so the effect is paired within rounds:
  // the geometric mean of the within-round ratios, −1.96 %, with the Welch interval beside it.
  assert.match(r.out, /aslr=off,ahi=off,preload=off,numa=default +Q1 pricing summary +−1\.96 % +\[−\d+\.\d\d, \+\d+\.\d\d\] % +paired +\[−\d+\.\d\d, \+\d+\.\d\d\] % +\d\.\d\d +p = 0\.\d{3}/);
});

test('a CSV: --unit names the unit of the means; without it the table says the unit was not given; first-appearance order', () => {
  const rows = ['cell,restart,query,rep,value'];
  for (const q of ['Q6', 'Q1', 'Q12'])
    for (let r = 1; r <= 3; r++) for (let rep = 1; rep <= 3; rep++) rows.push(`a,${r},${q},${rep},${300 + r + rep}`);
  const file = write('tps.csv', rows.join('\n'));
  const withUnit = varlab('analyze', file, '--unit', 'tps');
  assert.match(withUnit.out, /mean \(tps\)/);
  const order = withUnit.out.slice(withUnit.out.indexOf('Per query')).split('\n').filter((l) => /^ {2}a /.test(l)).map((l) => l.trim().split(/ +/)[1]);
  assert.deepEqual(order, ['Q6', 'Q1', 'Q12']);
  assert.equal(JSON.parse(varlab('analyze', file, '--json', '--unit', 'tps').out).cells[0].queries[0].unit, 'tps');
  assert.match(varlab('analyze', file).out, /mean \(unit not given: --unit\)/);
  assert.equal(JSON.parse(varlab('analyze', file, '--json').out).cells[0].queries[0].unit, null);
});

test('a target out of reach with one query: the smallest detectable effect is said once, not as "197.21% to 197.21%"', async () => {
  const { roundsExperiment } = await import('../fixtures/rounds-experiment.js');
  const file = join(dir, 'one-query.varlab.json');
  writeFileSync(file, JSON.stringify(roundsExperiment({ rounds: 6, between: 0.03, shared: 0.5, effectPct: 0 })));
  const r = varlab('analyze', file, '--target-effect', '0.0001');
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /With the restarts measured, the smallest detectable effect is \d+\.\d\d%; pass --target-effect near that to plan\./);
});

test("an experiment measured by another timer than the exact one: analyze says which and why, as the report's Timer line, and in the JSON", () => {
  const doc = finishedQuickstart();
  for (const r of doc.results!.restarts) for (const q of r.queries) q.source = 'profiling';
  doc.results!.timers = [{ source: 'profiling', why: 'performance_schema is off', vsClient: { source: 'profiling', query: 'SELECT 1', n: 30, offsetMs: 0.071, spreadMs: 0.04, at: 1 } }];
  const file = write('profiled.varlab.json', JSON.stringify(doc));
  const report = markdownReport(exportContext(doc)).split('\n').filter((l) => l.startsWith('- Timer')).map((l) => l.slice(2));
  assert.equal(report.length, 1);
  assert.match(report[0], /^Timer: times from query profiling \(SHOW PROFILES\), not the exact timer: performance_schema is off; .*0\.071 ms longer/);
  const text = varlab('analyze', file);
  assert.equal(text.code, 0, text.err);
  assert.deepEqual(text.out.split('\n').slice(2, 3), report, 'under the settings, before the tables');
  const json = varlab('analyze', file, '--json');
  assert.deepEqual(JSON.parse(json.out).timer_note, report);
  // The exact timer: nothing said.
  const exact = write('exact.varlab.json', JSON.stringify(finishedQuickstart()));
  assert.doesNotMatch(varlab('analyze', exact).out, /^Timer/m);
});
