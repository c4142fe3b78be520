// The host's noise over a restart's measured window (issue 22, Deliver 5): what else the target's
// CPUs did while varlab measured. The target reads /proc at the window's two ends (the restart
// script's `noise_sample` in host/script.ts prints one `@noise` line each time); this module turns two
// such lines into figures, and says when a host was busy. Pure, so the attached run, the detached
// runner's import and the tests compute the very same thing.
import type { HostNoise } from './experiment/types.js';

/** A process's CPU time (clock ticks) at a sample: known by pid and start time, so a reused pid is not taken for it. */
export interface ProcTicks {
  pid: number;
  start: number;
  ticks: number;
}

/** One `@noise` line: the host's counters at one moment. */
export interface NoiseSample {
  /** /proc/uptime in seconds (10 ms resolution). */
  uptime: number;
  /** The 1-minute load average. */
  load: number;
  cpus: number;
  /** /proc/stat's `cpu` line summed over user … steal (clock ticks, all CPUs). */
  total: number;
  /** user + nice + system: the CPU time processes used (what utime and stime of /proc/PID/stat add up to). */
  busy: number;
  steal: number;
  /** Context switches since boot. */
  ctxt: number;
  /** The mean scaling_cur_freq over the CPUs that have one, in MHz; null where there is none (VMs, containers). */
  mhz: number | null;
  /** mysqld's own CPU time (utime + stime); null when no mysqld was running or its pid could not be read. */
  mysqld: ProcTicks | null;
  /**
   * varlab's own: the sampling shell and every process above it up to (not including) pid 1, each
   * with utime + stime + cutime + cstime (so the children it has waited for, like the detached
   * runner's client processes, count as its own). See NOISE_SAMPLE in host/script.ts for why.
   */
  own: ProcTicks[];
}

const PROC = /^([0-9]+):([0-9]+):([0-9]+)$/;

function procTicks(word: string): ProcTicks | null {
  const m = PROC.exec(word);
  return m ? { pid: Number(m[1]), start: Number(m[2]), ticks: Number(m[3]) } : null;
}

/**
 * The fields of a `@noise` line after its tag: `WHEN UPTIME LOAD CPUS TOTAL BUSY STEAL CTXT MHZ MYSQLD OWN…`
 * (MHZ and MYSQLD `-` when unknown, MYSQLD and OWN as `pid:start:ticks`). Null when it does not read
 * as one (a truncated line, a kernel without a field).
 */
export function parseNoiseSample(text: string): { when: string; sample: NoiseSample } | null {
  const w = text.trim().split(/\s+/);
  if (w.length < 10) return null;
  const [when, uptime, load, cpus, total, busy, steal, ctxt, mhz, mysqld, ...own] = w;
  const nums = [uptime, load, cpus, total, busy, steal, ctxt].map(Number);
  if (!nums.every((n) => Number.isFinite(n) && n >= 0) || !/^[a-z]+$/.test(when)) return null;
  const mhzN = Number(mhz);
  return {
    when,
    sample: {
      uptime: nums[0],
      load: nums[1],
      cpus: nums[2],
      total: nums[3],
      busy: nums[4],
      steal: nums[5],
      ctxt: nums[6],
      mhz: mhz !== '-' && Number.isFinite(mhzN) && mhzN > 0 ? mhzN : null,
      mysqld: procTicks(mysqld),
      own: own.map(procTicks).filter((p): p is ProcTicks => p !== null),
    },
  };
}

const round = (x: number, digits: number) => Math.round(x * 10 ** digits) / 10 ** digits;

/**
 * The noise over the window between two samples, or null when the two cannot be compared: no time
 * passed, the counters went back (a reboot), or mysqld is not the same process at both ends (it died,
 * or the window spans another start): its CPU time could then not be told apart from the others'.
 */
export function noiseWindow(before: NoiseSample, after: NoiseSample): HostNoise | null {
  const seconds = after.uptime - before.uptime;
  const total = after.total - before.total;
  if (!(seconds > 0) || !(total > 0) || after.busy < before.busy || after.ctxt < before.ctxt || after.steal < before.steal) return null;
  const m0 = before.mysqld;
  const m1 = after.mysqld;
  if (!m0 || !m1 || m0.pid !== m1.pid || m0.start !== m1.start || m1.ticks < m0.ticks) return null;
  // Our own processes are counted where they are the same process at both ends (the connection's
  // shell and sshd, varlab itself); each call's own short-lived shell is in one sample only and left out.
  let own = 0;
  for (const p of after.own) {
    const b = before.own.find((x) => x.pid === p.pid && x.start === p.start);
    if (b && p.ticks >= b.ticks) own += p.ticks - b.ticks;
  }
  const others = Math.max(0, after.busy - before.busy - (m1.ticks - m0.ticks) - own);
  const mhz = [before.mhz, after.mhz].filter((x): x is number => x !== null);
  return {
    seconds: round(seconds, 2),
    load: after.load,
    cpus: after.cpus,
    stealPct: round((100 * (after.steal - before.steal)) / total, 2),
    othersCpuPct: round((100 * others) / total, 2),
    ctxPerS: Math.round((after.ctxt - before.ctxt) / seconds),
    ...(mhz.length ? { cpuMhz: Math.round(mhz.reduce((a, b) => a + b, 0) / mhz.length) } : {}),
  };
}

/**
 * When a host counts as busy over a measured window. One place, read by the analysis, the report and
 * the Run view.
 *
 * - Other processes used at least a quarter of one CPU on average (`othersCpuPct` is a share of all
 *   CPUs' time, so it is scaled by the CPU count): a single-connection benchmark runs on one CPU, and
 *   a neighbour that busy takes that CPU from mysqld a noticeable part of the time, moves it between
 *   CPUs and cools its caches. An idle server's daemons stay far below it (a few % of one CPU).
 * - Steal above 5 %: the hypervisor gave the CPUs to another guest; the timer counts those waits.
 * - A 1-minute load average above the CPU count: more runnable threads than CPUs, so some wait
 *   (it lags: it also catches a neighbour that had just stopped).
 */
export const BUSY_HOST = { othersCpus: 0.25, stealPct: 5, loadPerCpu: 1 } as const;

/** Why this window's host was busy (the reasons, for a flag or a warning), or null when it was quiet. */
export function busyReasons(n: HostNoise): string[] | null {
  const why: string[] = [];
  const othersCpus = (n.othersCpuPct / 100) * n.cpus;
  if (othersCpus >= BUSY_HOST.othersCpus) why.push(`other processes used ${othersCpus.toFixed(2)} of ${n.cpus} CPUs`);
  if (n.stealPct > BUSY_HOST.stealPct) why.push(`CPU steal ${n.stealPct.toFixed(1)}%`);
  if (n.load > n.cpus * BUSY_HOST.loadPerCpu) why.push(`load average ${n.load.toFixed(2)} on ${n.cpus} CPUs`);
  return why.length ? why : null;
}
