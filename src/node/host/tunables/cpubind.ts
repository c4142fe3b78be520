// CPU binding for mysqld through taskset; verified from Cpus_allowed_list in /proc/PID/status.
import { check, type Tunable } from './tunable.js';

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

export const cpubind: Tunable = {
  id: 'cpubind',
  plan(level, r) {
    if (level !== 'none') r.taskset = level;
  },
  async verify(level, live) {
    const m = /^Cpus_allowed_list:\s*(\S+)/m.exec(await live.proc('status'));
    if (!m) return check('cpubind', level, false, `no Cpus_allowed_list in /proc/${live.pid}/status`);
    const observed = `Cpus_allowed_list ${m[1]}`;
    if (level === 'none') return check('cpubind', level, true, observed);
    return check('cpubind', level, cpuSet(m[1]).join(',') === cpuSet(level).join(','), observed);
  },
};
