// sysbench's interval lines as measurements: journaled as records, folded into the restart they belong
// to and kept in the experiment file; the CSV export's intervals table; the steady state judged on them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';
import { eventOf, JournalFold, readJournalText, recordOf, recordsOfRestart, type JournalRecord } from '../../src/common/records.js';
import { parseExperiment } from '../../src/common/experiment/validate.js';
import { experimentText } from '../../src/common/experiment/text.js';
import { exportContext } from '../../src/common/export/index.js';
import { CSV_FILES, intervalsCsvPieces } from '../../src/common/export/csv.js';
import { intervalSteady } from '../../src/common/stats/intervals.js';
import { intervalsText } from '../../src/common/export/analysis-output.js';
import { markdownReport } from '../../src/common/export/markdown.js';
import { parseSysbench } from '../../src/node/workloads/sysbench.js';
import { finishedQuickstart } from '../fixtures/export-experiment.js';
import { finishedSysbench } from '../fixtures/sysbench-experiment.js';

const fixture = readFileSync(new URL('../fixtures/sysbench-oltp-read-only.txt', import.meta.url), 'utf8');

test('a restart journaled with interval records folds into a result that keeps every interval, in order', () => {
  const rows = parseSysbench(fixture).intervals;
  assert.equal(rows.length, 3);
  const records: JournalRecord[] = [
    { t: 'restart-started', at: 1, seq: 1, cell: 'aslr=on' },
    { t: 'checks', at: 2, seq: 1, checks: [] },
    ...rows.map((iv, i): JournalRecord => ({ t: 'interval', at: 3 + i, seq: 1, rep: 1, ...iv })),
    { t: 'execution', at: 9, seq: 1, query: 'tps', rep: 1, warmup: false, value: 578.9, unit: 'tps', source: 'sysbench' },
    { t: 'restart-finished', at: 10, seq: 1, cell: 'aslr=on', status: 'ok' },
  ];
  const state = readJournalText(records.map((r) => JSON.stringify(r)).join('\n'));
  const got = state.restarts[0].intervals!;
  assert.deepEqual(got, rows.map((iv) => ({ rep: 1, ...iv })));
  assert.deepEqual(got[0], { rep: 1, second: 1, threads: 1, tps: 549.62, qps: 8799.86, percentile: 95, latencyMs: 2.14, errPerSec: 0 });

  // The event names its cell; the record it came from comes back from it.
  const e = eventOf(records[2], () => 'aslr=on')!;
  assert.equal(e.type, 'interval');
  assert.equal('cell' in e && e.cell, 'aslr=on');
  const back = recordOf(e)!;
  const fold = new JournalFold();
  for (const r of [records[0], back, records.at(-1)!]) fold.apply(r);
  assert.deepEqual(fold.restarts[0].intervals, [got[0]]);

  // A finished restart replayed (a Run view that opens later) gives the same intervals.
  const again = new JournalFold();
  for (const r of recordsOfRestart(state.restarts[0], 0)) again.apply(r);
  assert.deepEqual(again.restarts[0].intervals, got);
});

test('a restart without interval lines has no intervals field (files of query workloads do not change)', () => {
  const fold = new JournalFold();
  fold.apply({ t: 'restart-started', at: 1, seq: 1, cell: 'c' });
  fold.apply({ t: 'restart-finished', at: 2, seq: 1, cell: 'c', status: 'ok' });
  assert.equal('intervals' in fold.restarts[0], false);
});

/** Intervals of one restart: `runs` runs of `seconds` lines; tps from `tps(run, second)`. */
test('the experiment file keeps the intervals: written, read back and validated unchanged', () => {
  const doc = finishedSysbench();
  const text = [...experimentText(doc)].join('');
  const checked = parseExperiment(text);
  assert.deepEqual(checked.problems, []);
  assert.deepEqual(checked.doc!.results!.restarts[0].intervals, doc.results!.restarts[0].intervals);
  // A malformed interval is named where it is.
  const bad = JSON.parse(text) as ExperimentDoc;
  (bad.results!.restarts[1].intervals![2] as unknown as Record<string, unknown>).tps = 'fast';
  assert.match(parseExperiment(JSON.stringify(bad)).problems.join('\n'), /results\.restarts\[1\]\.intervals\[2\]\.tps/);
});

test('intervals.csv: one row per interval line of the restarts the analysis uses, warm-up runs flagged; none for a query workload', () => {
  const doc = finishedSysbench();
  doc.results!.restarts[3].status = 'verify-failed';
  const ctx = exportContext(doc);
  const rows = parse([...intervalsCsvPieces(ctx)!].join(''), { columns: true }) as Record<string, string>[];
  assert.equal(rows.length, 3 * 60);
  assert.deepEqual(Object.keys(rows[0]), ['aslr', 'cell', 'restart', 'restart_of_cell', 'run', 'warmup', 'second', 'threads', 'tps', 'qps', 'latency_ms', 'percentile', 'err_per_sec', 'round']);
  const first = doc.results!.restarts[0].intervals!;
  const mine = rows.filter((r) => r.restart === '1');
  assert.deepEqual(mine.map((r) => Number(r.tps)), first.map((iv) => iv.tps));
  assert.deepEqual([...new Set(mine.filter((r) => r.warmup === 'true').map((r) => r.run))], ['1']);
  assert.equal(mine[0].latency_ms, '2');
  assert.equal(mine[0].percentile, '95');
  assert.ok(!rows.some((r) => r.restart === '4'), 'a restart that failed verification is left out');
  assert.equal(CSV_FILES['intervals.csv'](exportContext(finishedQuickstart())), null);
});

