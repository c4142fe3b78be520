// A restart as a list of typed steps, computed once from the levels (a map), the server profile and
// the probed host. The run executes it, the dry run and the Hosts view show it, and the detached
// runner compiles it: all from this one list. The host layer turns the target steps (stop … the
// facts of verify) into one shell script per restart (src/node/host/script.ts).
import { ApiError } from './api.js';
import type { Build, Factor, ServerProfile, TunableCheck } from './experiment/types.js';
import type { HostFingerprint } from './host.js';
import { factorKey } from './plan.js';
import { checkProfile, profileOptions, type ProfileOption } from './profile.js';
import { factorKind, variableName } from './tunables/registry.js';
import { factKey, type Contribution, type Fact, type FactorKind, type HostFile, type LevelContext, type Tunable } from './tunables/types.js';

/** How mysqld is wrapped for one restart, outermost first: env LD_PRELOAD, numactl, taskset, setarch. */
export interface StartWrapper {
  preload?: string;
  numactl: string[];
  taskset?: string;
  /** Start under `setarch ARCH -R`: the probed architecture. */
  setarch?: string;
}

/** The binary and data directory a restart starts when a build factor chose them. */
export type StartServer = NonNullable<Contribution['server']>;

/** One factor of the cell with its level and what it is. */
export interface CellFactor {
  key: string;
  factor: Factor;
  level: string;
  kind: FactorKind;
}

export type RestartStep =
  /** Stop mysqld and wait until the process has exited. */
  | { kind: 'stop'; via: 'signal' | 'systemd'; timeoutS: number }
  /** Put host files back from the restore record: a host-wide tunable at its neutral level. */
  | { kind: 'restore'; tunable: string; files: HostFile[] }
  /** Save a host file's original in the restore record, then write the level's value. */
  | { kind: 'set'; tunable: string; file: HostFile; value: string }
  | { kind: 'drop-caches' }
  /** The design's idle time, with mysqld stopped, just before the start: the same before every restart (as the seeds keep it). */
  | { kind: 'idle'; seconds: number }
  /** server: the build this restart starts (its binary on its own data directory), else the profile's mysqld. */
  | { kind: 'start'; via: 'direct' | 'systemd'; wrapper: StartWrapper; options: string[]; server?: StartServer }
  /** Wait on the target until mysqld listens (or has died), without a round trip per poll. */
  | { kind: 'wait-ready'; timeoutS: number }
  /** Read the facts (process and host files on the target, variables on the server) and judge each level. */
  | { kind: 'verify'; facts: Fact[]; options: ProfileOption[] }
  | { kind: 'preload'; schemas: string[] }
  | { kind: 'workload' };

export type StepKind = RestartStep['kind'];

/** Steps that run on the target inside the one restart script (verify: its process and file facts). */
export const TARGET_STEPS: readonly StepKind[] = ['stop', 'restore', 'set', 'idle', 'drop-caches', 'start', 'wait-ready', 'verify'];

/** Facts read on the target itself, in the restart script; the others are asked of the server. */
export const onTarget = (f: Fact) => f.kind !== 'variable';

export interface RestartProcedure {
  levels: Record<string, string>;
  cell: CellFactor[];
  /** The profile's registered builds, which a build level is judged against. */
  builds?: Build[];
  steps: RestartStep[];
}

export interface ProcedureInput {
  profile: ServerProfile;
  factors: Factor[];
  levels: Record<string, string>;
  host: HostFingerprint;
  /** Schemas a preload step reads (the workload's database). */
  schemas?: string[];
  /** With a workload step at the end (the run); without, the restart alone (`sandbox start`). */
  workload?: boolean;
  startTimeoutS?: number;
  stopTimeoutS?: number;
  /** The design's idle time in seconds: an idle step before the start when above 0. */
  idleSeconds?: number;
}

/** Match each factor with its level and kind, validating every level before it can reach a shell. */
export function cellFactors(factors: Factor[], levels: Record<string, string>, host?: HostFingerprint, builds?: Build[]): CellFactor[] {
  return factors.map((factor) => {
    const key = factorKey(factor);
    const level = levels[key];
    if (level === undefined) throw new ApiError('invalid-argument', `no level given for factor ${key}`);
    const kind = factorKind(factor.tunable);
    if (!kind) throw new ApiError('invalid-argument', `factor ${key}: unknown tunable ${JSON.stringify(factor.tunable)}`);
    if (!kind.valid(level)) throw new ApiError('invalid-argument', `factor ${key}: level ${JSON.stringify(level)} is not valid for ${kind.label}: expected ${kind.syntax}`);
    if (factor.tunable === 'variable') {
      try {
        variableName(factor.name);
      } catch (e) {
        throw new ApiError('invalid-argument', `factor ${key}: ${(e as Error).message}`);
      }
    }
    if (host && kind.kind === 'tunable') {
      const why = kind.unavailable?.(level, host, { name: factor.name, host, builds });
      if (why) throw new ApiError('unsupported', `factor ${key}=${level} cannot run on ${host.target}: ${why}`);
    }
    return { key, factor, level, kind };
  });
}

