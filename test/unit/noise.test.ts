// Issue 22, Deliver 5: the host's noise over a measured window, from two /proc samples. The parsing
// and arithmetic of common/noise.ts, the sampler of host/script.ts run by the real sh against this
// machine's /proc, and the fold, the CSV and the schema that carry the figures.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { busyReasons, noiseWindow, parseNoiseSample, type NoiseSample } from '../../src/common/noise.js';
import { HELPERS, NOISE_SAMPLE, parseReply } from '../../src/node/host/script.js';
import { JournalFold, recordsOfRestart } from '../../src/common/records.js';
import type { HostNoise, RestartResult } from '../../src/common/experiment/types.js';
import { checkExperiment } from '../../src/common/experiment/validate.js';
import { parse } from 'csv-parse/sync';
import { exportContext, restartsCsv } from '../../src/common/export/index.js';
import { finishedQuickstart } from '../fixtures/export-experiment.js';
import { formatHostCheck, hostCheck } from '../../src/common/host-check.js';
import { parseNoiseFacts } from '../../src/node/host/check.js';
import type { HostFingerprint } from '../../src/common/host.js';

const sample = (over: Partial<NoiseSample> = {}): NoiseSample => ({
  uptime: 100,
  load: 0.5,
  cpus: 4,
  total: 40_000,
  busy: 10_000,
  steal: 100,
  ctxt: 1_000_000,
  mhz: 2000,
  mysqld: { pid: 500, start: 9000, ticks: 300 },
  own: [
    { pid: 700, start: 9100, ticks: 5 },
    { pid: 600, start: 8000, ticks: 1000 },
  ],
  ...over,
});

test('a @noise line reads back: counters, frequency, mysqld and the own processes; a short or bad one does not', () => {
  const r = parseNoiseSample('end 1811.70 9.57 2 360298 107856 25 5472590 2400 1:24:797 22033:181069:0 21932:180896:12');
  assert.deepEqual(r, {
    when: 'end',
    sample: {
      uptime: 1811.7,
      load: 9.57,
      cpus: 2,
      total: 360298,
      busy: 107856,
      steal: 25,
      ctxt: 5472590,
      mhz: 2400,
      mysqld: { pid: 1, start: 24, ticks: 797 },
      own: [
        { pid: 22033, start: 181069, ticks: 0 },
        { pid: 21932, start: 180896, ticks: 12 },
      ],
    },
  });
  // No cpufreq, no mysqld: both unknown, not zero.
  const none = parseNoiseSample('begin 1.00 0.10 2 100 50 0 10 - -')!;
  assert.equal(none.sample.mhz, null);
  assert.equal(none.sample.mysqld, null);
  assert.equal(parseNoiseSample('begin 1.00 0.10 2 100'), null);
  assert.equal(parseNoiseSample('begin x 0.10 2 100 50 0 10 - -'), null);
});

test('the window: steal and others as shares of all CPUs, mysqld and our own processes left out, context switches per second', () => {
  // 10 s on 4 CPUs at 100 ticks/s: 4000 ticks. Busy +2000: mysqld +1000, our shell above +200, the
  // call's own shell (in one sample only) is not counted; so others 800 = 20% of all CPU time.
  const before = sample();
  const after = sample({
    uptime: 110,
    load: 1.5,
    total: 44_000,
    busy: 12_000,
    steal: 300,
    ctxt: 1_050_000,
    mhz: 2200,
    mysqld: { pid: 500, start: 9000, ticks: 1300 },
    own: [
      { pid: 800, start: 9200, ticks: 400 },
      { pid: 600, start: 8000, ticks: 1200 },
    ],
  });
  const n = noiseWindow(before, after)!;
  assert.deepEqual(n, { seconds: 10, load: 1.5, cpus: 4, stealPct: 5, othersCpuPct: 20, ctxPerS: 5000, cpuMhz: 2100 });
  // 20% of 4 CPUs is 0.8 CPU: busy; steal 5% is not above 5%; load 1.5 on 4 CPUs is not.
  assert.deepEqual(busyReasons(n), ['other processes used 0.80 of 4 CPUs']);
  assert.equal(busyReasons({ ...n, othersCpuPct: 1 }), null);
  assert.deepEqual(busyReasons({ ...n, othersCpuPct: 1, stealPct: 7.5, load: 6 }), ['CPU steal 7.5%', 'load average 6.00 on 4 CPUs']);
});

