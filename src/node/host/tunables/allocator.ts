// A memory allocator for mysqld by LD_PRELOAD; verified from the libraries mapped in /proc/PID/maps.
import { check, type Tunable } from './tunable.js';

/** Library names as Debian, RHEL and SUSE install them; the first that exists on the target is used. */
export const ALLOCATOR_LIBS: Record<string, string[]> = {
  jemalloc: ['/usr/lib/x86_64-linux-gnu/libjemalloc.so.2', '/usr/lib/aarch64-linux-gnu/libjemalloc.so.2', '/usr/lib64/libjemalloc.so.2', '/usr/lib/libjemalloc.so.2'],
  tcmalloc: ['/usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4', '/usr/lib/x86_64-linux-gnu/libtcmalloc.so.4', '/usr/lib64/libtcmalloc_minimal.so.4', '/usr/lib64/libtcmalloc.so.4'],
};

export const allocator: Tunable = {
  id: 'allocator',
  plan(level, r) {
    // The start command picks the first library that exists (see server.ts); here the candidates.
    if (level !== 'default') r.env.LD_PRELOAD = ALLOCATOR_LIBS[level].join(' ');
  },
  async verify(level, live) {
    const maps = await live.proc('maps');
    const libs = [...new Set(maps.split('\n').map((l) => l.split(/\s+/)[5]).filter((p) => p && /lib(jemalloc|tcmalloc)/.test(p)))];
    const observed = libs.length ? `mapped: ${libs.join(', ')}` : 'no jemalloc or tcmalloc mapped (glibc malloc)';
    const ok = level === 'default' ? libs.length === 0 : libs.some((p) => p.includes(`lib${level}`));
    return check('allocator', level, ok, observed);
  },
};
