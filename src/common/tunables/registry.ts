// Every factor kind varlab knows, one object each: the designer's catalog, the validator, the
// restart procedure and the verification all read this list and nothing else.
import type { HostFingerprint } from '../host.js';
import { build } from './build.js';
import { refusedOptionText } from './variables.js';
import type { Contribution, Fact, FactorKind, Facts, HostFile, LevelContext, StepFactor, Tunable, Verdict } from './types.js';

const oneOf =
  (...values: string[]) =>
  (level: string) =>
    values.includes(level);

/**
 * A factor whose levels are a fixed list: its levels, the two measured by default, and the syntax and
 * check the list implies ("a, b or c"), so that they cannot drift from it.
 */
function choices(levels: string[], defaultLevels: string[]): Pick<Tunable, 'levels' | 'defaultLevels' | 'syntax' | 'valid'> {
  return { levels, defaultLevels, syntax: `${levels.slice(0, -1).join(', ')} or ${levels[levels.length - 1]}`, valid: oneOf(...levels) };
}
const NODE_POLICY = /^(bind|preferred):(0|[1-9][0-9]{0,3})$/;
/** A taskset/numactl CPU list: 0, 8, 0-3, 0,2,4-7. Bounded so a typo cannot become a huge string. */
export const CPU_LIST = /^(0|[1-9][0-9]{0,3})(-(0|[1-9][0-9]{0,3}))?(,(0|[1-9][0-9]{0,3})(-(0|[1-9][0-9]{0,3}))?){0,63}$/;
/** A server variable value: a number, a word, or a size like 128M. No quotes, spaces or shell characters. */
export const VARIABLE_VALUE = /^[A-Za-z0-9_.+-]{1,64}$/;
/** A server variable name as MySQL and MariaDB spell them. */
export const VARIABLE_NAME = /^[a-z][a-z0-9_]{1,63}$/;

// ---- host files (relative to the sysfs root or the /proc/sys root the host layer is given) ----

export const GOVERNOR_FILE: HostFile = { id: 'governor', root: 'sys', path: 'devices/system/cpu/cpu*/cpufreq/scaling_governor', perCpu: true, read: 'cat' };
export const NO_TURBO_FILE: HostFile = { id: 'no_turbo', root: 'sys', path: 'devices/system/cpu/intel_pstate/no_turbo', read: 'cat' };
export const BOOST_FILE: HostFile = { id: 'boost', root: 'sys', path: 'devices/system/cpu/cpufreq/boost', read: 'cat' };
export const THP_FILE: HostFile = { id: 'thp', root: 'sys', path: 'kernel/mm/transparent_hugepage/enabled', read: 'bracketed' };
export const ASLR_FILE: HostFile = { id: 'randomize_va_space', root: 'proc-sys', path: 'kernel/randomize_va_space', read: 'cat' };
/** Every file any tunable may write: the only files a restore record may name. */
export const HOST_FILES: HostFile[] = [GOVERNOR_FILE, NO_TURBO_FILE, BOOST_FILE, THP_FILE, ASLR_FILE];

const verdict = (ok: boolean, observed: string): Verdict => ({ ok, observed });
const lines = (v: string | null | undefined) => (v ?? '').split('\n').map((l) => l.trim()).filter(Boolean);

/** Which turbo file this host has, from the probe (`no_turbo=1` or `boost=0`). */
export function turboFile(host: HostFingerprint): HostFile | null {
  if (host.turbo?.startsWith('no_turbo=')) return NO_TURBO_FILE;
  if (host.turbo?.startsWith('boost=')) return BOOST_FILE;
  return null;
}

// ---- verification helpers ----

/**
 * The value a host file holds: the kernel's list marks the current word (`always [madvise] never`);
 * a file holding one word (a container's stand-in) is that word, as the restore record's script reads it.
 */
export function hostFileValue(file: Pick<HostFile, 'read'>, text: string): string {
  const line = text.trim();
  return file.read === 'bracketed' ? (/\[(\w+)\]/.exec(line)?.[1] ?? line) : line;
}

/** ADDR_NO_RANDOMIZE in <linux/personality.h>. */
export const ADDR_NO_RANDOMIZE = 0x0040000;

