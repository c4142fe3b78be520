// "Restart k of a cell" is one number wherever varlab says it (common/restart-of-cell.ts): the plots'
// "cell · r3", restarts.csv's restart_of_cell and the busy restarts of the report and of `varlab analyze`
// (on the file and on its restarts.csv). The file here is the hard case: two hosts, their restarts
// stored out of run order and interleaved, a failed restart before the busy one in its cell, and a
// grown design's later run numbered after the earlier one's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { ExperimentDoc, RestartResult } from '../../src/common/experiment/types.js';
import { buildPlan, hostCell } from '../../src/common/plan.js';
import { exportContext, markdownReport, restartsCsv } from '../../src/common/export/index.js';
import { executionsFigure } from '../../src/common/figures/build.js';
import { restartsOfCell } from '../../src/common/restart-of-cell.js';
import { CsvReader } from '../../src/common/csv/reader.js';
import { cliFixture } from '../fixtures/cli.js';
import { HOST } from '../fixtures/export-experiment.js';

const { varlab, write } = cliFixture('analyze');

const A = 'ssh://db1';
const B = 'ssh://db2';
const QUIET = { seconds: 1.2, load: 0.3, cpus: 4, stealPct: 0, othersCpuPct: 1.5, ctxPerS: 3000 };
const BUSY = { seconds: 1.2, load: 5.5, cpus: 4, stealPct: 0, othersCpuPct: 26, ctxPerS: 9000 };

/**
 * Two hosts, 3 restarts per cell each; on db2 the first restart of `aslr=off` failed and its third ran
 * on a busy host (restart 3 of its cell, the second measured one); db1 ran its cells again as part 2.
 */
function twoHosts(): { doc: ExperimentDoc; busy: RestartResult } {
  const doc = JSON.parse(readFileSync('examples/quickstart.varlab.json', 'utf8')) as ExperimentDoc;
  const d = doc.design;
  d.target = A;
  d.targets = [A, B];
  d.factors = [{ tunable: 'aslr', levels: ['on', 'off'] }];
  d.restartsPerCell = 3;
  d.workload.queries = d.workload.queries.slice(0, 1);
  d.workload.repetitions = 3;
  d.workload.warmup = 1;
  const q = d.workload.queries[0].name;
  const restarts: RestartResult[] = [];
  const add = (host: string, seq: number, cell: string, part?: number) =>
    restarts.push({
      seq,
      cell,
      host,
      ...(part ? { part } : {}),
      status: 'ok',
      startedAt: 1_800_000_000_000 + seq * 1000,
      finishedAt: 1_800_000_000_000 + seq * 1000 + 900,
      checks: [],
      queries: [{ query: q, unit: 'ms', source: 'performance_schema', values: [12, 10 + seq / 100, 10 - seq / 100] }],
      noise: { ...QUIET },
    });
  for (const [h, host] of [A, B].entries()) for (const p of buildPlan({ ...d, seed: d.seed + h })) add(host, p.seq, p.cell);
  // db1's part 2: one more restart of each cell, numbered after part 1's last.
  const last = Math.max(...restarts.filter((r) => r.host === A).map((r) => r.seq));
  add(A, last + 1, 'aslr=off', 2);
  add(A, last + 2, 'aslr=on', 2);
  const ofB = restarts.filter((r) => r.host === B && r.cell === 'aslr=off').sort((x, y) => x.seq - y.seq);
  Object.assign(ofB[0], { status: 'failed', reason: 'mysqld did not start', queries: [] });
  delete ofB[0].noise;
  ofB[2].noise = { ...BUSY };
  // Stored as no run writes them: db2 first, each host's restarts newest first.
  restarts.sort((x, y) => (x.host === y.host ? y.seq - x.seq : x.host === B ? -1 : 1));
  doc.results = { host: HOST, restarts };
  return { doc, busy: ofB[2] };
}

test('one numbering: each host numbers its own cells in run order, every status counted, however the restarts are stored', () => {
  const { doc, busy } = twoHosts();
  const n = restartsOfCell(doc.results!.restarts);
  assert.equal(n.get(busy), 3);
  // db1's part 2 goes on after part 1: its restarts are the 4th of their cells.
  assert.deepEqual(
    doc.results!.restarts.filter((r) => r.part === 2).map((r) => n.get(r)),
    [4, 4],
  );
  // The same numbers whatever the order given.
  const reversed = restartsOfCell([...doc.results!.restarts].reverse());
  for (const r of doc.results!.restarts) assert.equal(reversed.get(r), n.get(r));
});

test('the plots, restarts.csv, the report and varlab analyze (on the file and on its restarts.csv) name the busy restart alike', () => {
  const { doc, busy } = twoHosts();
  const ctx = exportContext(doc);
  const cell = hostCell(busy.cell, B);
  // The plot: its row's mean, "restart 3 of this cell (#seq of the plan)".
  const fig = executionsFigure(ctx, doc.design.workload.queries[0].name);
  const texts = fig.data.flatMap((t) => (Array.isArray(t.text) ? (t.text as string[]) : []));
  const mean = texts.find((t) => t.startsWith(`${cell}<br>`) && t.endsWith(`(#${busy.seq} of the plan): mean`));
  assert.equal(mean, `${cell}<br>restart 3 of this cell (#${busy.seq} of the plan): mean`);
  // restarts.csv: the restart_of_cell of its row.
  const csv = restartsCsv(ctx);
  const rows: string[][] = [];
  const reader = new CsvReader((f) => rows.push(f));
  reader.push(csv);
  reader.end();
  const [cols, ...data] = rows;
  const row = data.find((f) => f[cols.indexOf('cell')] === cell && f[cols.indexOf('restart')] === String(busy.seq))!;
  assert.equal(row[cols.indexOf('restart_of_cell')], '3');
  const line = `restart ${busy.seq} on ${B} (${busy.cell} · r3): other processes used 1.04 of 4 CPUs; load average 5.50 on 4 CPUs`;
  // The report.
  assert.ok(markdownReport(ctx).includes(`- ${line}`), 'the report names it r3');
  // varlab analyze on the file.
  const file = write('two-hosts.varlab.json', JSON.stringify(doc));
  const onFile = varlab(file);
  assert.equal(onFile.code, 0, onFile.err);
  assert.ok(onFile.out.includes(`busy: ${line}`), onFile.out);
  // varlab analyze on restarts.csv: its failed row is not measured, yet counted, as the file counted it.
  const onCsv = varlab(write('two-hosts-restarts.csv', csv), '--json');
  assert.equal(onCsv.code, 0, onCsv.err);
  const busyOnCsv = (JSON.parse(onCsv.out) as { host_noise: { busy: { seq: number; cell: string; restart_of_cell: number }[] } }).host_noise.busy;
  assert.deepEqual(
    busyOnCsv.map((b) => [b.seq, b.cell, b.restart_of_cell]),
    [[busy.seq, cell, 3]],
  );
});
