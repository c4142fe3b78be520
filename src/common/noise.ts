// The host's noise over a restart's measured window (issue 22, Deliver 5): what else the target's
// CPUs did while varlab measured. The target reads /proc at the window's two ends (the restart
// script's `noise_sample` in host/script.ts prints one `@noise` line each time); this module turns two
// such lines into figures, and says when a host was busy. Pure, so the attached run, the detached
// runner's import and the tests compute the very same thing.
import type { HostNoise, RestartResult } from './experiment/types.js';
import { hostCell } from './plan.js';
import { restartsOfCell } from './restart-of-cell.js';

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

/** A cell's noise over its measured restarts, beside its between-restart spread. */
export interface CellNoise {
  cell: string;
  /** Its measured restarts, and those whose noise was read. */
  restarts: number;
  read: number;
  /** Of those, the ones on a busy host. */
  busy: number;
  others_cpu_pct_median: number | null;
  others_cpu_pct_max: number | null;
  steal_pct_max: number | null;
  load_max: number | null;
  /** The cell's between-restart CoV (mean over its queries), from the analysis. */
  between_cov_pct: number | null;
}

export interface NoiseSummary {
  restarts: number;
  read: number;
  /**
   * Every restart on a busy host, with why. `restart_of_cell`: its number within its cell (on its host), as the
   * plots label a restart ("cell · r2") and restarts.csv's restart_of_cell counts it.
   */
  busy: { seq: number; cell: string; restart_of_cell: number; host?: string; reasons: string[] }[];
  cells: CellNoise[];
}

const median = (xs: number[]) => {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const max = (xs: number[]) => (xs.length ? Math.max(...xs) : null);

/**
 * The noise of the measured restarts (status ok), per cell in the order given, beside each cell's
 * between-restart CoV: a cell whose restarts ran on a busy host may owe its spread to the host. Null
 * when no restart's noise was read (results from before it was, or a CSV).
 */
export function noiseSummary(restarts: readonly RestartResult[], cells: readonly string[], betweenCov: (cell: string) => number | null): NoiseSummary | null {
  const ok = restarts.filter((r) => r.status === 'ok');
  const read = ok.filter((r) => r.noise);
  if (!read.length) return null;
  // Numbered as the plots and restarts.csv number them (restart-of-cell.ts).
  const ofCell = restartsOfCell(restarts);
  const busy = read.flatMap((r) => {
    const reasons = busyReasons(r.noise!);
    return reasons ? [{ seq: r.seq, cell: r.cell, restart_of_cell: ofCell.get(r)!, ...(r.host ? { host: r.host } : {}), reasons }] : [];
  });
  return {
    restarts: ok.length,
    read: read.length,
    busy,
    cells: cells.map((cell) => {
      const mine = ok.filter((r) => cellKey(r, cells) === cell);
      const n = mine.flatMap((r) => (r.noise ? [r.noise] : []));
      return {
        cell,
        restarts: mine.length,
        read: n.length,
        busy: n.filter((x) => busyReasons(x)).length,
        others_cpu_pct_median: median(n.map((x) => x.othersCpuPct)),
        others_cpu_pct_max: max(n.map((x) => x.othersCpuPct)),
        steal_pct_max: max(n.map((x) => x.stealPct)),
        load_max: max(n.map((x) => x.load)),
        between_cov_pct: betweenCov(cell),
      };
    }),
  };
}

/** A cell's between-restart CoV for the noise table: the mean over its queries (as the Configurations table shows it). */
export function meanBetweenCov(queries: readonly { between_cov_pct: number | null }[] | undefined): number | null {
  const v = (queries ?? []).map((q) => q.between_cov_pct).filter((x): x is number => x !== null);
  return v.length ? v.reduce((a, b) => a + b, 0) / v.length : null;
}

/**
 * A restart's cell as the analysis names it: with its host when the results came from several hosts
 * (the host is then a block factor, part of every cell: stats/tidy.ts), when `cells` names it so.
 */
function cellKey(r: RestartResult, cells: readonly string[]): string {
  const withHost = hostCell(r.cell, r.host);
  return withHost !== r.cell && cells.includes(withHost) ? withHost : r.cell;
}

/** The cells of these restarts, in the order given first, then any other in the order met. */
export function cellsOfRestarts(restarts: readonly RestartResult[], order: readonly string[]): string[] {
  const met = [...new Set(restarts.filter((r) => r.status === 'ok').map((r) => cellKey(r, order)))];
  return [...order.filter((c) => met.includes(c)), ...met.filter((c) => !order.includes(c))];
}

const fx = (x: number | null, d = 1) => (x === null ? '–' : x.toFixed(d));

/** A restart on a busy host, named by its run order and as the plots label it ("cell · r2"), with why. */
export function busyLine(b: NoiseSummary['busy'][number]): string {
  return `restart ${b.seq}${b.host ? ` on ${b.host}` : ''} (${b.cell} · r${b.restart_of_cell}): ${b.reasons.join('; ')}`;
}

/** The summary as lines of text (analyze) or Markdown (the report): what was read, the busy restarts, and per cell the noise beside the spread. */
export function noiseLines(s: NoiseSummary, md: boolean): string[] {
  const head = `Host noise over the measured windows: read at ${s.read} of ${s.restarts} measured restarts; ${s.busy.length ? `${s.busy.length} ran on a busy host` : 'none ran on a busy host'} (busy: other processes ≥ ${BUSY_HOST.othersCpus} CPU, steal > ${BUSY_HOST.stealPct} %, or load above the CPU count).`;
  const cols = ['cell', 'restarts', 'busy', 'others CPU % median', 'others CPU % max', 'steal % max', 'load max', 'between-restart CoV %'];
  const rows = s.cells.map((c) => [c.cell, `${c.read}/${c.restarts}`, String(c.busy), fx(c.others_cpu_pct_median), fx(c.others_cpu_pct_max), fx(c.steal_pct_max), fx(c.load_max, 2), fx(c.between_cov_pct, 2)]);
  const busy = s.busy.map(busyLine);
  if (md) {
    const esc = (x: string) => x.replace(/\|/g, '\\|');
    return [head, '', `| ${cols.join(' | ')} |`, `|${cols.map((_, i) => (i ? '--:' : '---')).join('|')}|`, ...rows.map((r) => `| ${r.map(esc).join(' | ')} |`), ...(busy.length ? ['', 'Restarts on a busy host:', ...busy.map((b) => `- ${b}`)] : [])];
  }
  const widths = cols.map((c, i) => Math.max(c.length, ...rows.map((r) => r[i].length)));
  const line = (r: string[]) => '  ' + r.map((x, i) => (i ? x.padStart(widths[i]) : x.padEnd(widths[i]))).join('  ');
  return [head, line(cols), ...rows.map(line), ...busy.map((b) => `  busy: ${b}`)];
}
