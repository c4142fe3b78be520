// Issue 22, Deliver 5: the analysis flags the restarts that ran on a busy host and shows the host's
// noise beside each cell's between-restart spread: `varlab analyze` (text and --json) and the
// Markdown report, from the file's own restarts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cliFixture } from '../fixtures/cli.js';
import { finishedQuickstart } from '../fixtures/export-experiment.js';
import { exportContext, markdownReport, restartsCsv } from '../../src/common/export/index.js';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';
import { cellsOfRestarts, noiseSummary } from '../../src/common/noise.js';
import { hostCell } from '../../src/common/plan.js';

const { varlab, write } = cliFixture('analyze');

/** The quickstart's results, every restart read, one of them on a busy host. */
function noisy(): { doc: ExperimentDoc; busySeq: number; busyCell: string; busyOfCell: number } {
  const doc = finishedQuickstart();
  const ok = doc.results!.restarts.filter((r) => r.status === 'ok');
  for (const r of ok) r.noise = { seconds: 1.2, load: 0.3, cpus: 4, stealPct: 0, othersCpuPct: 1.5, ctxPerS: 3000 };
  // A cell's second restart: named as the plots label it ("cell · r2"), from the export's own numbering.
  const second = exportContext(doc).restarts.find((r) => r.status === 'ok' && r.restartOfCell === 2)!;
  const busy = ok.find((r) => r.seq === second.seq)!;
  busy.noise = { seconds: 1.2, load: 5.5, cpus: 4, stealPct: 0, othersCpuPct: 26, ctxPerS: 9000, cpuMhz: 2900 };
  return { doc, busySeq: busy.seq, busyCell: busy.cell, busyOfCell: second.restartOfCell };
}

test('the report has the host\'s noise beside the between-restart CoV, and names each restart on a busy host with why', () => {
  const { doc, busySeq, busyCell, busyOfCell } = noisy();
  const md = markdownReport(exportContext(doc));
  const at = md.indexOf("## The host's noise");
  assert.ok(at > md.indexOf('## Configurations'), 'after the configurations');
  const section = md.slice(at, md.indexOf('\n## ', at + 1));
  const ok = doc.results!.restarts.filter((r) => r.status === 'ok').length;
  assert.match(section, new RegExp(`read at ${ok} of ${ok} measured restarts; 1 ran on a busy host`));
  assert.match(section, /\| cell \| restarts \| busy \| others CPU % median \| others CPU % max \| steal % max \| load max \| between-restart CoV % \|/);
  assert.ok(section.includes(`- restart ${busySeq} (${busyCell} · r${busyOfCell}): other processes used 1.04 of 4 CPUs; load average 5.50 on 4 CPUs`), section);
  // Without noise in the file (results from before it was read): no section.
  assert.ok(!markdownReport(exportContext(finishedQuickstart())).includes("## The host's noise"));
});

test('varlab analyze: the noise table in the text, host_noise in --json with the busy restarts', () => {
  const { doc, busySeq, busyCell, busyOfCell } = noisy();
  const file = write('noisy.varlab.json', JSON.stringify(doc));
  const text = varlab(file);
  assert.equal(text.code, 0, text.err);
  assert.match(text.out, /^Host noise over the measured windows: read at \d+ of \d+ measured restarts; 1 ran on a busy host/m);
  assert.ok(text.out.includes(`  busy: restart ${busySeq} (${busyCell} · r${busyOfCell}): other processes used 1.04 of 4 CPUs; load average 5.50 on 4 CPUs`), text.out);
  const json = varlab(file, '--json');
  assert.equal(json.code, 0, json.err);
  const noise = (JSON.parse(json.out) as { host_noise: { busy: { seq: number }[]; cells: { cell: string; busy: number; between_cov_pct: number | null }[] } }).host_noise;
  assert.deepEqual(noise.busy.map((b) => b.seq), [busySeq]);
  const cell = noise.cells.find((c) => c.cell === busyCell)!;
  assert.equal(cell.busy, 1);
  assert.ok(typeof cell.between_cov_pct === 'number');
});

test('varlab analyze on restarts.csv reads the noise columns back: the same busy restarts and noise table as on the file', () => {
  const { doc, busySeq } = noisy();
  // One restart whose noise was not read: empty columns, counted as measured but not read.
  const unread = doc.results!.restarts.filter((r) => r.status === 'ok')[2];
  delete unread.noise;
  const file = write('noisy-csv.varlab.json', JSON.stringify(doc));
  const csv = write('noisy-restarts.csv', restartsCsv(exportContext(doc)));
  const noiseOf = (f: string) => {
    const r = varlab(f, '--json');
    assert.equal(r.code, 0, r.err);
    return (JSON.parse(r.out) as { host_noise: { restarts: number; read: number; busy: { seq: number; reasons: string[] }[]; cells: { cell: string; others_cpu_pct_max: number | null; load_max: number | null }[] } }).host_noise;
  };
  const fromCsv = noiseOf(csv);
  const fromFile = noiseOf(file);
  assert.deepEqual(fromCsv.busy, fromFile.busy);
  assert.deepEqual(fromCsv.busy.map((b) => b.seq), [busySeq]);
  assert.deepEqual([fromCsv.restarts, fromCsv.read], [fromFile.restarts, fromFile.restarts - 1]);
  // The same figures per cell (a CSV's cells come in code-point order, the file's in the design's).
  const cells = (n: typeof fromCsv) => n.cells.map((c) => [c.cell, c.others_cpu_pct_max, c.load_max]).sort((x, y) => String(x[0]).localeCompare(String(y[0])));
  assert.deepEqual(cells(fromCsv), cells(fromFile));
  const text = varlab(csv);
  assert.match(text.out, /^Host noise over the measured windows: read at \d+ of \d+ measured restarts; 1 ran on a busy host/m);
  // A restarts.csv without the noise columns (or from before host_cpus and window_s): no noise section.
  const plain = write('plain-restarts.csv', restartsCsv(exportContext(finishedQuickstart())));
  assert.doesNotMatch(varlab(plain).out, /Host noise/);
});

test('results from several hosts: each cell with its host, as the analysis names it, gets its own noise and its own spread', () => {
  const { doc } = noisy();
  const [a, b] = doc.results!.restarts.filter((r) => r.status === 'ok');
  const restarts = [
    { ...a, cell: 'x', host: 'ssh://one' },
    { ...b, cell: 'x', host: 'ssh://two' },
  ];
  const cells = cellsOfRestarts(restarts, [hostCell('x', 'ssh://one'), hostCell('x', 'ssh://two')]);
  assert.deepEqual(cells, [hostCell('x', 'ssh://one'), hostCell('x', 'ssh://two')]);
  const s = noiseSummary(restarts, cells, (c) => (c === cells[0] ? 1.5 : 2.5))!;
  assert.deepEqual(
    s.cells.map((c) => [c.cell, c.restarts, c.between_cov_pct]),
    [
      [cells[0], 1, 1.5],
      [cells[1], 1, 2.5],
    ],
  );
  // A file from one host: the cells as they are.
  assert.deepEqual(cellsOfRestarts([a, b], []), [...new Set([a.cell, b.cell])]);
});
