// Which way is better for a unit: times fall when things improve, throughput rises. The sign convention
// of effects and the steady-state classes (a warm-up gets better, a slowdown worse) both read it.

/** Whether a larger value is better: from the workload when it says, else from the unit. Null when unknown. */
export function higherIsBetter(unit: string | null | undefined, declared?: boolean): boolean | null {
  if (declared !== undefined) return declared;
  const u = (unit ?? '').trim().toLowerCase();
  if (['ns', 'us', 'µs', 'ms', 's', 'sec', 'seconds', 'ms/query'].includes(u)) return false;
  if (/^(tps|qps|ops|ops\/s|rows\/s|queries\/s|transactions\/s|events\/s)$/.test(u)) return true;
  return null;
}
