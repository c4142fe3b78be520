// The host probe: what a target is, read in one round trip by a read-only shell script.
import type { HostFingerprint, NumaNode } from '../../common/host.js';
import { hostPaths, type HostPaths } from './script.js';
import { shellQuote } from './shell.js';
import type { TargetSession } from './types.js';

/**
 * Read-only: it changes nothing on the host. Each line is `key=value`; values are parsed in TypeScript.
 * The tunables' host files are read under the given roots (sysfs, /proc/sys), like the restart reads them.
 */
function probeScript(paths: Pick<HostPaths, 'sys' | 'procSys'>): string {
  const sys = shellQuote(paths.sys.replace(/\/$/, ''));
  const procSys = shellQuote(paths.procSys.replace(/\/$/, ''));
  return String.raw`
echo "hostname=$(hostname 2>/dev/null || cat /proc/sys/kernel/hostname)"
echo "kernel=$(uname -sr)"
echo "arch=$(uname -m)"
echo "user=$(id -un)"
echo "uid=$(id -u)"
echo "cpumodel=$(grep -m1 -E '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
echo "threads=$(grep -c '^processor' /proc/cpuinfo)"
echo "sockets=$(grep '^physical id' /proc/cpuinfo | sort -u | wc -l)"
echo "cores=$(grep -E '^(physical id|core id)' /proc/cpuinfo | paste - - | sort -u | wc -l)"
for n in /sys/devices/system/node/node[0-9]*; do
  [ -d "$n" ] || continue
  echo "numa=$(basename "$n" | sed 's/node//') $(cat "$n/cpulist") $(grep -m1 MemTotal "$n/meminfo" | awk '{print $4}')"
done
sys=${sys}; procsys=${procSys}
echo "aslr=$(cat "$procsys/kernel/randomize_va_space" 2>/dev/null)"
echo "governor=$(cat "$sys"/devices/system/cpu/cpu[0-9]*/cpufreq/scaling_governor 2>/dev/null | sort -u | paste -sd, -)"
if [ -r "$sys/devices/system/cpu/intel_pstate/no_turbo" ]; then echo "turbo=no_turbo=$(cat "$sys/devices/system/cpu/intel_pstate/no_turbo")"
elif [ -r "$sys/devices/system/cpu/cpufreq/boost" ]; then echo "turbo=boost=$(cat "$sys/devices/system/cpu/cpufreq/boost")"; else echo "turbo="; fi
echo "thp=$(cat "$sys/kernel/mm/transparent_hugepage/enabled" 2>/dev/null)"
if [ "$(id -u)" = 0 ]; then echo "sudo=root"; elif sudo -n true 2>/dev/null; then echo "sudo=yes"; else echo "sudo=no"; fi
for t in numactl taskset setarch perf sysbench systemctl; do p=$(command -v "$t" 2>/dev/null) && echo "tool=$t $p"; done
[ -d /run/systemd/system ] && echo "systemd=yes"
for l in jemalloc tcmalloc_minimal tcmalloc; do
  for d in /usr/lib/$(uname -m)-linux-gnu /usr/lib64 /usr/lib /usr/local/lib; do
    for f in "$d"/lib$l.so.[0-9]; do [ -r "$f" ] && { echo "alloc=$l $f"; break 2; }; done
  done
done
bin=
for b in $(command -v mariadbd mysqld 2>/dev/null) /usr/sbin/mariadbd /usr/sbin/mysqld /usr/local/mysql/bin/mysqld; do
  if [ -x "$b" ]; then bin=$b; break; fi
done
if [ -n "$bin" ]; then
  echo "mysqld=$bin"
  echo "mysqldversion=$("$bin" --version 2>/dev/null | head -1)"
  "$bin" --verbose --help 2>/dev/null | grep -E '^(datadir|socket) ' | sed 's/  */=/' | sed 's/^/mysqld_/'
  for f in /etc/mysql/my.cnf /etc/my.cnf /usr/local/mysql/etc/my.cnf; do if [ -r "$f" ]; then echo "mysqldconfig=$f"; break; fi; done
fi
`;
}

export async function probeHost(session: TargetSession, paths: Partial<HostPaths> = {}): Promise<HostFingerprint> {
  const r = await session.exec(probeScript(hostPaths(paths)), { timeoutMs: 60000 });
  return parseProbe(session.target, r.stdout);
}