test('a window is not guessed: another mysqld at its end, none, no time passed, or counters that went back give nothing', () => {
  const after = sample({ uptime: 110, total: 44_000, busy: 12_000 });
  assert.ok(noiseWindow(sample(), after));
  assert.equal(noiseWindow(sample(), { ...after, mysqld: { pid: 500, start: 9999, ticks: 400 } }), null, 'a reused pid');
  assert.equal(noiseWindow(sample(), { ...after, mysqld: null }), null, 'mysqld gone');
  assert.equal(noiseWindow(sample(), { ...after, uptime: 100 }), null, 'no time');
  assert.equal(noiseWindow(sample(), { ...after, busy: 9_000 }), null, 'a reboot');
  // Others never below zero (tick rounding); no frequency where neither end has one.
  const quiet = noiseWindow(sample({ mhz: null }), { ...after, busy: 10_500, mhz: null, mysqld: { pid: 500, start: 9000, ticks: 900 } })!;
  assert.equal(quiet.othersCpuPct, 0);
  assert.equal('cpuMhz' in quiet, false);
});

test("the sampler runs on this machine's /proc with sh alone, and a window read by it gives figures", () => {
  const script = `${HELPERS}\n${NOISE_SAMPLE}\nnoise_sample begin $$ /sys\ni=0; while [ $i -lt 20000 ]; do i=$((i+1)); done\nsleep 0.3\nnoise_sample end $$ /sys\n`;
  const out = execFileSync('/bin/sh', ['-c', script], { encoding: 'utf8' });
  const reply = parseReply(out);
  assert.ok(reply.noise.begin && reply.noise.end, out);
  const { begin, end } = reply.noise as Required<typeof reply.noise>;
  assert.ok(begin.cpus >= 1 && begin.total > 0 && begin.ctxt > 0);
  // The shell itself stands for mysqld here; its parent (this test's node) is among our own.
  assert.equal(begin.mysqld?.pid, begin.own[0].pid);
  assert.ok(begin.own.some((p) => p.pid === process.pid), JSON.stringify(begin.own));
  const n = noiseWindow(begin, end);
  assert.ok(n && n.seconds >= 0.3 && n.othersCpuPct >= 0 && n.othersCpuPct <= 100 && n.ctxPerS >= 0, JSON.stringify(n));
});

test("the app's own processes that are not above the sampling shell count as its own: a local command carries them as VARLAB_OWN_PIDS", async () => {
  const { spawn } = await import('node:child_process');
  const { openLocalSession, setOwnProcesses } = await import('../../src/node/host/local.js');
  // A process beside the shell, as Electron's renderer is beside the sh the app's backend starts.
  const beside = spawn('sleep', ['30'], { stdio: 'ignore' });
  try {
    const script = `${HELPERS}\n${NOISE_SAMPLE}\nnoise_sample begin $$ /sys\n`;
    const own = (out: string) => parseReply(out).noise.begin!.own.map((p) => p.pid);
    const session = openLocalSession();
    assert.ok(!own((await session.exec(script)).stdout).includes(beside.pid!), 'not own unless the app says');
    // This process is above the shell already: named again, it is counted once; a word that is no pid is skipped.
    setOwnProcesses(() => [beside.pid!, process.pid]);
    const withOwn = (await session.exec(script)).stdout;
    assert.ok(own(withOwn).includes(beside.pid!), withOwn);
    assert.equal(own(withOwn).filter((p) => p === process.pid).length, 1);
    const words = execFileSync('/bin/sh', ['-c', script], { encoding: 'utf8', env: { ...process.env, VARLAB_OWN_PIDS: `x;1 ${beside.pid}` } });
    assert.ok(own(words).includes(beside.pid!), words);
    await session.close();
  } finally {
    setOwnProcesses(() => []);
    beside.kill('SIGKILL');
  }
});

test('the noise record joins its finished restart in the fold, is replayed after it, and the file schema takes it', () => {
  const noise: HostNoise = { seconds: 2.5, load: 3.1, cpus: 2, stealPct: 0, othersCpuPct: 48.5, ctxPerS: 12000, cpuMhz: 2400 };
  const fold = new JournalFold();
  fold.apply({ t: 'restart-started', at: 1, seq: 1, cell: 'a' });
  fold.apply({ t: 'execution', at: 2, seq: 1, query: 'q', rep: 1, warmup: false, value: 1, unit: 'ms', source: 'performance_schema' });
  fold.apply({ t: 'restart-finished', at: 3, seq: 1, cell: 'a', status: 'ok' });
  const handedOut = fold.restarts[0];
  fold.apply({ t: 'noise', at: 4, seq: 1, noise });
  fold.apply({ t: 'noise', at: 4, seq: 9, noise });
  assert.deepEqual(fold.restarts[0].noise, noise);
  assert.equal(handedOut.noise, undefined, 'a result already handed out is not changed under its holder');
  assert.equal(fold.restarts.length, 1);
  const replayed = recordsOfRestart(fold.restarts[0] as RestartResult, 0);
  assert.deepEqual(replayed.at(-1), { t: 'noise', at: 3, seq: 1, noise });
  const again = new JournalFold();
  for (const r of replayed) again.apply(r);
  assert.deepEqual(again.restarts[0].noise, noise);
});