test('steady state on the intervals: a restart that warms up is told apart, its warm-up intervals skipped in its steady tps', () => {
  const doc = finishedSysbench();
  const s = intervalSteady(doc.results!.restarts, 1)!;
  assert.equal(s.intervalSeconds, 1);
  const r1 = s.restarts.find((r) => r.seq === 1)!;
  assert.equal(r1.kind, 'warmup');
  assert.equal(r1.discard, 8);
  assert.equal(r1.discardSeconds, 8);
  assert.ok(Math.abs(r1.steadyTps! - 600) < 3, `steady tps ${r1.steadyTps}`);
  // Its runs' figure after the warm-up run is the one the analysis compares: runs 2 and 3.
  assert.ok(Math.abs(r1.runTps! - 600) < 3);
  for (const r of s.restarts.filter((x) => x.seq !== 1)) assert.deepEqual([r.kind, r.discard], ['flat', 0], `restart ${r.seq}`);
  const cell = s.cells.find((c) => c.cell === doc.results!.restarts[0].cell)!;
  assert.equal(cell.suggested, 8);
  assert.equal(cell.consistent, false);
  const text = intervalsText(s).join('\n');
  assert.match(text, /steady after 8 intervals \(8 s\): skip them/);
  assert.match(text, /^\s+1\s+aslr=\w+\s+60\s+warm-up\s+8 s\s+(599|600)\.\d\s+(599|600)\.\d$/m);
  assert.equal(intervalSteady(finishedQuickstart().results!.restarts, 1), null);
});

test('the Run view lays each restart\'s interval lines end to end, its runs one after another; a discarded restart leaves the plot', async () => {
  const { LiveRun } = await import('../../src/browser/views/run/live.js');
  const live = new LiveRun();
  const iv = (seq: number, rep: number, second: number, tps: number) => ({ type: 'interval' as const, at: 0, seq, cell: `c${seq}`, rep, second, threads: 1, tps, qps: 14 * tps, latencyMs: 2.5, percentile: 95 });
  live.apply([{ type: 'run-started', at: 0, planned: 3, done: 0, cells: ['c1', 'c2', 'c3'], queries: ['tps'], warmup: 1 }]);
  live.apply([{ type: 'restart-started', at: 0, seq: 1, cell: 'c1' }, iv(1, 1, 1, 500), iv(1, 1, 2, 510), iv(1, 2, 1, 600), iv(1, 2, 2, 610)]);
  live.apply([{ type: 'restart-finished', at: 0, seq: 1, cell: 'c1', status: 'ok' }]);
  live.apply([{ type: 'restart-started', at: 0, seq: 2, cell: 'c2' }, iv(2, 1, 1, 700)]);
  live.apply([{ type: 'restart-discarded', at: 0, seq: 2, cell: 'c2', reason: 'connection lost' }]);
  live.apply([{ type: 'restart-started', at: 0, seq: 3, cell: 'c3' }, iv(3, 1, 1, 800), iv(3, 1, 2, 810)]);
  assert.deepEqual(
    live.intervalTraces.map((t) => [t.seq, t.cell, t.start, t.x, t.tps]),
    [
      [1, 'c1', 0, [1, 2, 3, 4], [500, 510, 600, 610]],
      [3, 'c3', 4, [5, 6], [800, 810]],
    ],
  );
  assert.equal(live.intervalCount, 6);
  assert.equal(live.intervalTraces[0].percentile, 95);
  assert.deepEqual(live.interval, { seq: 3, rep: 1, second: 2, tps: 810, qps: 11340, latencyMs: 2.5, percentile: 95 });
  // The file's restart keeps its lines, and a view opened later (history) draws the same.
  const later = new LiveRun();
  later.apply([{ type: 'history', at: 0, warmup: 1, restarts: [...live.restarts] }]);
  assert.deepEqual(later.intervalTraces.map((t) => t.x), [[1, 2, 3, 4]]);
});

test('the Markdown report has the steady state on the interval lines, as analyze prints it; a query workload\'s report has none', () => {
  const doc = finishedSysbench();
  const md = markdownReport(exportContext(doc));
  const section = md.slice(md.indexOf('## Steady state on the interval lines'));
  assert.ok(md.includes('## Steady state on the interval lines'), md.slice(-2000));
  assert.match(section, /^Intervals \(1 s each\): steady state per restart, on the interval tps\. Each restart's interval tps, its runs end to end in the order printed, is classified as the runs of the command are: change points/m);
  const cell = doc.results!.restarts[0].cell;
  assert.match(section, new RegExp(`^- ${cell}: 1 flat, 1 warm-up; steady after 8 intervals \\(8 s\\): skip them$`, 'm'));
  assert.match(section, /^\| restart \| cell \| intervals \| class \| skipped \| steady tps \| run tps \|$/m);
  assert.match(section, new RegExp(`^\\| 1 \\| ${cell} \\| 60 \\| warm-up \\| 8 s \\| (599|600)\\.\\d+ \\| (599|600)\\.\\d+ \\|$`, 'm'));
  assert.equal([...section.matchAll(/^\| \d+ \|/gm)].length, doc.results!.restarts.length);
  assert.doesNotMatch(markdownReport(exportContext(finishedQuickstart())), /interval lines/);
});
