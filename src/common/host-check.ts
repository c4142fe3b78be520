// `varlab probe TARGET --check` and the Hosts view's check (issue 22, Deliver 5): what on a host makes
// its timings noisy, each with advice, in the manner of pyperf's `system check`: one line per
// setting, its state, and what to do about it. Pure: the facts are read on the target by
// node/host/check.ts (read-only) and the probe; the judgement is here so the CLI and the view agree.
import type { HostFingerprint } from './host.js';
import { BUSY_HOST } from './noise.js';

/** What the check reads on the target beside the probe's fingerprint. */
export interface NoiseFacts {
  /** /sys/devices/system/cpu/isolated ('' when none). */
  isolated: string;
  /** isolcpus=, nohz_full= and rcu_nocbs= of the kernel command line, as given. */
  cmdline: { isolcpus?: string; nohzFull?: string; rcuNocbs?: string };
  /** irqbalance runs (its pid), or null. */
  irqbalance: number | null;
  swapTotalKb: number;
  swapUsedKb: number;
  swappiness: number | null;
  /** The 1-, 5- and 15-minute load averages. */
  load: [number, number, number];
  cpus: number;
  /** Processes that used CPU over the check's one-second sample, busiest first, as % of one CPU; the check's own and the processes above it (varlab's) left out. */
  busy: { pid: number; comm: string; cpuPct: number }[];
  /** The length of that sample. */
  sampleSeconds: number;
}

export interface HostCheckItem {
  /** The setting, as pyperf names it where it has one. */
  what: string;
  /** Its state on the host, in words. */
  state: string;
  /** Fine for benchmarking as it is. */
  ok: boolean;
  /** What to do about it when it is not. */
  advice?: string;
  /** Other busy processes: every one above BUSY_PROCESS_PCT, busiest first (the state names the first five). */
  processes?: NoiseFacts['busy'];
}

/** A process busier than this share of one CPU over the sample is named (an idle host's daemons stay well below). */
export const BUSY_PROCESS_PCT = 5;

export function hostCheck(f: HostFingerprint, n: NoiseFacts): HostCheckItem[] {
  const items: HostCheckItem[] = [];
  const aslr = { '0': 'disabled', '1': 'partial randomization', '2': 'full randomization' }[f.aslr] ?? `randomize_va_space=${f.aslr || '?'}`;
  // As in pyperf, randomization is the kernel's normal state; varlab measures its effect as the factor aslr=on|off.
  items.push({ what: 'ASLR', state: `${aslr} (the factor aslr measures its effect)`, ok: true });
  const governors = f.governor?.split(',') ?? [];
  items.push(
    governors.length === 0
      ? { what: 'CPU frequency governor', state: 'no cpufreq (a VM, or the firmware decides)', ok: true }
      : { what: 'CPU frequency governor', state: governors.join(', '), ok: governors.every((g) => g === 'performance'), advice: governors.every((g) => g === 'performance') ? undefined : 'use the performance governor (the factor governor=performance, or cpupower frequency-set -g performance): other governors change the clock under the measurement' },
  );
  const turboOn = f.turbo === 'no_turbo=0' || f.turbo === 'boost=1';
  items.push(f.turbo ? { what: 'Turbo Boost', state: turboOn ? `enabled (${f.turbo})` : `disabled (${f.turbo})`, ok: !turboOn, advice: turboOn ? 'disable turbo (the factor turbo=off): its clock depends on temperature and on the other cores\' load' : undefined } : { what: 'Turbo Boost', state: 'not controllable here', ok: true });
  items.push({ what: 'Transparent huge pages', state: f.thp ?? 'not available', ok: f.thp !== 'always', advice: f.thp === 'always' ? 'khugepaged compacts memory in the background at any time: use madvise or never (the factor thp=never), or measure it as a factor' : undefined });
  const isolated = n.isolated.trim() || n.cmdline.isolcpus || '';
  items.push({
    what: 'Isolated CPUs',
    state: isolated ? `${isolated}${n.cmdline.nohzFull ? `, nohz_full=${n.cmdline.nohzFull}` : ''}${n.cmdline.rcuNocbs ? `, rcu_nocbs=${n.cmdline.rcuNocbs}` : ''}` : 'none',
    ok: !!isolated,
    advice: isolated ? `bind mysqld to them (the factor cpubind=${isolated})` : 'isolate CPUs for mysqld with the kernel parameters isolcpus=LIST nohz_full=LIST rcu_nocbs=LIST, then bind it there (the factor cpubind=LIST)',
  });
  items.push({ what: 'IRQ affinity', state: n.irqbalance ? `irqbalance runs (pid ${n.irqbalance})` : 'irqbalance is not running', ok: !n.irqbalance, advice: n.irqbalance ? 'stop irqbalance while benchmarking (systemctl stop irqbalance): it moves interrupts between CPUs during the run' : undefined });
  const swapUsedMb = Math.round(n.swapUsedKb / 1024);
  items.push(
    n.swapTotalKb === 0
      ? { what: 'Swap', state: 'none', ok: true }
      : { what: 'Swap', state: `${swapUsedMb} MB used of ${Math.round(n.swapTotalKb / 1024)} MB${n.swappiness !== null ? `, vm.swappiness=${n.swappiness}` : ''}`, ok: swapUsedMb < 64, advice: swapUsedMb >= 64 ? 'memory is short: pages that come back from swap during a run add their disk time to it; free memory or turn swap off (swapoff -a) while benchmarking' : undefined },
  );
  const loadBusy = n.load[0] > n.cpus * BUSY_HOST.loadPerCpu;
  items.push({ what: 'Load average', state: `${n.load.map((x) => x.toFixed(2)).join(', ')} on ${n.cpus} CPUs`, ok: !loadBusy, advice: loadBusy ? 'more runnable threads than CPUs: wait for the host to be quiet, or stop what runs (Other busy processes)' : undefined });
  const others = n.busy.filter((p) => p.cpuPct >= BUSY_PROCESS_PCT);
  items.push({
    what: 'Other busy processes',
    state: others.length ? others.slice(0, 5).map((p) => `${p.comm} (pid ${p.pid}) ${p.cpuPct.toFixed(0)}%`).join(', ') : `none above ${BUSY_PROCESS_PCT}% of a CPU over ${n.sampleSeconds.toFixed(1)} s`,
    ok: !others.length,
    ...(others.length ? { processes: others } : {}),
    advice: others.length ? 'stop them while benchmarking, or keep them off the CPUs mysqld runs on; varlab flags each restart that ran on a busy host' : undefined,
  });
  return items;
}

/** The check as pyperf prints it: each setting and its state, then the advice. */
export function formatHostCheck(items: HostCheckItem[]): string[] {
  const width = Math.max(...items.map((i) => i.what.length));
  const lines = items.map((i) => `${i.ok ? 'ok  ' : 'WARN'}  ${i.what.padEnd(width)}  ${i.state}`);
  const advice = items.filter((i) => !i.ok && i.advice);
  lines.push('', advice.length ? 'Advice' : 'Advice: none, the host is ready for benchmarking');
  if (advice.length) for (const i of advice) lines.push(`- ${i.what}: ${i.advice}`);
  return lines;
}