const ctxOf = (c: CellFactor, host: HostFingerprint, builds?: Build[]): LevelContext => ({ name: c.factor.name, host, ...(builds ? { builds } : {}) });

/** The restart procedure for one cell on one host: computed once, then run, shown or compiled. */
export function restartProcedure(input: ProcedureInput): RestartProcedure {
  const { profile, host } = input;
  checkProfile(profile);
  const builds = profile.builds;
  const cell = cellFactors(input.factors, input.levels, host, builds);
  const tunables = cell.filter((c): c is CellFactor & { kind: Tunable } => c.kind.kind === 'tunable');
  const parts: Contribution[] = tunables.map((c) => c.kind.contribute(c.level, ctxOf(c, host, builds)));
  const steps: RestartStep[] = [];
  const idle = input.idleSeconds ?? 0;
  if (!(Number.isFinite(idle) && idle >= 0 && idle <= 86400)) throw new ApiError('invalid-argument', `idle time ${idle}: expected 0 to 86400 seconds`);
  // A service is restarted by its start; with idle time it is stopped first, so that it idles stopped too.
  if (profile.kind === 'direct' || idle > 0) steps.push({ kind: 'stop', via: profile.kind === 'systemd' ? 'systemd' : 'signal', timeoutS: input.stopTimeoutS ?? 600 });
  // A host-wide tunable at its neutral level puts back what an earlier cell changed.
  tunables.forEach((c, i) => {
    const files = c.kind.files?.(host) ?? [];
    const setsOwn = (parts[i].set ?? []).map((s) => s.file.id);
    const back = files.filter((f) => !setsOwn.includes(f.id));
    if (back.length) steps.push({ kind: 'restore', tunable: c.key, files: back });
  });
  tunables.forEach((c, i) => {
    for (const s of parts[i].set ?? []) steps.push({ kind: 'set', tunable: c.key, file: s.file, value: s.value });
  });
  // The idle time with mysqld stopped and the host as the cell sets it, before the start (the page cache
  // is dropped after it, so that it is cold at the start).
  if (idle > 0) steps.push({ kind: 'idle', seconds: idle });
  if (parts.some((p) => p.dropCaches)) steps.push({ kind: 'drop-caches' });
  const wrapper: StartWrapper = { numactl: parts.flatMap((p) => p.numactl ?? []) };
  const preload = parts.find((p) => p.preload)?.preload;
  if (preload) wrapper.preload = preload;
  const taskset = parts.find((p) => p.taskset)?.taskset;
  if (taskset) wrapper.taskset = taskset;
  if (parts.some((p) => p.noRandomize)) {
    if (!host.arch) throw new ApiError('unsupported', `ASLR off needs the architecture of ${host.target} for setarch, and the probe did not find it`);
    wrapper.setarch = host.arch;
  }
  const servers = parts.flatMap((p) => (p.server ? [p.server] : []));
  if (servers.length > 1) throw new ApiError('invalid-argument', `a restart starts one server build; this cell names ${servers.map((x) => x.name).join(' and ')}`);
  if (servers.length && profile.kind === 'systemd') throw new ApiError('unsupported', `a build factor needs a server varlab starts itself; the profile for ${host.target} is the systemd unit ${profile.service}`);
  steps.push({ kind: 'start', via: profile.kind === 'systemd' ? 'systemd' : 'direct', wrapper, options: parts.flatMap((p) => p.options ?? []), ...(servers.length ? { server: servers[0] } : {}) });
  steps.push({ kind: 'wait-ready', timeoutS: input.startTimeoutS ?? 300 });
  // The facts every level needs, each once, and the profile's own options (not those a factor sets).
  const facts = new Map<string, Fact>();
  for (const c of tunables) for (const f of c.kind.facts(c.level, ctxOf(c, host, builds))) facts.set(factKey(f), f);
  const factorVariables = new Set([...facts.values()].filter((f) => f.kind === 'variable').map((f) => (f as { name: string }).name));
  // An option given twice is mysqld's last one: only that one is judged (the earlier one is not in effect by design).
  const all = profileOptions(profile);
  const options = all.filter((o, i) => !factorVariables.has(o.variable) && !all.slice(i + 1).some((later) => later.variable === o.variable));
  steps.push({ kind: 'verify', facts: [...facts.values()], options });
  if (cell.some((c) => c.kind.kind === 'step' && c.kind.step(c.level) === 'preload')) steps.push({ kind: 'preload', schemas: input.schemas ?? [] });
  if (input.workload) steps.push({ kind: 'workload' });
  return { levels: { ...input.levels }, cell, steps, ...(builds ? { builds } : {}) };
}

