// The facts `varlab probe --check` and the Hosts view judge (common/host-check.ts), read on the target
// in one read-only call: isolated CPUs and the kernel command line, irqbalance, swap, the load, and
// every process's CPU time twice, a second apart, to name the busy ones. POSIX sh and coreutils only.
import type { NoiseFacts } from '../../common/host-check.js';
import { hostPaths, type HostPaths } from './script.js';
import { shellQuote } from './shell.js';
import type { TargetSession } from './types.js';

/** Each process as `P WHEN PID TICKS COMM` (utime + stime; the command name last, as it may hold spaces). */
const PROCS = String.raw`procs() {
  w=$1
  for f in /proc/[0-9]*/stat; do
    read -r l 2>/dev/null < "$f" || continue
    c=${'$'}{l#*(}; c=${'$'}{c%)*}; r=${'$'}{l##*) }
    p=${'$'}{f#/proc/}; p=${'$'}{p%/stat}
    set -- $r
    echo "P $w $p $((${'$'}{12} + ${'$'}{13})) $c"
  done
}`;

function checkScript(paths: Pick<HostPaths, 'sys' | 'procSys'>): string {
  const sys = shellQuote(paths.sys.replace(/\/$/, ''));
  const procSys = shellQuote(paths.procSys.replace(/\/$/, ''));
  return String.raw`${PROCS}
echo "isolated=$(cat ${sys}/devices/system/cpu/isolated 2>/dev/null)"
echo "cmdline=$(cat /proc/cmdline 2>/dev/null)"
for p in /proc/[0-9]*; do [ "$(cat "$p/comm" 2>/dev/null)" = irqbalance ] && echo "irqbalance=${'$'}{p#/proc/}"; done
grep -E '^Swap(Total|Free):' /proc/meminfo | sed 's/^\(Swap[A-Za-z]*\): *\([0-9]*\).*/\1=\2/'
echo "swappiness=$(cat ${procSys}/vm/swappiness 2>/dev/null)"
echo "loadavg=$(cat /proc/loadavg)"
echo "cpus=$(grep -c '^cpu[0-9]' /proc/stat)"
# This script and the processes above it (varlab's shell, its sshd, varlab itself): not the host's noise.
o=$$; while [ "$o" -gt 1 ] 2>/dev/null; do echo "own=$o"; o=$(sed -n 's/^PPid:[[:space:]]*//p' "/proc/$o/status" 2>/dev/null); done
read -r u0 x < /proc/uptime; echo "up0=$u0"
procs a
sleep 1
read -r u1 x < /proc/uptime; echo "up1=$u1"
procs b
`;
}

/** Read the check's facts on the target (a second's sample of every process's CPU time). */
export async function readNoiseFacts(session: TargetSession, paths: Partial<HostPaths> = {}): Promise<NoiseFacts> {
  const r = await session.exec(checkScript(hostPaths(paths)), { timeoutMs: 60_000 });
  return parseNoiseFacts(r.stdout);
}

export function parseNoiseFacts(text: string): NoiseFacts {
  const one = new Map<string, string>();
  const ticks: Record<'a' | 'b', Map<number, { ticks: number; comm: string }>> = { a: new Map(), b: new Map() };
  const own = new Set<number>();
  for (const line of text.split('\n')) {
    const p = /^P (a|b) ([0-9]+) ([0-9]+) (.*)$/.exec(line);
    if (p) {
      ticks[p[1] as 'a' | 'b'].set(Number(p[2]), { ticks: Number(p[3]), comm: p[4] });
      continue;
    }
    const i = line.indexOf('=');
    if (line.startsWith('own=')) own.add(Number(line.slice(4)));
    else if (i > 0 && !one.has(line.slice(0, i))) one.set(line.slice(0, i), line.slice(i + 1).trim());
  }
  const num = (k: string) => Number(one.get(k) ?? NaN);
  const cmd = (k: string) => new RegExp(`(?:^|\\s)${k}=(\\S+)`).exec(one.get('cmdline') ?? '')?.[1];
  const load = (one.get('loadavg') ?? '').split(/\s+/).slice(0, 3).map(Number);
  const seconds = num('up1') - num('up0');
  // Clock ticks: USER_HZ is 100 on every Linux that exports /proc this way.
  const busy = [...ticks.b]
    .map(([pid, b]) => ({ pid, comm: b.comm, cpuPct: seconds > 0 && ticks.a.has(pid) ? (b.ticks - ticks.a.get(pid)!.ticks) / seconds : 0 }))
    .filter((p) => p.cpuPct > 0 && !own.has(p.pid))
    .sort((x, y) => y.cpuPct - x.cpuPct);
  const swapTotal = num('SwapTotal') || 0;
  return {
    isolated: one.get('isolated') ?? '',
    cmdline: { isolcpus: cmd('isolcpus'), nohzFull: cmd('nohz_full'), rcuNocbs: cmd('rcu_nocbs') },
    irqbalance: Number(one.get('irqbalance')) || null,
    swapTotalKb: swapTotal,
    swapUsedKb: Math.max(0, swapTotal - (num('SwapFree') || 0)),
    swappiness: Number.isFinite(num('swappiness')) && one.get('swappiness') !== '' ? num('swappiness') : null,
    load: [load[0] || 0, load[1] || 0, load[2] || 0],
    cpus: num('cpus') || 1,
    busy,
    sampleSeconds: seconds > 0 ? seconds : 0,
  };
}