/** A CPU list as a sorted set, so `0-2` equals `0,1,2`. */
export function cpuSet(list: string): number[] {
  const out = new Set<number>();
  for (const part of list.trim().split(',')) {
    if (!part) continue;
    const [a, b] = part.split('-').map(Number);
    for (let c = a; c <= (b ?? a); c++) out.add(c);
  }
  return [...out].sort((x, y) => x - y);
}

/** Count the mappings of /proc/PID/numa_maps by policy word (`interleave:0-1`, `bind:0`, `default`...). */
export function policies(numaMaps: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const line of numaMaps.split('\n')) {
    const policy = line.split(' ')[1];
    if (!policy) continue;
    counts.set(policy, (counts.get(policy) ?? 0) + 1);
  }
  return counts;
}

/** The target sends the counts already made (`interleave:0-1 12` per line): read them back. */
export function policyCounts(fact: string | null): Map<string, number> {
  const counts = new Map<string, number>();
  for (const l of lines(fact)) {
    const [p, n] = l.split(/\s+/);
    if (p) counts.set(p, (counts.get(p) ?? 0) + (Number(n) || 0));
  }
  return counts;
}

const SIZE = /^(\d+)([KMGT])$/i;

/** Compare as the server reports it: ON/OFF as 1/0, sizes as bytes, words case-insensitively. */
export function sameValue(wanted: string, observed: string | null): boolean {
  if (observed === null) return false;
  const norm = (v: string) => {
    const s = v.trim().toUpperCase();
    // performance_schema's setup tables say YES and NO.
    if (s === 'ON' || s === 'TRUE' || s === 'YES') return '1';
    if (s === 'OFF' || s === 'FALSE' || s === 'NO') return '0';
    const m = SIZE.exec(s);
    if (m) return String(BigInt(m[1]) * 1024n ** BigInt('KMGT'.indexOf(m[2].toUpperCase()) + 1));
    return s;
  };
  return norm(wanted) === norm(observed);
}

/** numactl's words for a NUMA level. */
export function numactlWords(level: string): string[] {
  if (level === 'interleave') return ['--interleave=all'];
  const [kind, node] = level.split(':');
  if (kind === 'bind') return [`--membind=${node}`];
  if (kind === 'preferred') return [`--preferred=${node}`];
  return [];
}

// ---- the tunables ----

/** A host-wide sysfs/procfs file: set by non-neutral levels, put back by the neutral one. */
function hostFileTunable(
  base: Omit<Tunable, 'kind' | 'contribute' | 'files' | 'facts' | 'verify' | 'neutral'>,
  fileOf: (host: HostFingerprint) => HostFile | null,
  value: (level: string, file: HostFile) => string,
  missing: string,
): Tunable {
  const neutral = 'unchanged';
  return {
    ...base,
    kind: 'tunable',
    neutral,
    unavailable: (level, host) => (level !== neutral && !fileOf(host) ? missing : null),
    files: (host) => [fileOf(host)].filter((f): f is HostFile => f !== null),
    contribute(level, { host }) {
      const file = fileOf(host);
      return level === neutral || !file ? {} : { set: [{ file, value: value(level, file) }] };
    },
    facts: (_level, { host }) => {
      const file = fileOf(host);
      return file ? [{ kind: 'file', file }] : [];
    },
    verify(level, facts, { host }) {
      const file = fileOf(host);
      if (!file) return verdict(level === neutral, missing);
      const raw = lines(facts[`file:${file.id}`]);
      const values = [...new Set(raw.map((l) => hostFileValue(file, l)))];
      const observed = values.length ? `${file.path}: ${values.join(', ')}` : `${file.path}: not present on this host`;
      if (level === neutral) return verdict(true, observed);
      return verdict(values.length === 1 && values[0] === value(level, file), observed);
    },
  };
}

/** A server variable set at start-up and read back. */
function startupVariable(base: Omit<Tunable, 'kind' | 'contribute' | 'facts' | 'verify'>, variable: (name?: string) => string, value: (level: string) => string): Tunable {
  return {
    ...base,
    kind: 'tunable',
    contribute: (level, { name }) => ({ options: [`--${variable(name).replace(/_/g, '-')}=${value(level)}`] }),
    facts: (_level, { name }) => [{ kind: 'variable', name: variable(name) }],
    verify(level, facts, { name }) {
      const v = variable(name);
      const observed = facts[`variable:${v}`] ?? null;
      return verdict(sameValue(value(level), observed), `@@${v} = ${observed ?? 'unknown variable'}`);
    },
  };
}

