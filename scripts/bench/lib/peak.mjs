// Preloaded into a benchmarked command (node --import): at exit it writes the process's own peak
// resident memory and the CPU seconds of the process and of its children to the file named by
// VARLAB_BENCH_USAGE. Plain JavaScript, tiny.
//
// The children's CPU from the kernel (cutime + cstime) counts only the processes that were waited
// for, and Chromium's renderers are not: they are the zygote's children, and at close the browser
// exits first, so they end reparented and their CPU reaches no one here. For export that left out
// most of what the figures cost. With VARLAB_BENCH_TREE set, the process tree is also sampled from
// /proc every 250 ms (each descendant's own CPU as last seen), and the larger of the two counts.
import { appendFileSync, readdirSync, readFileSync } from 'node:fs';

/** Fields of /proc/PID/stat after the command name: [0] state, [1] ppid, [11] utime, [12] stime, [13] cutime, [14] cstime, [19] starttime. */
function statFields(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** Children's CPU seconds from /proc (in USER_HZ = 100 ticks a second on Linux); 0 elsewhere. */
function childrenCpu() {
  try {
    const fields = statFields('self');
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return 0;
  }
}

/** Each descendant's own CPU seconds as last seen, by pid and start time (a pid may be reused). */
const seen = new Map();
function sampleTree() {
  const parent = new Map();
  const cpu = new Map();
  let entries = [];
  try {
    entries = readdirSync('/proc');
  } catch {
    return;
  }
  for (const d of entries) {
    if (d.charCodeAt(0) < 48 || d.charCodeAt(0) > 57) continue;
    try {
      const f = statFields(d);
      parent.set(d, f[1]);
      cpu.set(d, [`${d}@${f[19]}`, (Number(f[11]) + Number(f[12])) / 100]);
    } catch {
      // gone meanwhile
    }
  }
  const me = String(process.pid);
  for (const [pid, [key, seconds]] of cpu) {
    let p = parent.get(pid);
    for (let depth = 0; depth < 16 && p && p !== '0' && p !== me; depth++) p = parent.get(p);
    if (p === me) seen.set(key, seconds);
  }
}

if (process.env.VARLAB_BENCH_TREE) setInterval(sampleTree, 250).unref();

process.on('exit', () => {
  const u = process.resourceUsage();
  const sampled = [...seen.values()].reduce((a, b) => a + b, 0);
  const own = (u.userCPUTime + u.systemCPUTime) / 1e6;
  // Peak RSS (KiB), CPU seconds with the children, and with only the children waited for.
  if (process.env.VARLAB_BENCH_USAGE) appendFileSync(process.env.VARLAB_BENCH_USAGE, `${u.maxRSS} ${own + Math.max(childrenCpu(), sampled)} ${own + childrenCpu()}\n`);
});
