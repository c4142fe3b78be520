// Comparing experiment files: per cell and query, the ratio of restart means across files with its
// log-scale Welch interval, checked against the formula written out here; every comparison of the call
// adjusted as one family; and the `varlab compare` command on files on disk.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import quantile from '@stdlib/stats-base-dists-t-quantile';
import tcdf from '@stdlib/stats-base-dists-t-cdf';
import { compareExperiments, CompareError, labelsFor } from '../../src/common/export/compare.js';
import { main } from '../../src/cli/main.js';
import { finishedQuickstart } from '../fixtures/export-experiment.js';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';

/** The same experiment on a host 5% slower, with restart-to-restart noise of its own. */
function slowerHost(): ExperimentDoc {
  const doc = finishedQuickstart();
  doc.name = 'Quickstart on MariaDB 11.4';
  doc.results!.host = { ...doc.results!.host!, mysqld: { ...doc.results!.host!.mysqld!, version: '11.4.3' } };
  for (const r of doc.results!.restarts) {
    const wobble = r.seq % 2 ? 1.01 : 0.99;
    for (const q of r.queries) q.values = q.values.map((v) => v * 1.05 * wobble);
  }
  return doc;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const variance = (xs: number[]) => xs.reduce((a, x) => a + (x - mean(xs)) ** 2, 0) / (xs.length - 1);

function restartMeans(doc: ExperimentDoc, cell: string, query: string): number[] {
  return doc.results!.restarts.filter((r) => r.cell === cell).map((r) => mean(r.queries.find((q) => q.query === query)!.values.slice(doc.design.workload.warmup)));
}

test('two files: every shared cell and query compared, log-ratio intervals from restart means across files, Holm over all', () => {
  const a = finishedQuickstart();
  const b = slowerHost();
  const r = compareExperiments([
    { label: 'mariadb-10.11', doc: a },
    { label: 'mariadb-11.4', doc: b },
  ]);
  assert.equal(r.baseline, 'mariadb-10.11');
  assert.equal(r.queries.length, 5);
  assert.equal(r.configurations.length, 32);
  assert.equal(r.comparisons.length, 16 * 5);
  assert.match(r.files[1].host, /11\.4\.3/);
  const m = r.comparisons.length;
  for (const c of r.comparisons.slice(0, 10)) {
    const x = restartMeans(b, c.cell, c.query);
    const y = restartMeans(a, c.cell, c.query);
    const logR = Math.log(mean(x) / mean(y));
    const v1 = variance(x) / (x.length * mean(x) ** 2);
    const v2 = variance(y) / (y.length * mean(y) ** 2);
    const nu = (v1 + v2) ** 2 / (v1 ** 2 / (x.length - 1) + v2 ** 2 / (y.length - 1));
    const half = quantile(0.975, nu) * Math.sqrt(v1 + v2);
    const close = (got: number | null, want: number) => assert.ok(got !== null && Math.abs(got - want) <= 1e-9 * Math.max(1, Math.abs(want)), `${c.cell} ${c.query}: ${got} vs ${want}`);
    close(c.effect_pct, 100 * (mean(x) / mean(y) - 1));
    close(c.ci_low_pct, 100 * Math.expm1(logR - half));
    close(c.ci_high_pct, 100 * Math.expm1(logR + half));
    const p = 2 * tcdf(-Math.abs(logR / Math.sqrt(v1 + v2)), nu);
    close(c.p_value, p);
    // Holm over the 80 comparisons: never below m × the smallest p, never below its own p.
    assert.ok(c.p_adjusted! >= Math.min(1, m * Math.min(...r.comparisons.map((x) => x.p_value!))) - 1e-12);
    assert.ok(c.p_adjusted! >= c.p_value!);
    assert.equal(c.adjustment, 'holm');
    assert.equal(c.file, 'mariadb-11.4');
    assert.equal(c.baseline_file, 'mariadb-10.11');
  }
  const k = r.comparisons.filter((c) => c.p_adjusted! <= 0.05).length;
  assert.equal(r.summary, `${k} of 80 comparisons differ after Holm adjustment (α = 0.05)`);
  const bh = compareExperiments([{ label: 'x', doc: a }, { label: 'y', doc: b }], { adjustment: 'bh', alpha: 0.01 });
  assert.match(bh.summary, /^\d+ of 80 comparisons differ after Benjamini–Hochberg adjustment \(α = 0\.01\)$/);
  // BH is never stricter than Holm on the same p-values.
  bh.comparisons.forEach((c, i) => assert.ok(c.p_adjusted! <= r.comparisons[i].p_adjusted! + 1e-12));
});

test('files without a query in common, or with one file, are refused with a reason', () => {
  const a = finishedQuickstart();
  const b = finishedQuickstart();
  for (const r of b.results!.restarts) for (const q of r.queries) q.query = `other ${q.query}`;
  assert.throws(() => compareExperiments([{ label: 'a', doc: a }, { label: 'b', doc: b }]), (e: Error) => e instanceof CompareError && /no query in common/.test(e.message));
  assert.throws(() => compareExperiments([{ label: 'a', doc: a }]), /two or more/);
  assert.deepEqual(labelsFor(['x/run.varlab.json', 'y/run.varlab.json', 'z/other.json']), ['run (1)', 'run (2)', 'other']);
});

test('varlab compare A B --json --baseline B', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'varlab-compare-'));
  try {
    const fa = join(dir, 'old.varlab.json');
    const fb = join(dir, 'new.varlab.json');
    writeFileSync(fa, JSON.stringify(finishedQuickstart()));
    writeFileSync(fb, JSON.stringify(slowerHost()));
    const out: string[] = [];
    const err: string[] = [];
    const io = { out: (l: string) => out.push(l), err: (l: string) => err.push(l), tty: false };
    assert.equal(await main(['compare', fa, fb, '--json', '--baseline', fb], io), 0, err.join('\n'));
    const json = JSON.parse(out.join('\n'));
    assert.equal(json.baseline, 'new');
    assert.equal(json.comparisons[0].file, 'old');
    assert.ok(json.comparisons.every((c: { effect_pct: number }) => c.effect_pct < -3 && c.effect_pct > -7), 'the old host is about 5% faster');
    out.length = 0;
    assert.equal(await main(['compare', fa, fb], io), 0);
    const text = out.join('\n');
    // Aligned text tables like analyze, with the same number format, the sign convention and the warning.
    assert.match(text, /^Comparisons with old$/m);
    assert.match(text, /Effect: the ratio of restart means \(cell \/ baseline\); interval on the log scale with Welch–Satterthwaite degrees of freedom, at 95%; p adjusted by Holm over every comparison below/);
    assert.match(text, /^ {2}\d+ of 80 comparisons differ after Holm adjustment \(α = 0\.05\)\.$/m);
    assert.doesNotMatch(text, /^\|/m, 'no Markdown without --markdown');
    assert.match(text, /effect = \(cell − baseline\) \/ baseline: positive = slower/);
    assert.match(text, /Note: only 2 restarts per cell: intervals are wide; run at least 5 restarts per cell before trusting a comparison\./);
    assert.match(text, /new +aslr=on,ahi=on,preload=off,numa=default +Q1 pricing summary +\+\d+\.\d\d % +\[[−+]\d+\.\d\d, \+\d+\.\d\d\] % +p (=|<) 0\.\d{3} +p (=|<) [01]\.\d{3} +(differs|inconclusive at this design: needs 1 more restart \(3 in both cells\) to say what it could have seen)/);
    const queries = [...text.matchAll(/numa=default +(Q\d+)/g)].slice(0, 5).map((m) => m[1]);
    assert.deepEqual(queries, ['Q1', 'Q3', 'Q6', 'Q12', 'Q14'], 'the workload order');
    out.length = 0;
    assert.equal(await main(['compare', fa, fb, '--markdown'], io), 0);
    assert.match(out.join('\n'), /## Comparisons with old/);
    assert.match(out.join('\n'), /\| \+\d+\.\d\d % \| \[[−+]\d+\.\d\d, \+\d+\.\d\d\] % \| p (=|<) 0\.\d{3} \| p (=|<) [01]\.\d{3} \|/);
    out.length = 0;
    assert.equal(await main(['compare', fa, fb, '--alpha', '0.01', '--adjust', 'bh'], io), 0);
    assert.match(out.join('\n'), /at 99%; p adjusted by Benjamini–Hochberg/);
    assert.match(out.join('\n'), /99% interval/);
    assert.equal(await main(['compare', fa, fb, '--adjust', 'bonferroni'], io), 2);
    assert.match(err.join('\n'), /--adjust: expected holm or bh, got "bonferroni"/);
    assert.equal(await main(['compare', fa], io), 2);
    assert.match(err.join('\n'), /two or more/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
