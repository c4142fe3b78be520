// Pure edits of a design's factors and cells. Cell ids depend on the factors (their order, their
// levels), so every change of factors carries the exclusions over to the new cells by meaning:
// a new cell stays excluded when every old cell it stands for was excluded.
import { TUNABLES, levelProblem, tunable, type TunableInfo } from '../../../common/catalog.js';
import { expandCells, factorKey } from '../../../common/plan.js';
import type { Design, Factor } from '../../../common/experiment/types.js';
import { refusedOptionText } from '../../../common/tunables/variables.js';

/** Exclusions of `old` re-expressed for a design whose factors are `factors`. */
export function carryExclusions(old: Pick<Design, 'factors' | 'excludedCells'>, factors: Factor[]): string[] {
  if (old.excludedCells.length === 0) return [];
  const oldCells = expandCells(old);
  const oldKeys = new Set(old.factors.map(factorKey));
  const shared = factors.map(factorKey).filter((k) => oldKeys.has(k));
  const excluded: string[] = [];
  for (const cell of expandCells({ factors, excludedCells: [] })) {
    const matching = oldCells.filter((o) => shared.every((k) => o.levels[k] === cell.levels[k]));
    if (matching.length > 0 && matching.every((o) => o.excluded)) excluded.push(cell.id);
  }
  return excluded;
}

/** Replace the factors and keep the exclusions that still mean something. */
export function withFactors(design: Design, factors: Factor[]): Design {
  return { ...design, factors, excludedCells: carryExclusions(design, factors) };
}

/**
 * Every level a chip is shown for: the catalog's (for a build factor, `offered`: the builds registered
 * for the design's hosts), then the custom ones this factor uses.
 */
export function levelChoices(f: Factor, offered: string[] = []): string[] {
  const catalog = [...(tunable(f.tunable)?.levels ?? []), ...offered];
  return [...catalog, ...f.levels.filter((l) => !catalog.includes(l))];
}

/** A new factor for a tunable with its default levels (a build factor: every build `offered`). */
export function newFactor(tunableId: string, offered: string[] = []): Factor {
  const t = tunable(tunableId);
  return t?.needsName ? { tunable: tunableId, name: '', levels: [] } : { tunable: tunableId, levels: [...(t?.defaultLevels ?? []), ...offered] };
}

export function addFactor(design: Design, tunableId: string, offered: string[] = []): Design {
  return withFactors(design, [...design.factors, newFactor(tunableId, offered)]);
}

export function removeFactor(design: Design, index: number): Design {
  return withFactors(
    design,
    design.factors.filter((_, i) => i !== index),
  );
}

export function moveFactor(design: Design, index: number, delta: -1 | 1): Design {
  const to = index + delta;
  if (to < 0 || to >= design.factors.length) return design;
  const factors = design.factors.slice();
  [factors[index], factors[to]] = [factors[to], factors[index]];
  return withFactors(design, factors);
}

/**
 * Switch a level on or off. Levels keep the order of the chips, so the grid does not reshuffle.
 * Returns a message instead when the switch would leave the factor without a level.
 */
export function toggleLevel(design: Design, index: number, level: string, offered: string[] = []): Design | string {
  const f = design.factors[index];
  const on = f.levels.includes(level);
  if (on && f.levels.length === 1) return `${tunable(f.tunable)?.label ?? f.tunable} needs at least 1 level: remove the factor instead`;
  const choices = levelChoices(f, offered);
  const levels = choices.filter((l) => (l === level ? !on : f.levels.includes(l)));
  return withFactors(
    design,
    design.factors.map((x, i) => (i === index ? { ...x, levels } : x)),
  );
}

/** Why a custom level cannot be added, or null when it can. */
export function customLevelProblem(f: Factor, level: string): string | null {
  if (!level.trim()) return 'type a level first';
  if (f.levels.includes(level)) return `level "${level}" is already switched on`;
  return levelProblem(f.tunable, level);
}

export function addLevel(design: Design, index: number, level: string): Design | string {
  const f = design.factors[index];
  const problem = customLevelProblem(f, level);
  if (problem) return problem;
  return withFactors(
    design,
    design.factors.map((x, i) => (i === index ? { ...x, levels: [...x.levels, level] } : x)),
  );
}

/** Why a server variable's name is not acceptable, or null. */
export function variableNameProblem(design: Design, index: number, name: string): string | null {
  if (!/^[a-z][a-z0-9_]{1,63}$/.test(name)) return 'a server variable name: lower-case letters, digits and _, such as innodb_buffer_pool_size';
  const refused = refusedOptionText(name);
  if (refused) return refused;
  if (design.factors.some((f, i) => i !== index && factorKey(f) === name)) return `"${name}" is already a factor`;
  return null;
}

export function renameVariable(design: Design, index: number, name: string): Design {
  return withFactors(
    design,
    design.factors.map((x, i) => (i === index ? { ...x, name } : x)),
  );
}

export function toggleCell(design: Design, id: string): Design {
  const excluded = design.excludedCells.includes(id)
    ? design.excludedCells.filter((c) => c !== id)
    : [...design.excludedCells, id];
  return { ...design, excludedCells: excluded };
}

/** Tunables that can still be added (a server variable may be added more than once, by name). */
export function addableTunables(design: Design): TunableInfo[] {
  const used = new Set(design.factors.map((f) => f.tunable));
  return TUNABLES.filter((t) => t.needsName || !used.has(t.id));
}
