// Host-wide settings: the CPU governor, turbo boost, transparent huge pages, and ASLR for the whole
// host. Each writes a sysfs/procfs file as root; the original goes into the restore record on the
// host first (see restore.ts), and verification reads the file back after the start.
import { check, type HostChange, type Tunable } from './tunable.js';

export const GOVERNOR_FILES = '/sys/devices/system/cpu/cpu[0-9]*/cpufreq/scaling_governor';
export const THP_FILE = '/sys/kernel/mm/transparent_hugepage/enabled';
export const NO_TURBO_FILE = '/sys/devices/system/cpu/intel_pstate/no_turbo';
export const BOOST_FILE = '/sys/devices/system/cpu/cpufreq/boost';
export const ASLR_FILE = '/proc/sys/kernel/randomize_va_space';

function hostFile(id: string, files: string, read: HostChange['read'], value: (level: string) => string, neutral = 'unchanged'): Tunable {
  return {
    id,
    hostFiles: files,
    plan(level, r) {
      if (level !== neutral) r.host.push({ tunable: id, files, value: value(level), read });
    },
    async verify(level, live) {
      const raw = (await live.hostFile(files)).trim();
      const values = [...new Set(raw.split('\n').filter(Boolean).map((l) => (read === 'bracketed' ? /\[(\w+)\]/.exec(l)?.[1] ?? l : l.trim())))];
      const observed = values.length ? `${files}: ${values.join(', ')}` : `${files}: not present on this host`;
      if (level === neutral) return check(id, level, true, observed);
      return check(id, level, values.length === 1 && values[0] === value(level), observed);
    },
  };
}

export const governor = hostFile('governor', GOVERNOR_FILES, 'cat', (l) => l);
export const thp = hostFile('thp', THP_FILE, 'bracketed', (l) => l);
/** Turbo: intel_pstate says it backwards (no_turbo=1 means off); other drivers use cpufreq/boost. */
export const turboIntel = hostFile('turbo', NO_TURBO_FILE, 'cat', (l) => (l === 'off' ? '1' : '0'));
export const turboBoost = hostFile('turbo', BOOST_FILE, 'cat', (l) => (l === 'off' ? '0' : '1'));
/** Host-wide ASLR (kernel.randomize_va_space): off = 0, on = 2. Always restored, never left off. */
export const hostAslr = hostFile('aslr-host', ASLR_FILE, 'cat', (l) => (l === 'off' ? '0' : '2'), 'unchanged');

export const dropcaches: Tunable = {
  id: 'dropcaches',
  plan(level, r) {
    if (level === 'on') r.beforeStart.push('sync && echo 3 > /proc/sys/vm/drop_caches');
  },
  async verify(level) {
    // Nothing to read back: the command's success was checked when it ran.
    return check('dropcaches', level, true, level === 'on' ? 'page cache dropped before the start' : 'page cache left alone');
  },
};