const onOff = (level: string) => (level === 'on' ? 'ON' : 'OFF');

/** A boolean server variable set at start-up, levels on and off. */
function onOffVariable(id: string, label: string, help: string, name: string): Tunable {
  return startupVariable({ id, label, help, ...choices(['on', 'off'], ['on', 'off']), scope: 'mysqld' }, () => name, onOff);
}
export const HOST_WIDE_OFF = 'off-host';

/** A step or action that is either done or not: measured both ways by default, "off" when not a factor. */
const OFF_OR_ON: Pick<Tunable, 'levels' | 'defaultLevels' | 'neutral' | 'syntax' | 'valid'> = { ...choices(['off', 'on'], ['off', 'on']), neutral: 'off' };

export const aslr: Tunable = {
  kind: 'tunable',
  id: 'aslr',
  label: 'ASLR',
  help: 'Address-space layout randomization for mysqld. "off" starts mysqld under setarch -R (the host keeps its own setting); "off-host" sets kernel.randomize_va_space=0 for the run and puts it back. Verified from the personality flag or the live process.',
  ...choices(['on', 'off', 'off-host'], ['on', 'off']),
  neutral: 'on',
  scope: 'mysqld',
  unavailable: (level, host) => (level === 'off' && host.tools.setarch === false ? 'setarch is not installed on this host (util-linux)' : null),
  // Every level but off-host puts a host-wide randomize_va_space back: ASLR is never left off host-wide.
  files: () => [ASLR_FILE],
  contribute: (level) => (level === 'off' ? { noRandomize: true } : level === HOST_WIDE_OFF ? { set: [{ file: ASLR_FILE, value: '0' }] } : {}),
  facts: (level) => (level === HOST_WIDE_OFF ? [{ kind: 'file', file: ASLR_FILE }] : [{ kind: 'personality' }]),
  verify(level, facts) {
    if (level === HOST_WIDE_OFF) {
      const v = lines(facts['file:randomize_va_space'])[0] ?? '';
      return verdict(v === '0', `kernel.randomize_va_space = ${v || 'unreadable'}`);
    }
    const raw = (facts.personality ?? '').trim();
    const flags = Number.parseInt(raw, 16);
    if (!Number.isFinite(flags)) return verdict(false, `cannot read the personality of mysqld: ${JSON.stringify(raw)}`);
    const off = (flags & ADDR_NO_RANDOMIZE) !== 0;
    return verdict(off === (level === 'off'), `personality 0x${raw}: ADDR_NO_RANDOMIZE ${off ? 'set (ASLR off)' : 'clear (ASLR on)'}`);
  },
};

export const ahi = onOffVariable('ahi', 'Adaptive hash index', 'innodb_adaptive_hash_index at start-up; verified with SHOW GLOBAL VARIABLES.', 'innodb_adaptive_hash_index');

/** Preload is not applied to the server: its level puts the preload step into the restart. */
export const preload: StepFactor = {
  kind: 'step',
  id: 'preload',
  label: 'Preload',
  help: 'After start, scan every table and index of the workload schemas before measuring.',
  ...OFF_OR_ON,
  scope: 'session',
  step: (level) => (level === 'on' ? 'preload' : null),
};

export const numa: Tunable = {
  kind: 'tunable',
  id: 'numa',
  label: 'NUMA policy',
  help: 'numactl memory policy for mysqld; verified in /proc/PID/numa_maps.',
  levels: ['default', 'interleave', 'bind:0', 'bind:1', 'preferred:0'],
  defaultLevels: ['default', 'interleave'],
  neutral: 'default',
  scope: 'mysqld',
  syntax: 'default, interleave, bind:N or preferred:N',
  // The whole level: `bind:0:<anything>` is refused, not read as bind:0.
  valid: (l) => l === 'default' || l === 'interleave' || NODE_POLICY.test(l),
  unavailable(level, host) {
    if (level === 'default') return null;
    if (host.tools.numactl === false) return 'numactl is not installed on this host';
    const node = level.split(':')[1];
    if (node !== undefined && host.numaNodes.length && !host.numaNodes.some((n) => String(n.node) === node)) return `this host has no NUMA node ${node} (nodes: ${host.numaNodes.map((n) => n.node).join(', ')})`;
    return null;
  },
  contribute: (level) => (level === 'default' ? {} : { numactl: numactlWords(level) }),
  facts: () => [{ kind: 'numa' }],
  verify(level, facts) {
    const counts = policyCounts(facts.numa ?? null);
    const total = [...counts.values()].reduce((a, b) => a + b, 0);
    if (total === 0) return verdict(false, 'numa_maps of mysqld is empty or unreadable (kernel without NUMA support?)');
    const summary = [...counts].sort((a, b) => b[1] - a[1]).map(([p, n]) => `${p} ×${n}`).join(', ');
    const has = (prefix: string) => [...counts.keys()].some((p) => p.startsWith(prefix));
    let ok: boolean;
    if (level === 'default') ok = !has('interleave') && !has('bind') && !has('prefer');
    else if (level === 'interleave') ok = has('interleave:');
    else {
      const [kind, node] = level.split(':');
      const word = kind === 'bind' ? 'bind' : 'prefer';
      ok = [...counts.keys()].some((p) => new RegExp(`^${word}[^:]*:${node}$`).test(p));
    }
    return verdict(ok, `numa_maps policies: ${summary}`);
  },
};

