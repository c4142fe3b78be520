// Preloaded into a benchmarked command (node --import): at exit it writes the process's own peak
// resident memory and the CPU seconds of the process and of the children it waited for (Chromium, for
// export) to the file named by VARLAB_BENCH_USAGE. Plain JavaScript, tiny.
import { appendFileSync, readFileSync } from 'node:fs';

/** Children's CPU seconds from /proc (cutime + cstime, in USER_HZ = 100 ticks a second on Linux); 0 elsewhere. */
function childrenCpu() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return 0;
  }
}

process.on('exit', () => {
  const u = process.resourceUsage();
  if (process.env.VARLAB_BENCH_USAGE) appendFileSync(process.env.VARLAB_BENCH_USAGE, `${u.maxRSS} ${(u.userCPUTime + u.systemCPUTime) / 1e6 + childrenCpu()}\n`);
});
