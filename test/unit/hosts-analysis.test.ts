// One design run on two hosts, as the file holds it (each restart names its host): the host is a
// block factor named `host` in the cell ids of `analyze --json`, in the CSV columns and in the text;
// spread between hosts stands beside spread between restarts; and a factor whose effect differs
// between the hosts is flagged, while one that acts alike is not.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExperimentDoc, RestartResult } from '../../src/common/experiment/types.js';
import { buildPlan, seededRandom } from '../../src/common/plan.js';
import { captionLine, cellsWithResults, exportContext } from '../../src/common/export/context.js';
import { executionsCsv, restartsCsv, summaryCsv } from '../../src/common/export/csv.js';
import { markdownReport } from '../../src/common/export/markdown.js';
import { configurationsFigure, covLevelsFigure, executionsFigure } from '../../src/common/figures/build.js';
import { analyze, tidyFromExperiment } from '../../src/common/stats/index.js';
import { HOST } from '../fixtures/export-experiment.js';
import { CLI } from '../fixtures/cli.js';

const A = 'ssh://db1';
const B = 'ssh://db2';

/** ASLR off is 2 % faster on db1 and 8 % faster on db2 (an interaction); AHI off is 1 % slower on both. */
function twoHosts(): ExperimentDoc {
  const doc = JSON.parse(readFileSync('examples/quickstart.varlab.json', 'utf8')) as ExperimentDoc;
  const d = doc.design;
  d.target = A;
  d.factors = [
    { tunable: 'aslr', levels: ['on', 'off'] },
    { tunable: 'ahi', levels: ['on', 'off'] },
  ];
  d.restartsPerCell = 4;
  d.workload.queries = d.workload.queries.slice(0, 2);
  d.workload.repetitions = 3;
  d.workload.warmup = 1;
  const restarts: RestartResult[] = [];
  for (const [h, host] of [A, B].entries()) {
    const random = seededRandom(11 + h);
    // Each host its own randomised order: the seed derived per host.
    for (const p of buildPlan({ ...d, seed: d.seed + h })) {
      const aslrOff = p.levels.aslr === 'off';
      const factor = (aslrOff ? (host === A ? 0.98 : 0.92) : 1) * (p.levels.ahi === 'off' ? 1.01 : 1) * (host === B ? 1.03 : 1);
      const noise = 1 + (random() - 0.5) * 0.004;
      restarts.push({
        seq: p.seq,
        cell: p.cell,
        host,
        status: 'ok',
        startedAt: 1_800_000_000_000 + p.seq * 1000,
        finishedAt: 1_800_000_000_000 + p.seq * 1000 + 900,
        checks: [],
        queries: d.workload.queries.map((q, qi) => ({ query: q.name, unit: 'ms', source: 'profiling', values: [0, 1, 2].map((rep) => (qi + 1) * 10 * factor * noise * (rep === 0 ? 1.3 : 1)) })),
      });
    }
  }
  doc.results = { host: HOST, restarts };
  return doc;
}

test('the host is a block factor: in cell ids, in the levels of each cell, with spread between hosts beside spread between restarts', () => {
  const doc = twoHosts();
  const data = tidyFromExperiment(doc);
  assert.equal(data.cells.length, 8);
  assert.ok(data.cells.includes(`aslr=off,ahi=on,host=${B}`), data.cells.join(' | '));
  assert.deepEqual(data.factors?.map((f) => f.key), ['aslr', 'ahi', 'host']);
  assert.deepEqual(data.cellLevels?.[`aslr=off,ahi=on,host=${B}`], { aslr: 'off', ahi: 'on', host: B });
  const a = analyze(data, { warmup: 1 });
  assert.deepEqual(a.hosts?.hosts, [A, B]);
  const spread = a.hosts!.spread.find((s) => s.cell === 'aslr=on,ahi=on' && s.query === doc.design.workload.queries[0].name)!;
  // db2 is 3 % slower throughout: the hosts are further apart than restarts on one host.
  assert.ok(spread.between_host_cov_pct! > 1 && spread.between_restart_cov_pct! < 0.5, JSON.stringify(spread));
  const aslr = a.hosts!.interactions.filter((i) => i.factor === 'aslr');
  const ahi = a.hosts!.interactions.filter((i) => i.factor === 'ahi');
  assert.ok(aslr.every((i) => i.flagged === true), JSON.stringify(aslr));
  assert.ok(ahi.every((i) => i.flagged === false), JSON.stringify(ahi));
  assert.ok(Math.abs(aslr[0].effects_pct[A]! + 2) < 0.5 && Math.abs(aslr[0].effects_pct[B]! + 8) < 0.5);
  assert.match(a.hosts!.summary, /^aslr acts differently on different hosts/);
});