export const cpubind: Tunable = {
  kind: 'tunable',
  id: 'cpubind',
  label: 'CPU binding',
  help: 'taskset CPU list for mysqld; verified from Cpus_allowed_list in /proc/PID/status.',
  levels: ['none', '0', '1'],
  defaultLevels: ['none', '0'],
  neutral: 'none',
  scope: 'mysqld',
  syntax: 'none or a CPU list such as 8, 0-3 or 0,2',
  valid: (l) => l === 'none' || CPU_LIST.test(l),
  unavailable(level, host) {
    if (level === 'none') return null;
    if (host.tools.taskset === false) return 'taskset is not installed on this host (util-linux)';
    const missing = host.threads ? cpuSet(level).filter((c) => c >= host.threads) : [];
    return missing.length ? `this host has CPUs 0-${host.threads - 1}; no CPU ${missing.join(', ')}` : null;
  },
  contribute: (level) => (level === 'none' ? {} : { taskset: level }),
  facts: () => [{ kind: 'cpus' }],
  verify(level, facts) {
    const list = (facts.cpus ?? '').trim();
    if (!list) return verdict(false, 'no Cpus_allowed_list for mysqld');
    const observed = `Cpus_allowed_list ${list}`;
    if (level === 'none') return verdict(true, observed);
    return verdict(cpuSet(list).join(',') === cpuSet(level).join(','), observed);
  },
};

export const governor = hostFileTunable(
  {
    id: 'governor',
    label: 'CPU governor',
    help: 'cpufreq scaling governor on every CPU (host-wide, restored afterwards).',
    ...choices(['unchanged', 'performance', 'powersave', 'schedutil', 'ondemand'], ['unchanged', 'performance']),
    scope: 'host',
  },
  (host) => (host.governor ? GOVERNOR_FILE : null),
  (level) => level,
  'not on this host: it has no cpufreq scaling governor',
);

export const turbo = hostFileTunable(
  {
    id: 'turbo',
    label: 'Turbo boost',
    help: 'intel_pstate no_turbo or cpufreq boost, whichever the host has (host-wide, restored afterwards).',
    ...choices(['unchanged', 'on', 'off'], ['unchanged', 'off']),
    scope: 'host',
  },
  turboFile,
  // intel_pstate says it backwards: no_turbo=1 means off.
  (level, file) => (file.id === 'no_turbo' ? (level === 'off' ? '1' : '0') : level === 'off' ? '0' : '1'),
  'not on this host: it has neither intel_pstate/no_turbo nor cpufreq/boost',
);

export const thp = hostFileTunable(
  {
    id: 'thp',
    label: 'Transparent huge pages',
    help: '/sys/kernel/mm/transparent_hugepage/enabled (host-wide, restored afterwards).',
    ...choices(['unchanged', 'always', 'madvise', 'never'], ['unchanged', 'never']),
    scope: 'host',
  },
  (host) => (host.thp === null ? null : THP_FILE),
  (level) => level,
  'not on this host: the kernel has no transparent huge pages',
);

