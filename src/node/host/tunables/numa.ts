// NUMA memory policy for mysqld through numactl; verified from the policy of its mappings in
// /proc/PID/numa_maps (each line starts with the address and the policy: default, interleave:…, bind:…, prefer:…).
import { check, type Tunable } from './tunable.js';

export function numactlWords(level: string): string[] {
  if (level === 'interleave') return ['--interleave=all'];
  const [kind, node] = level.split(':');
  if (kind === 'bind') return [`--membind=${node}`];
  if (kind === 'preferred') return [`--preferred=${node}`];
  return [];
}

/** Count the mappings by policy word (`interleave`, `bind`, `prefer`, `default`...). */
export function policies(numaMaps: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const line of numaMaps.split('\n')) {
    const policy = line.split(' ')[1];
    if (!policy) continue;
    counts.set(policy, (counts.get(policy) ?? 0) + 1);
  }
  return counts;
}

export const numa: Tunable = {
  id: 'numa',
  plan(level, r) {
    r.numactl.push(...numactlWords(level));
  },
  async verify(level, live) {
    const counts = policies(await live.proc('numa_maps'));
    const total = [...counts.values()].reduce((a, b) => a + b, 0);
    if (total === 0) return check('numa', level, false, `/proc/${live.pid}/numa_maps is empty or unreadable (kernel without NUMA support?)`);
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
    return check('numa', level, ok, `numa_maps policies: ${summary}`);
  },
};