export function parseProbe(target: string, text: string): HostFingerprint {
  const one = new Map<string, string>();
  const many = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    const i = line.indexOf('=');
    if (i <= 0) continue;
    const k = line.slice(0, i);
    const v = line.slice(i + 1).trim();
    if (!one.has(k)) one.set(k, v);
    many.set(k, [...(many.get(k) ?? []), v]);
  }
  const int = (k: string) => Number.parseInt(one.get(k) ?? '', 10) || 0;
  const numaNodes: NumaNode[] = (many.get('numa') ?? []).map((l) => {
    const [node, cpus, kb] = l.split(/\s+/);
    return { node: Number(node), cpus: cpus ?? '', memoryMb: Math.round(Number(kb ?? 0) / 1024) };
  });
  const threads = int('threads');
  // VMs often hide `physical id`: then there is one socket and each thread counts as a core.
  const sockets = int('sockets') || 1;
  const cores = int('cores') || threads;
  const thpRaw = one.get('thp') ?? '';
  const thp = /\[(\w+)\]/.exec(thpRaw)?.[1] ?? (thpRaw || null);
  const bin = one.get('mysqld');
  const version = one.get('mysqldversion') ?? '';
  const flavor = /mariadb/i.test(version) ? 'mariadb' : /percona/i.test(version) ? 'percona' : /mysql/i.test(version) ? 'mysql' : 'unknown';
  const toolPaths = new Map((many.get('tool') ?? []).map((l) => [l.split(' ')[0], l.slice(l.indexOf(' ') + 1)] as const));
  const tools = new Set(toolPaths.keys());
  const alloc = new Map((many.get('alloc') ?? []).map((l) => [l.split(' ')[0], l.slice(l.indexOf(' ') + 1)] as const));
  const pathOf = (t: string) => (toolPaths.get(t)?.startsWith('/') ? toolPaths.get(t) : undefined);
  return {
    target,
    probedAt: Date.now(),
    hostname: one.get('hostname') ?? '',
    kernel: one.get('kernel') ?? '',
    cpuModel: one.get('cpumodel') ?? '',
    sockets,
    cores,
    threads,
    numaNodes,
    aslr: one.get('aslr') ?? '',
    governor: one.get('governor') || null,
    turbo: one.get('turbo') || null,
    thp,
    mysqld: bin
      ? {
          flavor,
          version: /Ver\s+(\S+)/.exec(version)?.[1] ?? version,
          binary: bin,
          datadir: one.get('mysqld_datadir') || null,
          socket: one.get('mysqld_socket') || null,
          configFile: one.get('mysqldconfig') || null,
        }
      : null,
    sudoWithoutPassword: one.get('sudo') === 'yes' || one.get('sudo') === 'root',
    tools: {
      numactl: tools.has('numactl'),
      taskset: tools.has('taskset'),
      setarch: tools.has('setarch'),
      perf: tools.has('perf'),
      sysbench: tools.has('sysbench'),
    },
    arch: one.get('arch') || undefined,
    user: one.get('user') || undefined,
    uid: one.has('uid') && one.get('uid') !== '' ? Number(one.get('uid')) : undefined,
    toolPaths: Object.fromEntries((['numactl', 'taskset', 'setarch', 'systemctl'] as const).filter((t) => pathOf(t)).map((t) => [t, pathOf(t)!])),
    systemd: one.get('systemd') === 'yes',
    allocators: { jemalloc: alloc.get('jemalloc') ?? null, tcmalloc: alloc.get('tcmalloc_minimal') ?? alloc.get('tcmalloc') ?? null },
  };
}

/** A readable summary for the terminal and the Hosts panel. */
export function formatFingerprint(f: HostFingerprint): string[] {
  const aslr = { '0': 'off', '1': 'partial', '2': 'full' }[f.aslr] ?? f.aslr;
  const lines = [
    `target      ${f.target}`,
    `hostname    ${f.hostname}`,
    `kernel      ${f.kernel}`,
    `cpu         ${f.cpuModel}`,
    `topology    ${f.sockets} socket(s), ${f.cores} core(s), ${f.threads} thread(s)`,
    `numa        ${f.numaNodes.map((n) => `node ${n.node}: cpus ${n.cpus}, ${n.memoryMb} MB`).join('; ') || 'no NUMA information'}`,
    `aslr        kernel.randomize_va_space=${f.aslr} (${aslr})`,
    `governor    ${f.governor ?? 'no cpufreq'}`,
    `turbo       ${f.turbo ?? 'not controllable'}`,
    `thp         ${f.thp ?? 'not available'}`,
    `sudo -n     ${f.sudoWithoutPassword ? 'works (or root)' : 'needs a password'}`,
    `tools       ${Object.entries(f.tools).map(([k, v]) => `${k} ${v ? 'yes' : 'no'}`).join(', ')}`,
    `arch        ${f.arch ?? '?'}${f.systemd ? ', systemd' : ''}${f.user ? `, logged in as ${f.user}` : ''}`,
    `allocators  jemalloc ${f.allocators?.jemalloc ?? 'not installed'}, tcmalloc ${f.allocators?.tcmalloc ?? 'not installed'}`,
  ];
  if (f.mysqld) {
    const m = f.mysqld;
    lines.push(`mysqld      ${m.flavor} ${m.version} at ${m.binary}`, `datadir     ${m.datadir ?? '?'}`, `socket      ${m.socket ?? '?'}`, `config      ${m.configFile ?? 'none found'}`);
  } else lines.push('mysqld      not found');
  return lines;
}
