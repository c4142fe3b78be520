// The catalog of tunables a factor can vary. Pure data and validation: the designer offers these,
// the schema and the backend validate level values with the same functions, so a value that could
// reach a shell (`on; touch /tmp/x`) is refused in the UI, in `varlab validate` and on the host alike.

export interface TunableInfo {
  id: string;
  label: string;
  /** What it changes and how it is verified, one sentence for the designer. */
  help: string;
  /** Levels offered by default in the designer (a user may add others that pass `validLevel`). */
  levels: string[];
  /** Levels switched on when the factor is first added. */
  defaultLevels: string[];
  /** The level that means "leave the host alone": no change, nothing to restore. */
  neutral?: string;
  /** Host-wide tunables need root and a restore record. */
  scope: 'mysqld' | 'host' | 'session';
  /** For `variable`: the factor names a server variable. */
  needsName?: boolean;
  /** A human description of the accepted level syntax, used in error messages. */
  syntax: string;
  valid(level: string): boolean;
}

const oneOf =
  (...values: string[]) =>
  (level: string) =>
    values.includes(level);
const NODE_POLICY = /^(bind|preferred):(0|[1-9][0-9]{0,3})$/;
/** A taskset/numactl CPU list: 0, 8, 0-3, 0,2,4-7. Bounded so a typo cannot become a huge string. */
export const CPU_LIST = /^(0|[1-9][0-9]{0,3})(-(0|[1-9][0-9]{0,3}))?(,(0|[1-9][0-9]{0,3})(-(0|[1-9][0-9]{0,3}))?){0,63}$/;
/** A server variable value: a number, a word, or a size like 128M. No quotes, spaces or shell characters. */
export const VARIABLE_VALUE = /^[A-Za-z0-9_.+-]{1,64}$/;
/** A server variable name as MySQL and MariaDB spell them. */
export const VARIABLE_NAME = /^[a-z][a-z0-9_]{1,63}$/;

export const TUNABLES: TunableInfo[] = [
  {
    id: 'aslr',
    label: 'ASLR',
    help: 'Address-space layout randomization for mysqld. "off" starts mysqld under setarch -R (the host keeps its own setting); "off-host" sets kernel.randomize_va_space=0 for the run and puts it back. Verified from the personality flag or the live process.',
    levels: ['on', 'off', 'off-host'],
    defaultLevels: ['on', 'off'],
    neutral: 'on',
    scope: 'mysqld',
    syntax: 'on, off or off-host',
    valid: oneOf('on', 'off', 'off-host'),
  },
  {
    id: 'ahi',
    label: 'Adaptive hash index',
    help: 'innodb_adaptive_hash_index at start-up; verified with SELECT @@innodb_adaptive_hash_index.',
    levels: ['on', 'off'],
    defaultLevels: ['on', 'off'],
    scope: 'mysqld',
    syntax: 'on or off',
    valid: oneOf('on', 'off'),
  },
  {
    id: 'preload',
    label: 'Preload',
    help: 'After start, scan every table and index of the workload schemas before measuring.',
    levels: ['off', 'on'],
    defaultLevels: ['off', 'on'],
    neutral: 'off',
    scope: 'session',
    syntax: 'off or on',
    valid: oneOf('off', 'on'),
  },
  {
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
  },
  {
    id: 'cpubind',
    label: 'CPU binding',
    help: 'taskset CPU list for mysqld; verified from Cpus_allowed_list in /proc/PID/status.',
    levels: ['none', '0', '1'],
    defaultLevels: ['none', '0'],
    neutral: 'none',
    scope: 'mysqld',
    syntax: 'none or a CPU list such as 8 or 0-3',
    valid: (l) => l === 'none' || CPU_LIST.test(l),
  },
  {
    id: 'governor',
    label: 'CPU governor',
    help: 'cpufreq scaling governor on every CPU (host-wide, restored afterwards).',
    levels: ['unchanged', 'performance', 'powersave', 'schedutil', 'ondemand'],
    defaultLevels: ['unchanged', 'performance'],
    neutral: 'unchanged',
    scope: 'host',
    syntax: 'unchanged, performance, powersave, schedutil or ondemand',
    valid: oneOf('unchanged', 'performance', 'powersave', 'schedutil', 'ondemand'),
  },
  {
    id: 'turbo',
    label: 'Turbo boost',
    help: 'intel_pstate no_turbo or cpufreq boost (host-wide, restored afterwards).',
    levels: ['unchanged', 'on', 'off'],
    defaultLevels: ['unchanged', 'off'],
    neutral: 'unchanged',
    scope: 'host',
    syntax: 'unchanged, on or off',
    valid: oneOf('unchanged', 'on', 'off'),
  },
  {
    id: 'thp',
    label: 'Transparent huge pages',
    help: '/sys/kernel/mm/transparent_hugepage/enabled (host-wide, restored afterwards).',
    levels: ['unchanged', 'always', 'madvise', 'never'],
    defaultLevels: ['unchanged', 'never'],
    neutral: 'unchanged',
    scope: 'host',
    syntax: 'unchanged, always, madvise or never',
    valid: oneOf('unchanged', 'always', 'madvise', 'never'),
  },
  {
    id: 'allocator',
    label: 'Memory allocator',
    help: 'LD_PRELOAD of jemalloc or tcmalloc for mysqld; verified in /proc/PID/maps.',
    levels: ['default', 'jemalloc', 'tcmalloc'],
    defaultLevels: ['default', 'jemalloc'],
    neutral: 'default',
    scope: 'mysqld',
    syntax: 'default, jemalloc or tcmalloc',
    valid: oneOf('default', 'jemalloc', 'tcmalloc'),
  },
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
  {
    id: 'bp_load',
    label: 'Buffer pool load at start-up',
    help: 'innodb_buffer_pool_load_at_startup.',
    levels: ['on', 'off'],
    defaultLevels: ['on', 'off'],
    scope: 'mysqld',
    syntax: 'on or off',
    valid: oneOf('on', 'off'),
  },
  {
    id: 'dropcaches',
    label: 'Drop page cache',
    help: 'sync; echo 3 > /proc/sys/vm/drop_caches before each start (needs root).',
    levels: ['off', 'on'],
    defaultLevels: ['off', 'on'],
    neutral: 'off',
    scope: 'host',
    syntax: 'off or on',
    valid: oneOf('off', 'on'),
  },
  {
    id: 'variable',
    label: 'Server variable',
    help: 'Any server variable, set at start-up and verified with SELECT @@name.',
    levels: [],
    defaultLevels: [],
    scope: 'mysqld',
    needsName: true,
    syntax: 'a number, a word or a size such as 128M',
    valid: (l) => VARIABLE_VALUE.test(l),
  },
];

export function tunable(id: string): TunableInfo | undefined {
  return TUNABLES.find((t) => t.id === id);
}

/** Why a level is not acceptable for a tunable, or null when it is. */
export function levelProblem(tunableId: string, level: string): string | null {
  const t = tunable(tunableId);
  if (!t) return `unknown tunable "${tunableId}" (known: ${TUNABLES.map((x) => x.id).join(', ')})`;
  if (!t.valid(level)) return `level ${JSON.stringify(level)} is not valid for ${t.label}: expected ${t.syntax}`;
  return null;
}
