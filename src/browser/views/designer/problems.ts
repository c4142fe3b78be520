// What is wrong with a design, field by field, as the designer shows it inline: the same rules the
// backend checks on open and save (src/common/experiment/rules.ts), plus typed-number checks.
export { designProblems, problemLines, type Problems } from '../../../common/experiment/rules.js';

/** Why a typed number is not acceptable for a field, or null. */
export function numberProblem(text: string, opts: { min: number; max: number; integer: boolean }): string | null {
  if (!/^\s*-?\d+(\.\d+)?\s*$/.test(text)) return opts.integer ? 'a whole number' : 'a number';
  const n = Number(text);
  if (opts.integer && !Number.isInteger(n)) return 'a whole number';
  if (n < opts.min) return `at least ${opts.min}`;
  if (n > opts.max) return `at most ${opts.max}`;
  return null;
}
