// How big and how deep an experiment file may be, checked before anything is expanded or walked:
// a teammate's file (or a typo) must not make `validate` take minutes and gigabytes. The size limits
// are the user's to raise (`--max-cells`, `--max-restarts`, or VARLAB_MAX_CELLS / VARLAB_MAX_RESTARTS
// for the app); the depth limit is fixed, as no valid file comes near it.
import type { Factor } from './types.js';
import { jsonPath } from './paths.js';

export interface ExperimentLimits {
  /** Cells of the full factorial design (excluded ones included): the product of the level counts. */
  maxCells: number;
  /** Scheduled restarts: included cells × restarts per cell. */
  maxRestarts: number;
}

/** Generous for a real experiment (10,000 restarts of 10 s each already take 28 h). */
export const DEFAULT_LIMITS: ExperimentLimits = { maxCells: 10_000, maxRestarts: 100_000 };

/** How deep objects and arrays may nest; a valid file nests about 6 deep. */
export const MAX_DEPTH = 32;

/** How to raise a limit, said the same way wherever a limit refuses a file. */
export const RAISE_CELLS = 'raise the limit with --max-cells N (VARLAB_MAX_CELLS=N for the app)';
// run and analyze keep --max-restarts for stop when answered's maximum per cell: the environment raises the limit there.
export const RAISE_RESTARTS = 'raise the limit with --max-restarts N (VARLAB_MAX_RESTARTS=N for the app, and for run and analyze, whose --max-restarts is stop when answered\'s maximum)';

/** The number of cells a design expands to, from the level counts alone (nothing is expanded). */
export function cellCount(factors: Pick<Factor, 'levels'>[]): number {
  return factors.reduce((n, f) => n * f.levels.length, 1);
}

/** `33,554,432`: counts in messages, grouped so that the size is read at a glance. */
export const count = (n: number) => n.toLocaleString('en-US');

/**
 * Where a JSON value nests deeper than `max` objects and arrays, as a problem line, or null. Walks
 * without recursion, so a file nested 100,000 deep is refused with its path instead of a RangeError.
 */
export function nestingProblem(value: unknown, max = MAX_DEPTH): string | null {
  type Frame = { v: object; depth: number; key: string | number; parent: Frame | null };
  const pathOf = (f: Frame | null): (string | number)[] => {
    const path: (string | number)[] = [];
    for (; f?.parent; f = f.parent) path.unshift(f.key);
    return path;
  };
  if (!value || typeof value !== 'object') return null;
  const stack: Frame[] = [{ v: value, depth: 0, key: '', parent: null }];
  while (stack.length) {
    const frame = stack.pop()!;
    if (frame.depth >= max) return `${jsonPath(pathOf(frame))}: nested more than ${max} levels deep`;
    // Only objects and arrays are pushed: a million numbers in a values array cost nothing here.
    const push = (key: string | number, v: unknown) => {
      if (v && typeof v === 'object') stack.push({ v, depth: frame.depth + 1, key, parent: frame });
    };
    if (Array.isArray(frame.v)) for (let i = 0; i < frame.v.length; i++) push(i, frame.v[i]);
    else for (const key of Object.keys(frame.v)) push(key, (frame.v as Record<string, unknown>)[key]);
  }
  return null;
}
