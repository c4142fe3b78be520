// What a command needs from the outside world, so tests can run commands in-process if they wish.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { visible } from '../common/printable.js';
import { parseAdjustment, type Adjustment } from '../common/stats/adjust.js';

export interface CliIO {
  out(line: string): void;
  err(line: string): void;
  /** True when stdout is a terminal (progress bars, colours). */
  tty: boolean;
}

/** Everything a command prints goes through visible(): a label from a file cannot drive the terminal. */
export const processIO: CliIO = {
  out: (line) => process.stdout.write(visible(line) + '\n'),
  err: (line) => process.stderr.write(visible(line) + '\n'),
  tty: Boolean(process.stdout.isTTY),
};

/** A usage error: main prints it with the command's help hint and exits 2. */
export class UsageError extends Error {}

/** A command's module exports one of these; its one-line summary lives in main.ts's list, so help loads no command. */
export interface Command {
  name: string;
  usage: string;
  run(argv: string[], io: CliIO): Promise<number>;
}

/**
 * Options every command takes: the size limits experiment files are checked against (see
 * common/experiment/limits.ts). They are handed on as VARLAB_MAX_CELLS / VARLAB_MAX_RESTARTS, which
 * every reader of experiment files in this process (and a child it starts) applies. A command that
 * gives one of these names a meaning of its own (run and analyze: --max-restarts is stop when
 * answered's maximum per cell) keeps it: the same number as a limit of all the file's restarts refused
 * `run ab.varlab.json --until-answered --max-restarts 40` once the file held 2 cells × 40.
 */
const LIMIT_OPTIONS = { 'max-cells': { type: 'string' }, 'max-restarts': { type: 'string' } } as const;
export const LIMITS_USAGE = '--max-cells N, --max-restarts N   raise the size limits for experiment files (default 10,000 cells, 100,000 restarts;\n                                  in run and analyze --max-restarts is stop when answered\'s maximum: use VARLAB_MAX_RESTARTS=N)';

/** node:util parseArgs with errors turned into UsageError, --help detected and the limit options applied. */
export function parse<T extends NonNullable<ParseArgsConfig['options']>>(argv: string[], options: T, allowPositionals = true) {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: { ...options, ...LIMIT_OPTIONS, help: { type: 'boolean', short: 'h' } }, allowPositionals, strict: true });
  } catch (e) {
    // Node's words for a typo ("Unknown option '--jsn'. To specify a positional argument starting with a '-',
    // place it at the end of the command after '--', as in '-- "--jsn"") name neither the option meant nor
    // the command: the nearest option is named instead, the positional hint kept for a name that is near none.
    const unknown = (e as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? /Unknown option '([^']+)'/.exec((e as Error).message)?.[1] : undefined;
    if (unknown === undefined) throw new UsageError((e as Error).message);
    const meant = nearest(unknown.replace(/^-+/, '').split('=')[0], [...Object.keys(options), ...Object.keys(LIMIT_OPTIONS), 'help']);
    throw new UsageError(`unknown option ${unknown}${meant ? `; did you mean --${meant}?` : ' (a FILE whose name starts with - goes after --)'}`);
  }
  const values = parsed.values as Record<string, unknown>;
  for (const [option, env] of [['max-cells', 'VARLAB_MAX_CELLS'], ['max-restarts', 'VARLAB_MAX_RESTARTS']] as const) {
    if (option in options) continue;
    const n = numberOption(option, values[option] as string | undefined, { min: 1, max: 1e15, integer: true });
    if (n !== undefined) process.env[env] = String(n);
  }
  return parsed;
}

/** The candidate a mistyped word was most likely meant to be (at most 2 edits, fewer than half its letters), or null. */
export function nearest(word: string, candidates: readonly string[]): string | null {
  let best: string | null = null;
  let bestDistance = Math.min(2, Math.ceil(word.length / 2) - 1) + 1;
  for (const c of candidates) {
    const d = editDistance(word, c);
    if (d < bestDistance) [best, bestDistance] = [c, d];
  }
  return best;
}

/** Levenshtein distance: insertions, deletions and substitutions of one character each. */
function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length];
}

/** Parse a number option, naming the option when it is not a number in range. */
export function numberOption(name: string, value: string | undefined, opts: { min?: number; max?: number; integer?: boolean } = {}): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  const { min = -Infinity, max = Infinity, integer = false } = opts;
  if (value.trim() === '' || !Number.isFinite(n) || (integer && !Number.isInteger(n)) || n < min || n > max) {
    const kind = integer ? 'a whole number' : 'a number';
    const range = Number.isFinite(min) && Number.isFinite(max) ? ` from ${min} to ${max}` : Number.isFinite(min) ? ` of at least ${min}` : '';
    throw new UsageError(`--${name}: expected ${kind}${range}, got ${JSON.stringify(value)}`);
  }
  return n;
}

/** A probability option (--alpha, --power): strictly between 0 and 1. */
export function probabilityOption(name: string, value: string | undefined): number | undefined {
  const n = numberOption(name, value, { min: 0, max: 1 });
  if (n !== undefined && (n <= 0 || n >= 1)) throw new UsageError(`--${name}: expected a number between 0 and 1 (exclusive), got ${JSON.stringify(value)}`);
  return n;
}

/** --adjust holm|bh: how the p-values of comparisons shown together are adjusted. */
export function adjustmentOption(value: string | undefined): Adjustment | undefined {
  if (value === undefined) return undefined;
  const a = parseAdjustment(value);
  if (!a) throw new UsageError(`--adjust: expected holm or bh, got ${JSON.stringify(value)}`);
  return a;
}
