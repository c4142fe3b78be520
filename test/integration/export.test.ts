// `varlab export` end to end on a finished quickstart: the real CLI, the real headless Chromium,
// files read back from disk the way a user's script would read them.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { exportContext } from '../../src/common/export/index.js';
import { buildFigures } from '../../src/common/figures/index.js';
import { EXECUTIONS_MAX_HEIGHT, executionsFigure, repetitionsFigure } from '../../src/common/figures/build.js';
import { experimentText } from '../../src/common/experiment/text.js';
import { syntheticExperiment } from '../../scripts/bench/lib/generate.js';
import { coldFirstExecutions, finishedQuickstart, QUOTED_QUERY, wideComparisons } from '../fixtures/export-experiment.js';
import { readPng } from '../fixtures/png.js';
import { textProblems } from '../fixtures/figure-text.js';
import { finishedSysbench } from '../fixtures/sysbench-experiment.js';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, RENDER_ONLY_ARGS, chromiumPath, openRenderer } from '../../src/node/export/render.js';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';
import { CLI } from '../fixtures/cli.js';

let dir: string;
const doc = finishedQuickstart();
const file = () => join(dir, 'quickstart-done.varlab.json');

function varlab(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [...CLI, ...args], { env: { ...process.env, ...env }, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'varlab-export-'));
  writeFileSync(file(), JSON.stringify(doc, null, 2));
  // The render page is part of the UI build; build it when this test runs on its own.
  if (!existsSync('public/dist/render.js')) {
    const r = spawnSync('npx', ['tsx', 'scripts/build.ts'], { stdio: 'inherit' });
    assert.equal(r.status, 0, 'npm run build');
  }
});
after(() => rmSync(dir, { recursive: true, force: true }));

test('export --csv --png --markdown: three CSVs that read back, one 2× PNG per plot, a report naming every cell', async () => {
  const csv = join(dir, 'csv');
  const png = join(dir, 'png');
  const report = join(dir, 'report.md');
  const r = await varlab(['export', file(), '--csv', csv, '--png', png, '--markdown', report]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /files written/);

  // CSVs: the same numbers as the experiment file.
  const executions = parse(readFileSync(join(csv, 'executions.csv')), { columns: true }) as Record<string, string>[];
  assert.equal(executions.length, 32 * 5 * 3);
  for (const restart of doc.results!.restarts) {
    for (const q of restart.queries) {
      const rows = executions.filter((e) => e.restart === String(restart.seq) && e.query === q.query);
      assert.deepEqual(rows.map((e) => Number(e.value)), q.values, `restart ${restart.seq}, ${q.query}`);
    }
  }
  assert.ok(executions.some((e) => e.query === QUOTED_QUERY));
  const restarts = parse(readFileSync(join(csv, 'restarts.csv')), { columns: true }) as Record<string, string>[];
  assert.equal(restarts.length, 32);
  const ctx = exportContext(doc);
  const summary = parse(readFileSync(join(csv, 'summary.csv')), { columns: true }) as Record<string, string>[];
  assert.equal(summary.length, 16 * 5);
  for (const row of summary) {
    const q = ctx.analysis.cells.find((c) => c.cell === row.cell)!.queries.find((x) => x.query === row.query)!;
    assert.equal(Number(row.mean), q.mean, `${row.cell} ${row.query}`);
    // Two restarts per cell carry no MDE: an empty field, the reason in the notes column.
    assert.equal(row.mde_pct === '' ? null : Number(row.mde_pct), q.mde_pct);
    if (q.mde_pct === null) assert.match(row.notes, /mde_pct: needs 1 more restart \(3 per cell\)/);
  }

  // PNGs: one per plot, real PNGs at twice the CSS size, with content.
  const figures = buildFigures(ctx);
  assert.deepEqual(readdirSync(png).sort(), figures.map((f) => `${f.file}.png`).sort());
  for (const f of figures) {
    const img = readPng(readFileSync(join(png, `${f.file}.png`)));
    assert.equal(img.width, 2 * f.width, `${f.file} width`);
    assert.equal(img.height, 2 * f.height, `${f.file} height`);
    assert.ok(img.distinctColors > 50, `${f.file} is not blank (${img.distinctColors} colours)`);
  }

  // The report: every cell, the host, and a link to every PNG that resolves.
  const md = readFileSync(report, 'utf8');
  for (const cell of ctx.cells) assert.ok(md.includes(cell), `report mentions ${cell}`);
  assert.match(md, /E5-2690/);
  const links = [...md.matchAll(/!\[[^\]]*\]\(([^)]+)\)/g)].map((m) => decodeURI(m[1]));
  assert.equal(links.length, figures.length);
  for (const l of links) assert.ok(existsSync(join(dir, l)), `${l} exists`);
});