export const allocator: Tunable = {
  kind: 'tunable',
  id: 'allocator',
  label: 'Memory allocator',
  help: 'LD_PRELOAD of jemalloc or tcmalloc for mysqld (the library the probe found on the host); verified in /proc/PID/maps.',
  ...choices(['default', 'jemalloc', 'tcmalloc'], ['default', 'jemalloc']),
  neutral: 'default',
  scope: 'mysqld',
  unavailable: (level, host) => (level !== 'default' && !host.allocators?.[level as 'jemalloc' | 'tcmalloc'] ? `${level} is not installed on this host (no lib${level} found by the probe)` : null),
  contribute: (level, { host }) => (level === 'default' ? {} : { preload: host.allocators?.[level as 'jemalloc' | 'tcmalloc'] ?? undefined }),
  facts: () => [{ kind: 'allocators' }],
  verify(level, facts) {
    const libs = lines(facts.allocators);
    const observed = libs.length ? `mapped: ${libs.join(', ')}` : 'no jemalloc or tcmalloc mapped (glibc malloc)';
    return verdict(level === 'default' ? libs.length === 0 : libs.some((p) => p.includes(`lib${level}`)), observed);
  },
};

export const oldBlocksTime = startupVariable(
  {
    id: 'old_blocks_time',
    label: 'innodb_old_blocks_time',
    help: 'Milliseconds a page stays in the old sublist before it may move to the young one.',
    levels: ['1000', '0'],
    defaultLevels: ['1000', '0'],
    scope: 'mysqld',
    syntax: 'a whole number of milliseconds',
    valid: (l) => /^(0|[1-9][0-9]{0,8})$/.test(l),
  },
  () => 'innodb_old_blocks_time',
  (l) => l,
);

export const bpLoad = onOffVariable('bp_load', 'Buffer pool load at start-up', 'innodb_buffer_pool_load_at_startup.', 'innodb_buffer_pool_load_at_startup');

export const dropcaches: Tunable = {
  kind: 'tunable',
  id: 'dropcaches',
  label: 'Drop page cache',
  help: 'sync; echo 3 > /proc/sys/vm/drop_caches before each start (needs root).',
  ...OFF_OR_ON,
  scope: 'host',
  unavailable: (level, host) => (level === 'on' && !host.sudoWithoutPassword ? 'needs root or sudo without a password on this host' : null),
  contribute: (level) => (level === 'on' ? { dropCaches: true } : {}),
  facts: () => [],
  // Nothing to read back: the restart script stops when the drop fails.
  verify: (level) => verdict(true, level === 'on' ? 'page cache dropped before the start' : 'page cache left alone'),
};

/** The name a `variable` factor carries, checked before it can reach a command line or SQL. */
export function variableName(name: string | undefined): string {
  if (!name || !VARIABLE_NAME.test(name)) throw new Error(`server variable name ${JSON.stringify(name ?? '')} is not valid: expected lower-case letters, digits and _`);
  const refused = refusedOptionText(name);
  if (refused) throw new Error(refused);
  return name;
}

export const variable = startupVariable(
  {
    id: 'variable',
    label: 'Server variable',
    help: 'Any server variable, set at start-up and verified with SHOW GLOBAL VARIABLES.',
    levels: [],
    defaultLevels: [],
    scope: 'mysqld',
    needsName: true,
    syntax: 'a number, a word or a size such as 128M',
    valid: (l) => VARIABLE_VALUE.test(l),
  },
  variableName,
  (l) => l,
);

/** Every factor kind, in the order the designer lists them. */
export const REGISTRY: FactorKind[] = [build, aslr, ahi, preload, numa, cpubind, governor, turbo, thp, allocator, oldBlocksTime, bpLoad, dropcaches, variable];

export function factorKind(id: string): FactorKind | undefined {
  return REGISTRY.find((t) => t.id === id);
}

/**
 * The factors of a design that change the host itself, by label: a tunable of host scope (governor,
 * turbo, THP, the page cache) or ASLR at off-host (kernel.randomize_va_space). A run with any holds
 * the host's own lock and record (issue 24, item 8); one without changes only its mysqld.
 */
export function hostWideFactors(factors: readonly { tunable: string; levels: readonly string[] }[]): string[] {
  const out = new Set<string>();
  for (const f of factors) {
    const k = factorKind(f.tunable);
    if (k?.kind === 'tunable' && (k.scope === 'host' || (k.id === 'aslr' && f.levels.includes(HOST_WIDE_OFF)))) out.add(k.label);
  }
  return [...out];
}

export type { Contribution, Fact, Facts, HostFile, LevelContext, Tunable, StepFactor, Verdict };
