// What a tunable is, in the spirit of pyperf's _system.py: one object that knows its levels, what
// it contributes to a restart, which facts prove it took effect and how to judge them, and which
// host files it restores. Pure data and functions: the designer, the validator, the dry run and the
// run all use the same objects. Turning a contribution into shell text is the host layer's job
// (src/node/host/script.ts); reading the facts on the target is too.
import type { Build } from '../experiment/types.js';
import type { HostFingerprint } from '../host.js';

/** What the designer shows and the validator checks: the part of a factor kind every layer needs. */
export interface TunableInfo {
  id: string;
  label: string;
  /** What it changes and how it is verified, one sentence for the designer. */
  help: string;
  /** Levels offered by default in the designer (a user may add others that pass `valid`). */
  levels: string[];
  /** Levels switched on when the factor is first added. */
  defaultLevels: string[];
  /** The level that means "leave the host alone": no change, nothing to restore. */
  neutral?: string;
  /** mysqld: applied to the server process; host: a host-wide setting (root, restored); session: a restart step. */
  scope: 'mysqld' | 'host' | 'session';
  /** For `variable`: the factor names a server variable. */
  needsName?: boolean;
  /** A human description of the accepted level syntax, used in error messages. */
  syntax: string;
  valid(level: string): boolean;
}

/**
 * A host-wide file varlab may write. The root is a parameter of the host layer (sysfs, /proc/sys),
 * so tests point it at a temporary tree. `perCpu` files are one per CPU: `cpu*` in `path` stands for
 * cpu0, cpu1 … and is expanded on the host from a constant pattern, never from a level or a record.
 */
export interface HostFile {
  id: 'governor' | 'no_turbo' | 'boost' | 'thp' | 'randomize_va_space';
  root: 'sys' | 'proc-sys';
  path: string;
  perCpu?: boolean;
  /** How the current value is read: the whole file, or the [bracketed] choice of a sysfs list (THP). */
  read: 'cat' | 'bracketed';
}

/** A fact read after the start to verify a level. Process facts are about the live mysqld. */
export type Fact =
  | { kind: 'personality' } // /proc/PID/personality, hex
  | { kind: 'cpus' } // Cpus_allowed_list from /proc/PID/status
  | { kind: 'numa' } // policy counts of /proc/PID/numa_maps: `policy count` per line
  | { kind: 'allocators' } // jemalloc/tcmalloc libraries mapped in /proc/PID/maps, one per line
  | { kind: 'file'; file: HostFile } // a host file's value(s), one per line
  | { kind: 'variable'; name: string } // a global server variable (SHOW GLOBAL VARIABLES)
  | { kind: 'exe' }; // sha256 and resolved path of /proc/PID/exe: `HEX /path`

export const factKey = (f: Fact): string => (f.kind === 'file' ? `file:${f.file.id}` : f.kind === 'variable' ? `variable:${f.name}` : f.kind);

/** Facts by factKey; null when it could not be read (no such variable, an unreadable file). */
export type Facts = Record<string, string | null>;

/** What one level adds to a restart. Every value in it is validated (a level, a probed path). */
export interface Contribution {
  /** LD_PRELOAD for mysqld: the library path the probe found on this host. */
  preload?: string;
  /** numactl policy words, e.g. ['--interleave=all']. */
  numactl?: string[];
  /** taskset CPU list. */
  taskset?: string;
  /** Start under `setarch ARCH -R` (ASLR off for this mysqld only). */
  noRandomize?: boolean;
  /** mysqld options, `--name=value`. */
  options?: string[];
  /** Host files to write before the start (their originals saved in the restore record first). */
  set?: { file: HostFile; value: string }[];
  /** sync and drop the page cache before the start. */
  dropCaches?: boolean;
  /** Start this build (its binary, on its own data directory) instead of the profile's mysqld. */
  server?: Pick<Build, 'name' | 'mysqld' | 'datadir' | 'basedir'>;
}

/** What a tunable may look at besides the level: the variable's name, and the probed host. */
export interface LevelContext {
  name?: string;
  host: HostFingerprint;
  /** The builds registered for the profile's target (the `build` factor's levels). */
  builds?: Build[];
}

export interface Verdict {
  ok: boolean;
  /** What was read, for people: `personality 0x0040000: ADDR_NO_RANDOMIZE set (ASLR off)`. */
  observed: string;
}

/** Something applied to a restart, verified on the live server, and restored. */
export interface Tunable extends TunableInfo {
  kind: 'tunable';
  /** Why this tunable, or this level of it, cannot be used on this host; null when it can. */
  unavailable?(level: string, host: HostFingerprint, ctx?: LevelContext): string | null;
  contribute(level: string, ctx: LevelContext): Contribution;
  /** Host files this tunable may change: a neutral level puts them back from the restore record. */
  files?(host: HostFingerprint): HostFile[];
  facts(level: string, ctx: LevelContext): Fact[];
  verify(level: string, facts: Facts, ctx: LevelContext): Verdict;
}

/** A factor whose level switches a restart step on (preload), rather than changing the server. */
export interface StepFactor extends TunableInfo {
  kind: 'step';
  step(level: string): 'preload' | null;
}

export type FactorKind = Tunable | StepFactor;
