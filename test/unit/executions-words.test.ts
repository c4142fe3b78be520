// One wording for what a workload measures (common/experiment/words.ts): a query's executions, or a
// benchmark command's runs ("run 3" on the Run view's interval line), singular for one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { executionsText, executionWord, measuresText, measureWord, reasonFor } from '../../src/common/experiment/words.js';
import { analysisText } from '../../src/common/export/analysis-output.js';
import { exportContext } from '../../src/common/export/index.js';
import { markdownReport } from '../../src/common/export/markdown.js';
import { LiveRun } from '../../src/browser/views/run/live.js';
import { finishedQuickstart } from '../fixtures/export-experiment.js';
import { finishedSysbench } from '../fixtures/sysbench-experiment.js';
import { designProblems } from '../../src/browser/views/designer/problems.js';
import { dryRunText, type DryRunReport } from '../../src/node/runs/dryrun.js';

test('queries: "1 execution", "12 executions", thousands grouped', () => {
  assert.equal(executionsText(1, 'queries'), '1 execution');
  assert.equal(executionsText(0, 'queries'), '0 executions');
  assert.equal(executionsText(12, 'queries'), '12 executions');
  assert.equal(executionsText(12_800, undefined), '12,800 executions');
});

test('a command: "1 run of the command", "12 runs of the command", never executions', () => {
  assert.equal(executionsText(1, 'command'), '1 run of the command');
  assert.equal(executionsText(12, 'command'), '12 runs of the command');
  assert.equal(executionsText(1, 'command', 'warm-up'), '1 warm-up run of the command');
  assert.equal(executionsText(2, 'queries', 'warm-up'), '2 warm-up executions');
  assert.equal(executionsText(1, 'queries', 'warm-up'), '1 warm-up execution');
  assert.equal(executionWord('command'), 'run of the command');
  assert.equal(executionWord('queries', true), 'executions');
});

test("a live run's kind is its figures' source: sysbench or a pattern are a command's runs", () => {
  const live = new LiveRun();
  assert.equal(live.kind, undefined);
  live.source = 'sysbench';
  assert.equal(live.kind, 'command');
  live.source = 'regex';
  assert.equal(live.kind, 'command');
  live.source = 'performance_schema';
  assert.equal(live.kind, 'queries');
  // Saved results: their design says, whatever the figures' source.
  const saved = new LiveRun();
  saved.workload = 'command';
  assert.equal(saved.kind, 'command');
});

test("the report and analyze's text say a sysbench file's runs as runs of the command, a query file's as executions", () => {
  const sb = exportContext(finishedSysbench());
  assert.match(markdownReport(sb), /Analysis by varlab: 1 warm-up run of the command dropped per restart; /);
  assert.match(analysisText(sb.analysis, { name: 'sb', cells: 2, queries: 1, executions: 12, kind: 'command' })[0], /^sb: 2 cells, 1 metric, 12 runs of the command$/);
  const qs = exportContext(finishedQuickstart());
  assert.match(markdownReport(qs), /Analysis by varlab: \d+ warm-up executions? dropped per restart and query; /);
  assert.match(analysisText(qs.analysis, { name: 'qs', cells: 2, queries: 1, executions: 1, kind: 'queries' })[0], /, 1 execution$/);
});

test("a command's warm-up problem and its dry run say runs of the command too (they said executions)", () => {
  const design = finishedSysbench().design;
  const bad = { ...design, workload: { ...design.workload, warmup: design.workload.repetitions } };
  const problems = designProblems(bad);
  assert.match(problems['design.workload.warmup'], new RegExp(`^${design.workload.repetitions} warm-up runs of the command leave none of ${design.workload.repetitions} repetitions`), problems['design.workload.warmup']);
  const one = designProblems({ ...design, workload: { ...design.workload, warmup: 1, repetitions: 1 } });
  assert.match(one['design.workload.warmup'], /^1 warm-up run of the command leaves none of 1 repetition to measure/, one['design.workload.warmup']);
  const report = { target: 'local', profile: { kind: 'direct', mysqld: '/usr/sbin/mariadbd' }, profileFrom: 'registered', cells: [], restarts: 4, seconds: 60, executions: 12, seqs: {} } as unknown as DryRunReport;
  const lines = dryRunText('sb', design, report, { out: 'sb.varlab.json', journal: 'sb.varlab.journal.jsonl', notes: [] });
  assert.ok(lines.includes('12 runs of the command; results into sb.varlab.json; journal sb.varlab.journal.jsonl'), lines.join('\n'));
});

test('what the figures are named by: "1 query", "22 queries"; a command\'s "1 metric"', () => {
  assert.equal(measuresText(1, 'queries'), '1 query');
  assert.equal(measuresText(22, undefined), '22 queries');
  assert.equal(measuresText(1, 'command'), '1 metric');
  assert.equal(measureWord('command', true), 'metrics');
  assert.equal(measureWord('queries'), 'query');
});

test("the statistics' reasons (in a query workload's words) said for a command, a query workload's left as they are", () => {
  const reason = 'fewer than 5 executions per restart (every cell and query)';
  assert.equal(reasonFor(reason, 'command'), 'fewer than 5 runs of the command per restart (every cell)');
  assert.equal(reasonFor(reason, 'queries'), reason);
  assert.equal(reasonFor("the restart means vary no more than their executions' own noise predicts", 'command'), "the restart means vary no more than their runs' own noise predicts");
  assert.equal(reasonFor('every restart kept a single execution: no within-restart spread', 'command'), 'every restart kept a single run of the command: no within-restart spread');
});

test("analyze's text and the report of a sysbench file name no query and no execution: its metric, its runs of the command", () => {
  const sb = exportContext(finishedSysbench());
  const text = analysisText(sb.analysis, { name: 'sb', cells: 2, queries: 1, executions: 12, kind: 'command' }).join('\n');
  assert.match(text, /^Per metric \(restart means are the unit of evidence\)$/m);
  assert.match(text, /^  cell +metric +restarts/m);
  assert.match(text, /Warm-up from the data: no suggestion: fewer than 5 runs of the command per restart \(every cell\)/);
  assert.doesNotMatch(text, /quer|execution/i);
  const report = markdownReport(sb);
  assert.match(report, /^\| cell \| metric \| effect \|/m);
  assert.match(report, /a run of the command [\d.e+]+ ms/);
  assert.doesNotMatch(report, /quer|execution/i);
  // A query workload's stay as they were.
  const qs = exportContext(finishedQuickstart());
  const qsText = analysisText(qs.analysis, { name: 'qs', cells: 2, queries: 1, executions: 1, kind: 'queries' }).join('\n');
  assert.match(qsText, /^Per query \(restart means/m);
  assert.match(markdownReport(qs), /^\| cell \| query \| effect \|/m);
});
