// varlab analyze reads what varlab export writes: the executions CSV gives the analysis the experiment
// file gives, the restart means give its restart-level figures. And what a CSV may hold: decimal
// numbers only, labels shown with their control characters escaped.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { syntheticExperiment } from '../../scripts/bench/lib/generate.js';
import { finishedQuickstart, QUOTED_QUERY } from '../fixtures/export-experiment.js';
import { experimentText } from '../../src/common/experiment/text.js';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';
import { CLI } from '../fixtures/cli.js';
import { expandCells } from '../../src/common/plan.js';

let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'varlab-analyze-csv-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

function varlab(...args: string[]) {
  const r = spawnSync(process.execPath, [...CLI, ...args], { encoding: 'utf8', env: { ...process.env, VARLAB_HOME: join(dir, 'home') } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function write(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

function exported(name: string, doc: ExperimentDoc): { file: string; csv: string } {
  const file = write(`${name}.varlab.json`, [...experimentText(doc)].join(''));
  const csv = join(dir, `${name}-csv`);
  const r = varlab('export', file, '--csv', csv);
  assert.equal(r.code, 0, r.err);
  return { file, csv };
}

const json = (r: { code: number | null; out: string; err: string }) => {
  assert.equal(r.code, 0, r.err);
  return JSON.parse(r.out);
};

type Q = Record<string, unknown> & { query: string };
type Cell = { cell: string; queries: Q[] };

test('executions.csv from varlab export: the same cells and statistics as the experiment file', () => {
  for (const [name, doc] of [
    ['quickstart', finishedQuickstart()],
    ['synthetic', syntheticExperiment({ queries: 3, restartsPerCell: 4, reps: 9 })],
  ] as const) {
    const { file, csv } = exported(name, doc);
    const baseline = doc.results!.restarts[0].cell;
    const fromFile = json(varlab('analyze', file, '--json', '--baseline', baseline));
    const fromCsv = json(varlab('analyze', join(csv, 'executions.csv'), '--json', '--baseline', baseline));
    assert.ok(fromFile.cells.length >= 16 && fromFile.comparisons.length > 0, name);
    assert.equal(fromFile.settings.warmup, doc.design.workload.warmup, 'the warm-up comes from the file');
    assert.deepEqual(fromCsv, fromFile, name);
    // And the text a person reads, but for the first line (an experiment's name, a CSV's path).
    const text = (r: { out: string }) => r.out.split('\n').slice(1).join('\n');
    assert.equal(text(varlab('analyze', join(csv, 'executions.csv'), '--baseline', baseline)), text(varlab('analyze', file, '--baseline', baseline)));
    // Without --baseline each compares with its first cell: the design's for the file (as the app's
    // Analysis and export do), a CSV's first in code-point order (it does not hold the design's order).
    const firstOfDesign = json(varlab('analyze', file, '--json'));
    const designFirst = expandCells(doc.design).find((c) => !c.excluded)!.id;
    assert.deepEqual([...new Set(firstOfDesign.comparisons.map((c: { baseline: string }) => c.baseline))], [designFirst], name);
  }
  const quick = json(varlab('analyze', join(dir, 'quickstart-csv', 'executions.csv'), '--json'));
  assert.ok(quick.cells[0].queries.some((q: Q) => q.query === QUOTED_QUERY), 'a query name with a quote and a comma survives');
});

test('restarts.csv from varlab export: restart means give the restart-level figures of the experiment file', () => {
  const doc = syntheticExperiment({ queries: 2, restartsPerCell: 4, reps: 7 });
  doc.results!.restarts[3].status = 'verify-failed';
  const { file, csv } = exported('means', doc);
  const baseline = doc.results!.restarts[0].cell;
  const fromFile = json(varlab('analyze', file, '--json', '--baseline', baseline));
  const fromMeans = json(varlab('analyze', join(csv, 'restarts.csv'), '--json', '--baseline', baseline));
  assert.equal(fromMeans.settings.warmup, 0, 'the means were taken after the warm-up');
  assert.deepEqual(fromMeans.cells.map((c: Cell) => c.cell), fromFile.cells.map((c: Cell) => c.cell));
  const restartLevel = ['query', 'n_restarts', 'mean', 'between_cov_pct', 'spread_pct', 'mde_pct', 'restarts_for_target'];
  const pick = (cells: Cell[]) => cells.map((c) => c.queries.map((q) => Object.fromEntries(restartLevel.map((k) => [k, q[k]]))));
  assert.deepEqual(pick(fromMeans.cells), pick(fromFile.cells));
  assert.equal(fromFile.cells.find((c: Cell) => c.cell === doc.results!.restarts[3].cell).queries[0].n_restarts, 3, 'the failed restart is left out of both');
  const comparison = (c: Record<string, unknown>) => ({ cell: c.cell, query: c.query, effect_pct: c.effect_pct, ci_low_pct: c.ci_low_pct, ci_high_pct: c.ci_high_pct, p_value: c.p_value });
  assert.deepEqual(fromMeans.comparisons.map(comparison), fromFile.comparisons.map(comparison));
  assert.equal(fromMeans.cells[0].queries[0].within_cov_pct, null, 'within-restart spread needs the executions');
  const summary = varlab('analyze', join(csv, 'summary.csv'));
  assert.equal(summary.code, 2);
  assert.match(summary.err, /summary\.csv:1: this is varlab export's summary\.csv: statistics, not measurements; analyze executions\.csv/);
  const warm = varlab('analyze', join(csv, 'restarts.csv'), '--warmup', '2');
  assert.equal(warm.code, 2);
  assert.match(warm.err, /--warmup: .*restarts\.csv holds restart means, whose warm-up was dropped when they were written/);
});

test('CSV numbers are decimal: 0x10, 0o7, 0b11 and +5 are refused with their line', () => {
  for (const [value, line] of [['0x10', 3], ['0o7', 3], ['0b11', 3], ['+5', 3], ['Infinity', 3], ['1e999', 3]] as const) {
    const r = varlab('analyze', write('hex.csv', `cell,restart,query,rep,value\nc,1,q,1,5\nc,1,q,2,${value}\n`));
    assert.equal(r.code, 2, value);
    assert.match(r.err, new RegExp(`hex\\.csv:${line}: value "${value.replace('+', '\\+')}" is not a number`));
  }
  const rep = varlab('analyze', write('rep.csv', 'cell,restart,query,rep,value\nc,1,q,0x1,5\n'));
  assert.match(rep.err, /rep\.csv:2: rep "0x1" is not a whole number from 1/);
});

test('labels with control characters are printed escaped: a cell id cannot drive the terminal', () => {
  const evil = 'on\x1b[2J\x1b[31mred\rhidden\u202egnp.exe\x9b';
  const rows = ['cell,restart,query,rep,value'];
  for (const cell of [evil, 'plain']) for (let r = 1; r <= 3; r++) for (let i = 1; i <= 3; i++) rows.push(`"${cell}",${r},"Q\x07",${i},${10 + r + i / 10}`);
  const file = write('evil.csv', rows.join('\n'));
  for (const args of [[], ['--json'], ['--baseline', 'plain']]) {
    const r = varlab('analyze', file, ...args);
    assert.equal(r.code, 0, r.err);
    assert.doesNotMatch(r.out, /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202e]/, `${args.join(' ')}: no raw control character`);
    assert.match(r.out, /on\\u001b\[2J\\u001b\[31mred\\(u000d|r)hidden\\u202egnp\.exe\\u009b/);
  }
  const j = JSON.parse(varlab('analyze', file, '--json').out);
  assert.ok(j.cells.some((c: Cell) => c.cell === evil), 'the JSON still holds the label itself');
  const missing = varlab('analyze', join(dir, 'no\x1bsuch.csv'));
  assert.match(missing.err, /no\\u001bsuch\.csv: cannot read: no such file/);
  assert.equal(readFileSync(file, 'utf8').includes('\x1b'), true);
});
