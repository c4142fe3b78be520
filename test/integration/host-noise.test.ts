// Issue 22, Deliver 5: the host's noise, measured in the calls a run makes anyway. On the sandbox
// mariadbd over the sandbox sshd, with a busy process started beside the run (a shell loop in a
// session of its own, as any other program on the host), every restart that measured says in the
// file on disk what else the CPUs did over its measured window, and is flagged busy; restarts.csv
// carries the columns. Attached and detached alike.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import type { ExperimentDoc, RestartResult } from '../../src/common/experiment/types.js';
import { busyReasons } from '../../src/common/noise.js';
import { busyProcess, stopBusy } from '../fixtures/busy.js';
import { runEnvForTests, shortQuickstartCopy, varlabRun, varlabSync } from './run-env.js';

const env = runEnvForTests({ varlabHome: true });

const copy = (name: string) => shortQuickstartCopy(env, name, { factors: [{ tunable: 'aslr', levels: ['on'] }], restartsPerCell: 3, repetitions: 30, warmup: 0 });

function measuredNoise(file: string): RestartResult[] {
  const doc = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
  const ok = doc.results!.restarts.filter((r) => r.status === 'ok');
  assert.equal(ok.length, 3, JSON.stringify(doc.results!.restarts.map((r) => [r.seq, r.status, r.reason])));
  return ok;
}

function assertBusy(restarts: RestartResult[]): void {
  for (const r of restarts) {
    const n = r.noise;
    assert.ok(n, `restart ${r.seq} has its noise in the file`);
    assert.ok(n.seconds > 0 && n.cpus >= 1 && n.ctxPerS > 0, JSON.stringify(n));
    // The loop alone keeps one CPU busy whenever it runs: others well above nothing.
    assert.ok((n.othersCpuPct / 100) * n.cpus >= 0.25, `restart ${r.seq}: others ${JSON.stringify(n)}`);
    assert.ok(busyReasons(n), `restart ${r.seq} is flagged busy: ${JSON.stringify(n)}`);
  }
}

function assertCsv(file: string, name: string): void {
  const out = join(env.dir, `${name}-export`);
  const exported = varlabSync(['export', file, '--csv', out], env.varlabHome);
  assert.equal(exported.code, 0, exported.stderr);
  const rows = parse(readFileSync(join(out, 'restarts.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
  for (const row of rows) {
    for (const c of ['host_load', 'steal_pct', 'others_cpu_pct', 'ctx_switches_per_s']) assert.match(row[c], /^[0-9.]+$/, `${c}: ${JSON.stringify(row)}`);
    assert.equal(row.host_busy, 'true');
  }
}

test('attached: a busy process beside the run is measured over each restart\'s window and flagged in the file and restarts.csv', { timeout: 600_000 }, async () => {
  const file = copy('attached');
  const loop = busyProcess('half');
  try {
    const run = varlabRun([file, ...env.authArgs], env.varlabHome);
    assert.equal(await run.exit, 0, run.stderr());
    // Named before the first restart, from probe --check's sample.
    const before = run.events.find((e) => e.type === 'log' && e.message.startsWith('the host is busy before the run: '));
    assert.ok(before && before.type === 'log' && before.level === 'warn', JSON.stringify(run.events.filter((e) => e.type === 'log')));
    assert.match(before.message, /(load average|other busy processes) /);
    assert.ok(before.at <= run.events.find((e) => e.type === 'restart-started')!.at, 'before the first restart');
    // The Run view's source: each measured restart's noise came as an event.
    assert.deepEqual(
      run.events.filter((e) => e.type === 'host-noise').map((e) => (e as { seq: number }).seq),
      [1, 2, 3],
    );
  } finally {
    stopBusy(loop);
  }
  assertBusy(measuredNoise(file));
  assertCsv(file, 'attached');
});

test('detached: the runner reads the counters around the measured queries, and the import puts the noise in the file', { timeout: 600_000 }, async () => {
  const file = copy('detached');
  const loop = busyProcess('half');
  try {
    const started = varlabSync(['run', file, '--detach', ...env.authArgs], env.varlabHome);
    assert.equal(started.code, 0, started.stderr);
    const attached = varlabSync(['attach', file, ...env.authArgs], env.varlabHome);
    assert.equal(attached.code, 0, attached.stderr);
  } finally {
    stopBusy(loop);
  }
  assertBusy(measuredNoise(file));
  assertCsv(file, 'detached');
});

test('`varlab probe TARGET --check` over SSH names the busy process beside it, with advice, and says every other setting', { timeout: 120_000 }, async () => {
  const loop = busyProcess('spin');
  let r: ReturnType<typeof varlabSync>;
  let json: ReturnType<typeof varlabSync>;
  try {
    // Give it a moment to be running before the check's one-second sample.
    await new Promise((res) => setTimeout(res, 300));
    r = varlabSync(['probe', env.sshd.target, ...env.authArgs, '--check'], env.varlabHome);
    json = varlabSync(['probe', env.sshd.target, ...env.authArgs, '--check', '--json'], env.varlabHome);
  } finally {
    stopBusy(loop);
  }
  assert.equal(r.code, 0, r.stderr);
  for (const what of ['ASLR', 'CPU frequency governor', 'Turbo Boost', 'Transparent huge pages', 'Isolated CPUs', 'IRQ affinity', 'Swap', 'Load average']) assert.match(r.stdout, new RegExp(`^(ok  |WARN)  ${what} `, 'm'), r.stdout);
  assert.match(r.stdout, /^WARN  Other busy processes /m, r.stdout);
  assert.match(r.stdout, /^- Other busy processes: stop them while benchmarking/m);
  assert.equal(json.code, 0, json.stderr);
  const parsed = JSON.parse(json.stdout) as { host: { target: string }; check: { what: string; ok: boolean; processes?: { pid: number; comm: string }[] }[] };
  assert.equal(parsed.host.target, env.sshd.target);
  assert.equal(parsed.check.length, 9);
  // The loop by its pid, among every busy process (the text names the five busiest, and this machine may have busier ones).
  assert.ok(parsed.check.find((i) => i.what === 'Other busy processes')?.processes?.some((p) => p.pid === loop.pid && p.comm === 'sh'), json.stdout);
});