test('restarts.csv has the noise columns (empty where it was not read), and the file schema keeps the noise and refuses a bad one', () => {
  const doc = finishedQuickstart();
  const [r1, r2] = doc.results!.restarts;
  r1.noise = { seconds: 2.5, load: 3.1, cpus: 2, stealPct: 0.4, othersCpuPct: 48.5, ctxPerS: 12000, cpuMhz: 2400 };
  r2.noise = { seconds: 2.5, load: 0.2, cpus: 2, stealPct: 0, othersCpuPct: 1, ctxPerS: 900 };
  const rows = parse(restartsCsv(exportContext(doc)), { columns: true }) as Record<string, string>[];
  const row = (seq: number) => rows.find((x) => x.restart === String(seq))!;
  assert.deepEqual(
    ['host_load', 'steal_pct', 'others_cpu_pct', 'ctx_switches_per_s', 'cpu_mhz', 'host_busy'].map((c) => row(r1.seq)[c]),
    ['3.1', '0.4', '48.5', '12000', '2400', 'true'],
  );
  assert.equal(row(r2.seq).cpu_mhz, '');
  assert.equal(row(r2.seq).host_busy, 'false');
  const r3 = doc.results!.restarts[2];
  assert.equal(row(r3.seq).host_load, '');
  assert.deepEqual(checkExperiment(JSON.parse(JSON.stringify(doc))).problems, []);
  (r1.noise as { othersCpuPct: unknown }).othersCpuPct = 'lots';
  assert.match(checkExperiment(JSON.parse(JSON.stringify(doc))).problems.join('\n'), /results\.restarts\[0\]\.noise\.othersCpuPct/);
});

test('probe --check: the facts read back from the check script, and each setting judged with advice as pyperf does', () => {
  const facts = parseNoiseFacts(
    [
      'isolated=',
      'cmdline=BOOT_IMAGE=/vmlinuz root=/dev/sda1 isolcpus=2-3 nohz_full=2-3',
      'irqbalance=812',
      'SwapTotal=2097152',
      'SwapFree=1048576',
      'swappiness=60',
      'loadavg=3.10 3.00 1.00 3/200 999',
      'cpus=4',
      'own=900',
      'own=899',
      'up0=100.00',
      'P a 900 50 sh',
      'P a 812 10 irqbalance',
      'P a 4242 1000 my busy (thing)',
      'up1=101.00',
      'P b 900 80 sh',
      'P b 812 10 irqbalance',
      'P b 4242 1097 my busy (thing)',
      'P b 5000 3 born later',
    ].join('\n'),
  );
  assert.deepEqual(facts.cmdline, { isolcpus: '2-3', nohzFull: '2-3', rcuNocbs: undefined });
  assert.equal(facts.irqbalance, 812);
  assert.equal(facts.swapUsedKb, 1048576);
  // The check's own shell (900) is left out; a process absent from the first sample has no rate.
  assert.deepEqual(facts.busy, [{ pid: 4242, comm: 'my busy (thing)', cpuPct: 97 }]);
  const host = { aslr: '2', governor: 'powersave,performance', turbo: 'no_turbo=0', thp: 'always' } as unknown as HostFingerprint;
  const items = hostCheck(host, facts);
  const by = (w: string) => items.find((i) => i.what === w)!;
  assert.deepEqual(
    items.map((i) => [i.what, i.ok]),
    [
      ['ASLR', true],
      ['CPU frequency governor', false],
      ['Turbo Boost', false],
      ['Transparent huge pages', false],
      ['Isolated CPUs', true],
      ['IRQ affinity', false],
      ['Swap', false],
      ['Load average', true],
      ['Other busy processes', false],
    ],
  );
  assert.equal(by('Isolated CPUs').state, '2-3, nohz_full=2-3');
  assert.equal(by('Other busy processes').state, 'my busy (thing) (pid 4242) 97%');
  assert.deepEqual(by('Other busy processes').processes, [{ pid: 4242, comm: 'my busy (thing)', cpuPct: 97 }]);
  const text = formatHostCheck(items);
  assert.equal(text[0], 'ok    ASLR                    full randomization (the factor aslr measures its effect)');
  assert.ok(text.includes('- IRQ affinity: stop irqbalance while benchmarking (systemctl stop irqbalance): it moves interrupts between CPUs during the run'), text.join('\n'));
  // A quiet, tuned host: every line ok, and no advice.
  const quiet = hostCheck({ ...host, governor: 'performance', turbo: 'no_turbo=1', thp: 'madvise' }, { ...facts, irqbalance: null, swapTotalKb: 0, swapUsedKb: 0, load: [0.1, 0.1, 0.1], busy: [] });
  assert.ok(quiet.every((i) => i.ok), JSON.stringify(quiet));
  assert.equal(formatHostCheck(quiet).at(-1), 'Advice: none, the host is ready for benchmarking');
});