test('export --svg and --png --scale 3: SVG documents and PNGs three times the CSS size', async () => {
  const svg = join(dir, 'svg');
  const png = join(dir, 'png3');
  const r = await varlab(['export', file(), '--svg', svg, '--png', png, '--scale', '3']);
  assert.equal(r.code, 0, r.stderr);
  const figures = buildFigures(exportContext(doc));
  for (const f of figures) {
    const text = readFileSync(join(svg, `${f.file}.svg`), 'utf8');
    assert.match(text, new RegExp(`^<svg[^>]* width="${f.width}" height="${f.height}"`));
    assert.ok(text.includes('2026-11-20'), `${f.file}.svg carries the caption`);
    const img = readPng(readFileSync(join(png, `${f.file}.png`)));
    assert.deepEqual([img.width, img.height], [3 * f.width, 3 * f.height]);
  }
});

test('the comparisons SVG and PNG at 1× and 2×: a log-ratio axis in %, mirrored about 0 %, labels level and apart, a wide interval written at the edge', async () => {
  const { doc: wide } = wideComparisons();
  const path = join(dir, 'wide.varlab.json');
  writeFileSync(path, JSON.stringify(wide));
  const out1 = join(dir, 'wide-1x');
  const out2 = join(dir, 'wide-2x');
  for (const [out, scale] of [[out1, '1'], [out2, '2']]) {
    const r = await varlab(['export', path, '--svg', out, '--png', out, '--scale', scale]);
    assert.equal(r.code, 0, r.stderr);
  }
  const f = buildFigures(exportContext(wide)).find((x) => x.id === 'comparisons')!;
  for (const [out, scale] of [[out1, 1], [out2, 2]] as const) {
    const img = readPng(readFileSync(join(out, `${f.file}.png`)));
    assert.deepEqual([img.width, img.height], [scale * f.width, scale * f.height]);
    assert.ok(img.distinctColors > 20, 'drawn, not blank');
  }
  const svg = readFileSync(join(out1, `${f.file}.svg`), 'utf8');
  // Plotly writes a tick's attributes in no fixed order: the translate is taken wherever it is in the tag.
  const ticks = [...svg.matchAll(/<g class="xtick"><text([^>]*)>([^<]*)<\/text>/g)].map((m) => ({ tag: m[1], label: m[2], x: Number(/translate\(([-\d.]+)/.exec(m[1])?.[1]) }));
  assert.ok(ticks.length >= 5, JSON.stringify(ticks.map((t) => t.label)));
  assert.ok(ticks.every((t) => /^[+−]?[\d.,]+%$/.test(t.label)), `labelled in %: ${ticks.map((t) => t.label).join(' ')}`);
  assert.ok(ticks.every((t) => Number.isFinite(t.x) && !/rotate\(/.test(t.tag)), 'level labels, each placed');
  const zero = ticks.find((t) => t.label === '0%')!;
  const x = (label: string) => ticks.find((t) => t.label === label)?.x;
  // Mirrored about 0 %: halved as far left as doubled right, a tenth as far as ten times.
  for (const [minus, plus] of [['−50%', '+100%'], ['−80%', '+400%'], ['−90%', '+900%']]) {
    if (x(minus) === undefined) continue;
    assert.ok(Math.abs(zero.x - x(minus)! - (x(plus)! - zero.x)) < 1.5, `${minus} and ${plus} equally far from 0%`);
  }
  assert.ok(x('−50%') !== undefined && x('+100%') !== undefined, 'the wide interval widens the axis to halved and doubled and beyond');
  // Apart: no two labels overlap (DejaVu Sans at 13 px is under 8.5 px a character).
  const sorted = [...ticks].sort((a, b) => a.x - b.x);
  for (let i = 1; i < sorted.length; i++) {
    const need = ((sorted[i].label.length + sorted[i - 1].label.length) / 2) * 8.5;
    assert.ok(sorted[i].x - sorted[i - 1].x > need, `${sorted[i - 1].label} and ${sorted[i].label} apart`);
  }
  // The wide interval goes beyond the axis both ways: written at each edge.
  assert.match(svg, />to \+[\d,]+%( … \+[\d,]+%)? ▸</);
  assert.match(svg, />◂ to −9\d\.\d%/);
});

test('every exported figure at 1× and 2× (the export\'s and the Analysis view\'s), on experiments that stretch them: no label runs into another or past the edge', async () => {
  // Unranked cells and MDE curves missing for every query (2 restarts: long subtitles), intervals past
  // the axis, a sysbench run (its executions legend on top), a big run (the drawn note under the caption).
  const cases: [string, ExperimentDoc][] = [
    ['two-restarts', finishedQuickstart(2)],
    ['five-restarts', finishedQuickstart(5)],
    ['wide', wideComparisons().doc],
    ['sysbench', finishedSysbench()],
    ['big', syntheticExperiment({ queries: 1, restartsPerCell: 12, reps: 120 })],
    // Warm-ups 300 times the measured executions: drawn at the axis's edge, said under the title.
    ['cold', coldFirstExecutions()],
  ];
  // The export's own browser: laying out text needs no GPU. One page per scale, each SVG set into it in turn.
  const browser = await chromium.launch({ executablePath: chromiumPath(), headless: true, args: [...CHROMIUM_ARGS, ...RENDER_ONLY_ARGS] });
  try {
    const pages = new Map([1, 2].map((scale) => [scale, browser.newPage({ deviceScaleFactor: scale })]));
    const problems: string[] = [];
    for (const [name, d] of cases) {
      const path = join(dir, `labels-${name}.varlab.json`);
      writeFileSync(path, [...experimentText(d)].join(''));
      const out = join(dir, `labels-${name}`);
      const r = await varlab(['export', path, '--svg', out]);
      assert.equal(r.code, 0, r.stderr);
      const svgs = readdirSync(out).filter((f) => f.endsWith('.svg'));
      assert.equal(svgs.length, buildFigures(exportContext(d), { image: true }).length, `${name}: every figure`);
      for (const [scale, page] of pages) {
        for (const f of svgs) for (const p of await textProblems(await page, readFileSync(join(out, f), 'utf8'))) problems.push(`${scale}× ${name}/${f}: ${p}`);
      }
    }
    // The Analysis view exports its per-restart plot too (boxes, or the dots of its strip): drawn as the
    // export draws. And its executions in order of the first cell, at the width it is built for.
    const renderer = await openRenderer();
    try {
      for (const [name, d] of cases) {
        const ctx = exportContext(d);
        const figures = [
          ...[{ boxes: true }, { screen: { pixels: 760 } }].map((opts) => ({ figure: executionsFigure(ctx, ctx.queries[0], opts), how: Object.keys(opts)[0] })),
          { figure: repetitionsFigure(ctx, ctx.queries[0], ctx.cells[0], ctx.warmup, null), how: 'screen' },
        ];
        for (const { figure, how } of figures) {
          const { svg } = await renderer.render(figure, { svg: true });
          for (const [scale, page] of pages) {
            for (const p of await textProblems(await page, svg!.toString('utf8'))) problems.push(`${scale}× ${name}/${figure.id} (${how}): ${p}`);
          }
        }
      }
    } finally {
      await renderer.close();
    }
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
  }
});

test('a big experiment: per-execution images capped and thinned with a note, the PNG and the SVG of one drawing', async () => {
  const big = syntheticExperiment({ queries: 1, restartsPerCell: 12, reps: 120 });
  const path = join(dir, 'big.varlab.json');
  writeFileSync(path, [...experimentText(big)].join(''));
  const out = join(dir, 'big');
  const r = await varlab(['export', path, '--png', out, '--svg', out, '--csv', out]);
  assert.equal(r.code, 0, r.stderr);
  const [executions] = buildFigures(exportContext(big), { image: true }).filter((f) => f.id.startsWith('executions-'));
  assert.equal(executions.height, EXECUTIONS_MAX_HEIGHT);
  const svg = readFileSync(join(out, `${executions.file}.svg`), 'utf8');
  assert.match(svg, new RegExp(`^<svg[^>]* width="${executions.width}" height="${EXECUTIONS_MAX_HEIGHT}"`));
  assert.match(svg, /Drawn: [\d,]+ of 23,040 executions, one dot per pixel of a restart/);
  const img = readPng(readFileSync(join(out, `${executions.file}.png`)));
  assert.deepEqual([img.width, img.height], [2 * executions.width, 2 * EXECUTIONS_MAX_HEIGHT]);
  assert.ok(img.distinctColors > 50);
  // Written in figure order, each figure's PNG then its SVG.
  const wrote = r.stdout.split('\n').filter((l) => l.startsWith('wrote ') && /\.(png|svg)$/.test(l)).map((l) => l.replace(/^.*\//, ''));
  assert.deepEqual(wrote.slice(0, 4), ['01-configurations.png', '01-configurations.svg', `${executions.file}.png`, `${executions.file}.svg`]);
});

test('without Chromium, export says what is missing and how to install it, and exits non-zero', async () => {
  const r = await varlab(['export', file(), '--png', join(dir, 'none')], { CHROMIUM_PATH: join(dir, 'no-such-chromium') });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /no-such-chromium does not exist/);
  assert.match(r.stderr, /apt-get install chromium/);
  assert.match(r.stderr, /CHROMIUM_PATH/);
  assert.ok(!existsSync(join(dir, 'none')), 'nothing written');
});

test('bad usage is named: nothing to export, a scale of 4, an unknown baseline', async () => {
  let r = await varlab(['export', file()]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /nothing to export/);
  r = await varlab(['export', file(), '--png', dir, '--scale', '4']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--scale: expected a whole number from 1 to 3/);
  r = await varlab(['export', file(), '--csv', join(dir, 'b'), '--baseline', 'aslr=sideways']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /baseline cell "aslr=sideways" has no results/);
});
