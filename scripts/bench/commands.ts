// What a user waits for, as whole commands (issue 15.5): `varlab analyze` of generated 1M and 10M
// CSVs (quoted cell ids) and of a 1M-execution experiment file, each next to a floor measured in the
// same run on the same file (a plain streaming read, and a plain parse); `varlab export` of a
// 100k-execution file; and CLI start-up. Each figure is the median of the runs (BENCH_RUNS, default
// 3; the 10M analyze and the export run once unless BENCH_RUNS is 3 or more times larger) of the built
// bin, timed from spawn to exit. CPU is the command's and its children's (export's Chromium, sampled
// from /proc as the kernel does not count its renderers for us: see lib/peak.mjs); peak
// memory is the command's own process. On a shared machine the CPU figures move less than the wall
// times: both are printed, and the ratios to the floor by both. Prints numbers; asserts nothing.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { experimentText } from '../../src/common/experiment/text.js';
import { shapeFor, syntheticExperiment, writeTidyCsv } from './lib/generate.js';

const RUNS = Math.max(1, Number(process.env.BENCH_RUNS ?? 3));
const BIG_RUNS = Math.max(1, Math.floor(RUNS / 3));
const here = (p: string) => new URL(p, import.meta.url).pathname;
const BIN = here('../../bin/varlab.js');
const FLOOR = here('./lib/floor.mjs');
const PEAK = here('./lib/peak.mjs');

interface Run {
  wall: number;
  cpu: number;
  /** CPU with only the children the command waited for (the kernel's count; see lib/peak.mjs). */
  waited: number;
  /** Bytes. */
  peak: number;
  code: number | null;
}

/** Run `node ARGS` to its end with stdout discarded; wall from spawn to exit, the rest from the preload. */
async function timed(args: string[], usage: string, tree = false): Promise<Run> {
  writeFileSync(usage, '');
  const t = performance.now();
  const env = { ...process.env, VARLAB_BENCH_USAGE: usage, ...(tree ? { VARLAB_BENCH_TREE: '1' } : {}) };
  const child = spawn(process.execPath, ['--import', PEAK, ...args], { stdio: ['ignore', 'ignore', 'pipe'], env });
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const code = await new Promise<number | null>((ok) => child.on('exit', (c) => ok(c)));
  const wall = (performance.now() - t) / 1000;
  if (code !== 0) throw new Error(`node ${args.join(' ')} exited ${code}: ${err.slice(0, 500)}`);
  const [rss, cpu, waited] = readFileSync(usage, 'utf8').trim().split(/\s+/).map(Number);
  return { wall, cpu, waited, peak: rss * 1024, code };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function measure(args: string[], usage: string, runs: number, tree = false): Promise<Run> {
  const all: Run[] = [];
  for (let i = 0; i < runs; i++) all.push(await timed(args, usage, tree));
  return { wall: median(all.map((r) => r.wall)), cpu: median(all.map((r) => r.cpu)), waited: median(all.map((r) => r.waited)), peak: Math.max(...all.map((r) => r.peak)), code: 0 };
}

const s = (x: number) => (x < 10 ? x.toFixed(2) : x.toFixed(1)).padStart(6) + ' s';
const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0).padStart(5)} MB`;
const row = (what: string, r: Run, extra = '') => console.log(`  ${what.padEnd(44)} ${s(r.wall)} wall ${s(r.cpu)} cpu ${mb(r.peak)} peak${extra ? `   ${extra}` : ''}`);

export async function bench(): Promise<void> {
  console.log(`machine: ${cpus().length} cores (${cpus()[0]?.model.trim()}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, load average ${loadavg()[0].toFixed(1)} at start`);
  console.log(`runs: median of ${RUNS} (the 10M analyze and the export: ${BIG_RUNS}); set BENCH_RUNS to change`);
  // Whole commands means the installed bin: build it, so the figures are for this source.
  const build = spawnSync(process.execPath, ['--import', 'tsx', here('../build.ts')], { stdio: 'inherit' });
  if (build.status !== 0) throw new Error('npm run build failed');

  const dir = mkdtempSync(join(tmpdir(), 'varlab-bench-'));
  const usage = join(dir, 'usage');
  try {
    let t = performance.now();
    const csv1 = join(dir, '1m.csv');
    const csv10 = join(dir, '10m.csv');
    const exp1 = join(dir, '1m.varlab.json');
    const exp100k = join(dir, '100k.varlab.json');
    const rows1 = await writeTidyCsv(csv1, shapeFor(1e6));
    const rows10 = await writeTidyCsv(csv10, shapeFor(1e7));
    writeFileSync(exp1, [...experimentText(syntheticExperiment(shapeFor(1e6)))].join(''));
    writeFileSync(exp100k, [...experimentText(syntheticExperiment(shapeFor(1e5, 6)))].join(''));
    const size = (p: string) => `${(statSync(p).size / 2 ** 20).toFixed(1)} MB`;
    console.log(`inputs generated in ${((performance.now() - t) / 1000).toFixed(1)} s (16 cells, 10 restarts each, cell ids quoted in the CSVs):`);
    console.log(`  1M CSV ${rows1.toLocaleString('en-US')} rows, ${size(csv1)}; 10M CSV ${rows10.toLocaleString('en-US')} rows, ${size(csv10)}`);
    console.log(`  1M experiment file ${size(exp1)} (22 queries); 100k experiment file ${size(exp100k)} (6 queries)`);

    console.log('\nvarlab analyze FILE (goal for 10M: at most 3x the plain parse, peak at most 1.5 GB)');
    for (const [name, file, runs] of [
      ['1M CSV', csv1, RUNS],
      ['10M CSV', csv10, BIG_RUNS],
      ['1M experiment file', exp1, RUNS],
    ] as const) {
      const read = await measure([FLOOR, file, 'read'], usage, runs);
      const parse = await measure([FLOOR, file, 'parse'], usage, runs);
      const analyze = await measure([BIN, 'analyze', file], usage, runs);
      row(`analyze ${name}`, analyze, `${(analyze.wall / parse.wall).toFixed(2)}x the plain parse (cpu ${(analyze.cpu / parse.cpu).toFixed(2)}x)`);
      row(`  floor: plain streaming read`, read);
      row(`  floor: plain parse (${file.endsWith('.json') ? 'JSON.parse of the file' : 'split lines and fields, Number()'})`, parse);
    }

    console.log('\nvarlab export FILE --csv --png --svg --markdown (goal: at most 10 s for 100k executions)');
    t = performance.now();
    const out = join(dir, 'export');
    console.log(`  load average ${loadavg()[0].toFixed(1)} before`);
    const exp = await measure([BIN, 'export', exp100k, '--csv', out, '--png', out, '--svg', out, '--markdown', join(out, 'report.md')], usage, BIG_RUNS, true);
    row('export 100k executions (cpu with Chromium)', exp, `cpu of only the processes waited for: ${exp.waited.toFixed(2)} s (Chromium's renderers are not)`);
    console.log(`  load average ${loadavg()[0].toFixed(1)} after`);

    console.log('\nCLI start-up (goal: at most 0.3 s)');
    const startRuns = Math.max(5, RUNS * 3);
    row('varlab --help', await measure([BIN, '--help'], usage, startRuns));
    row('varlab validate examples/quickstart.varlab.json', await measure([BIN, 'validate', here('../../examples/quickstart.varlab.json')], usage, startRuns));
    row('  floor: node -e 0', await measure(['-e', '0'], usage, startRuns));

    console.log('\nRun view frame times and Analysis view first render, hover and zoom (issue 15.5): see scripts/bench/views.ts');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