/** Which data directory a restart's server runs on: its build's name ('' for the profile's own). */
export const datadirKey = (proc: RestartProcedure): string => {
  const start = proc.steps.find((s) => s.kind === 'start');
  return (start?.kind === 'start' && start.server?.name) || '';
};

/** Judge every factor of the cell from the facts read after the start (pure: the same everywhere). */
export function verifyCell(proc: RestartProcedure, facts: Record<string, string | null>, host: HostFingerprint): TunableCheck[] {
  const out: TunableCheck[] = [];
  for (const c of proc.cell) {
    if (c.kind.kind !== 'tunable') continue;
    try {
      const v = c.kind.verify(c.level, facts, ctxOf(c, host, proc.builds));
      out.push({ tunable: c.factor.tunable, level: c.level, ok: v.ok, observed: v.observed });
    } catch (e) {
      out.push({ tunable: c.factor.tunable, level: c.level, ok: false, observed: `could not verify: ${(e as Error).message}` });
    }
  }
  return out;
}

/** Why a restart measured nothing: the factors not in effect on the live server, or null when all were. */
export function verifyFailure(checks: TunableCheck[]): string | null {
  const failed = checks.filter((c) => !c.ok);
  return failed.length ? failed.map((c) => `${c.tunable}=${c.level} not in effect (observed ${c.observed})`).join('; ') : null;
}

/** What a fact read on the target is, for people. */
export const factLabel = (f: Fact): string => (f.kind === 'file' ? f.file.path : f.kind === 'exe' ? '/proc/PID/exe and its sha256' : f.kind);

/** One line for people: what a step does (the dry run's comments, the Hosts view). */
export function describeStep(s: RestartStep): string {
  switch (s.kind) {
    case 'stop':
      return s.via === 'systemd' ? 'stop the service' : 'stop mysqld (SIGTERM, wait until the process is gone)';
    case 'restore':
      return `put ${s.tunable} back to the host's own setting (from the restore record)`;
    case 'set':
      return `set ${s.tunable} to ${s.value} (${s.file.path}; original saved in the restore record first)`;
    case 'drop-caches':
      return 'drop the page cache';
    case 'idle':
      return `wait ${s.seconds} s with mysqld stopped (the design's idle time, the same before every start)`;
    case 'start': {
      const w = [s.wrapper.preload && `LD_PRELOAD ${s.wrapper.preload}`, s.wrapper.numactl.length && `numactl ${s.wrapper.numactl.join(' ')}`, s.wrapper.taskset && `taskset -c ${s.wrapper.taskset}`, s.wrapper.setarch && `setarch ${s.wrapper.setarch} -R`].filter(Boolean);
      const what = s.via === 'systemd' ? 'write the systemd drop-in and restart the service' : s.server ? `start build ${s.server.name} (${s.server.mysqld}, data directory ${s.server.datadir})` : 'start mysqld';
      return `${what}${w.length ? ` through ${w.join(', ')}` : ''}`;
    }
    case 'wait-ready':
      return `wait until mysqld listens (at most ${s.timeoutS} s), on the target`;
    case 'verify': {
      const vars = [...s.facts.filter((f) => f.kind === 'variable').map((f) => (f as { name: string }).name), ...s.options.map((o) => o.variable)];
      const here = s.facts.filter(onTarget).map(factLabel);
      return `read back ${[...here, ...(vars.length ? [`SHOW GLOBAL VARIABLES ${vars.join(', ')}`] : [])].join('; ') || 'nothing (no tunable to verify)'}`;
    }
    case 'preload':
      return `preload: read every table and index of ${s.schemas.join(', ') || 'the workload database'}`;
    case 'workload':
      return 'the workload: each query (or the command), every repetition';
  }
}
