// The catalog of factors the designer offers: the tunable registry itself (src/common/tunables),
// seen through what every layer needs (label, levels, validation). The designer, the schema and the
// backend validate level values with the same functions, so a value that could reach a shell
// (`on; touch /tmp/x`) is refused in the UI, in `varlab validate` and on the host alike.
import { factorKind, REGISTRY } from './tunables/registry.js';
import type { TunableInfo } from './tunables/types.js';

export type { TunableInfo };
export { CPU_LIST, VARIABLE_NAME, VARIABLE_VALUE } from './tunables/registry.js';

export const TUNABLES: readonly TunableInfo[] = REGISTRY;

export function tunable(id: string): TunableInfo | undefined {
  return factorKind(id);
}

/** Why a level is not acceptable for a tunable, or null when it is. */
export function levelProblem(tunableId: string, level: string): string | null {
  const t = tunable(tunableId);
  if (!t) return `unknown tunable ${JSON.stringify(tunableId)} (known: ${TUNABLES.map((x) => x.id).join(', ')})`;
  if (!t.valid(level)) return `level ${JSON.stringify(level)} is not valid for ${t.label}: expected ${t.syntax}`;
  return null;
}