test('analyze --json and the text name the host factor; export CSVs have a host column', () => {
  const dir = mkdtempSync(join(tmpdir(), 'varlab-hosts-'));
  try {
    const file = join(dir, 'two.varlab.json');
    writeFileSync(file, JSON.stringify(twoHosts()));
    const cli = (args: string[]) => execFileSync(process.execPath, [...CLI, ...args], { encoding: 'utf8' });
    const json = JSON.parse(cli(['analyze', file, '--json']));
    assert.ok(json.cells.some((c: { cell: string }) => c.cell === `aslr=on,ahi=off,host=${A}`));
    assert.equal(json.hosts.factor, 'host');
    assert.match(json.methods.host_interaction, /F test/);
    assert.ok(json.hosts.interactions.some((i: { factor: string; flagged: boolean }) => i.factor === 'aslr' && i.flagged));
    const text = cli(['analyze', file]);
    assert.match(text, /Hosts \(ssh:\/\/db1, ssh:\/\/db2\): the host is a block factor named host/);
    assert.match(text, /between hosts +between restarts/);
    assert.match(text, /aslr +off vs on .*differs between hosts/);

    const ctx = exportContext(twoHosts());
    const exec = executionsCsv(ctx).split('\n');
    assert.equal(exec[0], 'aslr,ahi,host,cell,restart,restart_of_cell,query,rep,warmup,value,unit,source,client,round');
    assert.ok(exec.some((l) => l.startsWith(`off,on,${B},"aslr=off,ahi=on,host=${B}",`)), exec.slice(0, 3).join('\n'));
    const restarts = restartsCsv(ctx).split('\n');
    assert.ok(restarts[0].startsWith('aslr,ahi,host,'));
    // Every restart of both hosts once: 2 hosts × 4 cells × 4 restarts.
    assert.equal(restarts.filter((l) => l.trim()).length - 1, 32);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the report and the figures of a two-host file: the host a level like any other', () => {
  const ctx = exportContext(twoHosts());
  assert.deepEqual(ctx.factorLevels.at(-1), [A, B]);
  const md = markdownReport(ctx);
  assert.match(md, /## Several hosts/);
  assert.match(md, /- aslr=off vs on, .*: −2\.\d+ % on ssh:\/\/db1, −7\.\d+ % on ssh:\/\/db2 \(adjusted: p < 0\.001\)/);
  const levels = covLevelsFigure(ctx);
  assert.ok(levels.data.some((t) => (t as { x: string[] }).x.includes(`host=${B}`)));
  assert.ok(configurationsFigure(ctx).data.length > 0);
  assert.ok(executionsFigure(ctx, ctx.queries[0]).data.length > 0);
  assert.ok(summaryCsv(ctx).split('\n')[0].startsWith('aslr,ahi,host,'));
});

test('the cells offered as a baseline and the caption name the hosts', () => {
  const doc = twoHosts();
  const cells = cellsWithResults(doc);
  assert.equal(cells.length, 8);
  assert.deepEqual(cells.slice(0, 2), [`aslr=on,ahi=on,host=${A}`, `aslr=on,ahi=on,host=${B}`]);
  assert.deepEqual(new Set(cells), new Set(tidyFromExperiment(doc).cells), 'every cell offered is a cell the analysis has');
  assert.match(captionLine(doc), new RegExp(`· 2 hosts: ${A}, ${B} ·`));
  delete doc.results!.host;
  assert.match(captionLine(doc), /2 hosts: /, 'a several-host file has no one host fingerprint: still named');
});

test('the CSVs exported from two hosts pair within a host only, as the file does; --until-answered replays each host', () => {
  const dir = mkdtempSync(join(tmpdir(), 'varlab-hosts-csv-'));
  try {
    const doc = twoHosts();
    doc.design.stopping = { effect: 5, alpha: 0.05, power: 0.8, maxRestartsPerCell: 4 };
    const file = join(dir, 'two.varlab.json');
    writeFileSync(file, JSON.stringify(doc));
    const ctx = exportContext(doc);
    const exec = join(dir, 'executions.csv');
    const means = join(dir, 'restarts.csv');
    writeFileSync(exec, executionsCsv(ctx));
    writeFileSync(means, restartsCsv(ctx));
    const cli = (args: string[]) => JSON.parse(execFileSync(process.execPath, [...CLI, 'analyze', ...args, '--json'], { encoding: 'utf8' }));
    const base = `aslr=on,ahi=on,host=${A}`;
    const pairing = (j: { comparisons: { cell: string; query: string; pairing: string; pairing_reason: string }[] }) => j.comparisons.map((c) => [c.cell, c.query, c.pairing]);
    const fromFile = cli([file, '--baseline', base]);
    // The same cell on the other host: its rounds are not the same time, so not paired.
    const other = fromFile.comparisons.find((c: { cell: string }) => c.cell === `aslr=on,ahi=on,host=${B}`);
    assert.equal(other.pairing, 'unpaired');
    for (const csv of [exec, means]) {
      const j = cli([csv, '--baseline', base]);
      assert.deepEqual(pairing(j), pairing(fromFile), csv);
      assert.match(j.comparisons.find((c: { cell: string }) => c.cell === `aslr=on,ahi=on,host=${B}`).pairing_reason, /ran on different hosts/);
    }
    // The rule replayed on the CSV: host by host, as on the file.
    const seqFile = cli([file, '--until-answered']).sequential;
    const seqCsv = cli([exec, '--until-answered', '--effect', '5', '--max-restarts', '4', '--baseline', `aslr=on,ahi=on,host=${A}`]).sequential;
    assert.deepEqual(seqCsv.hosts.map((h: { host: string }) => h.host), [A, B]);
    assert.deepEqual(seqCsv.hosts.map((h: { stopped_round: number | null }) => h.stopped_round), seqFile.hosts.map((h: { stopped_round: number | null }) => h.stopped_round));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
