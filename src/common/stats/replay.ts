// From an analysis to the stopping rule's input: each cell and query's restart means by round (after
// the warm-up), so `analyze --until-answered` replays recorded data and a live run can check after
// each complete round with the same function (sequential.ts).
import { analyze, type RestartSummary } from './analysis.js';
import { restartRounds, tidyFromExperiment } from './tidy.js';
import { expandCells, HOST_FACTOR, hostCell, resultHosts } from '../plan.js';
import type { ExperimentDoc, StoppedAnswered } from '../experiment/types.js';
import type { JournalRecord } from '../records.js';
import { intervalLevels, intervalNames, replaySequential, sequentialVerdictText, type IntervalLevels, type Look, type RoundSeries, type SequentialComparison, type SequentialResult, type StoppingSettings } from './sequential.js';

/** Restart means by round (index 0 is round 1), null where a round has no restart with executions. */
export function roundSeries(restarts: readonly RestartSummary[]): RoundSeries[] {
  return restarts
    .filter((r) => r.rounds?.length)
    .map((r) => {
      const last = Math.max(0, ...r.rounds!);
      const means: (number | null)[] = Array.from({ length: last }, () => null);
      r.rounds!.forEach((round, i) => {
        if (round > 0) means[round - 1] = r.means[i];
      });
      return { cell: r.cell, query: r.query, means };
    });
}

/** The rule replayed on an analysis's restarts, with the baseline's comparisons as the family. */
export function replayAnalysis(restarts: readonly RestartSummary[], baseline: string, s: StoppingSettings): SequentialResult {
  return replaySequential(roundSeries(restarts), baseline, s);
}

/** A cell named without its host: `aslr=on,host=ssh://a` → `aslr=on` (the cell each host's rule compares). */
export function withoutHost(label: string): string {
  return label.replace(new RegExp(`(^|,)${HOST_FACTOR}=.*$`), '');
}

/** One host's replay of the rule, on a several-host run ('' for one host). */
export interface HostReplay {
  host: string;
  result: SequentialResult;
}

/**
 * The rule replayed host by host, as a several-host run took it (each host looks at its own rounds and
 * stops on its own; the host is a block): `blocks` names each labelled cell's host (TidyData's
 * rounds.blocks, absent on one host). The baseline may name its host or not; each host's rule compares
 * with that cell on its own host.
 */
export function replayByHost(restarts: readonly RestartSummary[], blocks: Record<string, string> | undefined, baseline: string, s: StoppingSettings): HostReplay[] {
  if (!blocks) return [{ host: '', result: replayAnalysis(restarts, baseline, s) }];
  const hosts = [...new Set(restarts.map((r) => blocks[r.cell]).filter((h): h is string => h !== undefined))];
  return hosts.map((host) => ({
    host,
    result: replayAnalysis(
      restarts.filter((r) => blocks[r.cell] === host).map((r) => ({ ...r, cell: withoutHost(r.cell) })),
      withoutHost(baseline),
      s,
    ),
  }));
}

/**
 * The `sequential` object of `analyze --json` for a replay host by host: on one host the replay's own
 * object; on several, what all hosts share, `hosts` with each one's looks, stop and comparisons, and
 * `stopped_round` the last host's stop when every host stopped (else null).
 */
export function sequentialHostsJson(replays: readonly HostReplay[]) {
  if (replays.length === 1 && !replays[0].host) return sequentialJson(replays[0].result);
  const first = replays[0]?.result;
  const stops = replays.map((h) => h.result.stopped_round);
  return {
    rule: first?.rule,
    effect_pct: first?.effect_pct,
    alpha: first?.alpha,
    power: first?.power,
    max_rounds: first?.max_rounds,
    levels: first?.levels,
    schedule: first?.schedule,
    stopped_round: stops.every((x) => x !== null) ? Math.max(...(stops as number[])) : null,
    stopped_because: replays.map((h) => `${h.host}: ${h.result.stopped_round === null ? '' : `stopped at round ${h.result.stopped_round}: `}${h.result.stopped_because}`).join('; '),
    hosts: replays.map((h) => {
      const { rule: _r, effect_pct: _e, alpha: _a, power: _p, max_rounds: _m, levels: _l, schedule: _s, ...own } = sequentialJson(h.result);
      return { host: h.host, ...own };
    }),
  };
}

/** The `sequential` object of `analyze --json`. */
export function sequentialJson(r: SequentialResult) {
  return {
    rule: r.rule,
    effect_pct: r.effect_pct,
    alpha: r.alpha,
    power: r.power,
    max_rounds: r.max_rounds,
    levels: r.levels,
    schedule: r.schedule,
    looks: r.looks,
    stopped_round: r.stopped_round,
    stopped_because: r.stopped_because,
    comparisons: r.comparisons,
  };
}

const pct = (x: number | null | undefined) => (x === null || x === undefined ? 'n/a' : `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(2)} %`);
const interval = (lo: number | null | undefined, hi: number | null | undefined) => (lo === null || lo === undefined ? 'n/a' : `[${pct(lo)}, ${pct(hi)}]`);

/** The replay in lines of text: the rule, where it stopped and why, and each comparison's verdict with the two repeated intervals it is read from. */
export function sequentialText(r: SequentialResult, host = ''): string[] {
  const names = intervalNames(r.levels, r.effect_pct);
  const out = [
    `Stop when answered (replayed on the recorded rounds${host ? ` of ${host}, which stopped on its own` : ''}): ${r.rule}`,
    `  target ±${r.effect_pct} %, α ${r.alpha} over all looks, at most ${r.max_rounds} rounds; looks at rounds ${r.schedule.join(', ')}`,
    `  ${r.stopped_round === null ? '' : `stopped at round ${r.stopped_round}: `}${r.stopped_because}`,
    `  A comparison ${names.rule}. Both are repeated confidence intervals, valid at whatever look the run stopped.`,
  ];
  for (const c of r.comparisons) {
    out.push(`  ${c.cell} / ${c.query}: ${sequentialVerdictText(c.verdict, r.effect_pct)}, effect ${pct(c.effect_pct)}, ${names.differs} ${interval(c.rci_low_pct, c.rci_high_pct)}, ${names.equivalent} ${interval(c.eq_low_pct, c.eq_high_pct)} (${c.because})`);
  }
  return out;
}

/** The levels of a look, or for a look journaled before they were, those of α over the look's comparisons. */
export function lookLevels(look: Pick<Look, 'levels' | 'comparisons'>, alpha: number): IntervalLevels {
  return look.levels ?? intervalLevels(alpha, Math.max(1, look.comparisons.length));
}

/** A look's figure for one comparison: its effect and the two repeated intervals, |Z|, and what the look decided. */
export function lookComparisonText(c: Look['comparisons'][number], effectPct: number, levels: IntervalLevels): string {
  const names = intervalNames(levels, effectPct);
  const rci = c.rci_low_pct === null ? 'no interval yet' : `${names.differs} ${interval(c.rci_low_pct, c.rci_high_pct)}, ${names.equivalent} ${interval(c.eq_low_pct, c.eq_high_pct)}`;
  const z = c.z === null ? '' : `, |Z| ${Math.abs(c.z).toFixed(2)}`;
  return `${c.cell} / ${c.query}: ${pct(c.effect_pct)}, ${rci}${z}: ${sequentialVerdictText(c.decision, effectPct)}`;
}

/**
 * The last look of a live run in lines: the look, its boundary, each comparison still open at it, and
 * either the stop or "at most k more rounds". What `varlab run` prints at each look.
 */
export function lookText(r: SequentialResult): string[] {
  const look = r.looks[r.looks.length - 1];
  if (!look) return [];
  const head = `look at round ${look.round} of at most ${r.max_rounds} (stop when answered, target ±${r.effect_pct} %): boundary |Z| ≥ ${look.boundary_z.toFixed(2)}`;
  const tail = r.stopped_round !== null ? `  stopping: ${r.stopped_because}` : `  going on: at most ${roundsLeft(r)} more round${roundsLeft(r) === 1 ? '' : 's'}`;
  return [head, ...look.comparisons.map((c) => `  ${lookComparisonText(c, r.effect_pct, r.levels)}`), tail];
}

/** Rounds the rule may still take after its last look. */
export function roundsLeft(r: SequentialResult): number {
  if (r.stopped_round !== null) return 0;
  const last = r.looks[r.looks.length - 1]?.round ?? 0;
  return Math.max(0, r.max_rounds - last);
}

/** What a live run asks after each restart: stop now? With the rule's result when it was asked. */
export interface StopCheck {
  stop: boolean;
  /** The complete rounds so far (every included cell has a finished restart in each). */
  completeRounds: number;
  result: SequentialResult | null;
  why: string;
}

/**
 * The engine's check (issue 21, "Stop when answered"): the same pure rule as `analyze --until-answered`,
 * on the results so far of a design with `design.stopping`, taken only when the last restart completed
 * a round. `baseline`: the first included cell unless given. One host's results (a several-host run
 * checks each host's own, the host being a block).
 */
export function stopCheck(doc: ExperimentDoc, baseline?: string): StopCheck {
  const s = doc.design.stopping;
  if (!s) return { stop: false, completeRounds: 0, result: null, why: 'the design has no stopping rule' };
  if (doc.design.order === 'blocked') return { stop: false, completeRounds: 0, result: null, why: 'a blocked order has no rounds to look at' };
  const cells = expandCells(doc.design).filter((c) => !c.excluded).map((c) => c.id);
  const rounds = restartRounds(doc);
  const perRound = new Map<number, Set<string>>();
  for (const r of doc.results?.restarts ?? []) {
    const k = rounds?.get(`${r.host ?? ''}\u0000${r.seq}`) ?? rounds?.get(`\u0000${r.seq}`);
    if (k === undefined) continue;
    let set = perRound.get(k);
    if (!set) perRound.set(k, (set = new Set()));
    set.add(r.cell);
  }
  let complete = 0;
  while (perRound.get(complete + 1)?.size === cells.length) complete++;
  const data = tidyFromExperiment(doc);
  // Only the complete rounds: a look never sees half a round.
  const a = analyze(data, { warmup: doc.design.workload.warmup });
  const restarts = a.restarts.map((r) => {
    const keep = (r.rounds ?? []).map((k) => k > 0 && k <= complete);
    return { ...r, means: r.means.filter((_, i) => keep[i]), rounds: r.rounds?.filter((_, i) => keep[i]) };
  });
  const result = replayAnalysis(restarts, baseline ?? cells[0], { effectPct: s.effect, alpha: s.alpha, power: s.power, maxRounds: s.maxRestartsPerCell, queryOrder: doc.design.workload.queries.map((q) => q.name) });
  const stop = result.stopped_round !== null;
  return { stop, completeRounds: complete, result, why: stop ? result.stopped_because : `going on: ${result.stopped_because}` };
}

/** The rule on a saved run, host by host (each host of a several-host run stops on its own rounds): its result and where the run stopped. */
export interface HostStop {
  /** '' for a run on one host. */
  host: string;
  check: StopCheck;
  stopped?: StoppedAnswered;
}

/** The baseline the rule's replay compares every cell with, and whether it is the one the run looked against. */
export interface RuleBaseline {
  baseline: string;
  /** The run's own: the first included cell, which a live run (engine, follower) always looks against. */
  runs: string;
  asRun: boolean;
  /** Why a chosen baseline was not taken. */
  why?: string;
}

/**
 * The rule's baseline for a replay: the cell the reader chose (Analysis' baseline, analyze --baseline)
 * when the rule can compare with it, that is an included cell of the design (on several hosts the
 * chosen `cell,host=H` names the cell each host's rule takes), else the first included cell, the one
 * the run itself looked against. Replayed against another cell, the rule says where it would have
 * stopped; where the run stopped is still the run's own.
 */
export function ruleBaseline(doc: ExperimentDoc, chosen?: string | null): RuleBaseline {
  const cells = expandCells(doc.design).filter((c) => !c.excluded).map((c) => c.id);
  const runs = cells[0] ?? '';
  if (!chosen) return { baseline: runs, runs, asRun: true };
  const cell = chosen.replace(new RegExp(`(^|,)${HOST_FACTOR}=.*$`), '');
  if (!cells.includes(cell)) return { baseline: runs, runs, asRun: true, why: `${chosen} is not a cell the rule compares` };
  return { baseline: cell, runs, asRun: cell === runs };
}

/**
 * What the Analysis view and the Markdown report say of a run with design.stopping: the rule replayed
 * on each host's results, against `baseline` (ruleBaseline's) or the run's own first cell.
 */
export function stopsOf(doc: ExperimentDoc, baseline?: string): HostStop[] {
  const results = doc.results;
  if (!doc.design.stopping || !results) return [];
  const hosts = resultHosts(doc.design, results.restarts);
  return (hosts.length ? hosts : ['']).map((host) => {
    const restarts = host ? results.restarts.filter((r) => r.host === host) : results.restarts;
    const stopped = results.stopped?.find((x) => (x.host ?? '') === host);
    return { host, check: stopCheck({ ...doc, results: { restarts } }, baseline), ...(stopped ? { stopped } : {}) };
  });
}

/** A comparison of the rule, with the round its host's rule stopped at (null when it did not stop), as analyze --json has it. */
export type RuleVerdict = SequentialComparison & { stopped_round: number | null };

/**
 * The rule's verdict beside each row of a fixed-sample comparisons table whose baseline is
 * `tableBaseline` (cell + query → the rule's comparison, keyed as the table names the cell, with its
 * host on several hosts): only where the rule compares with that same baseline (each host's rule
 * compares with its own host's cell, so rows of other hosts have none). Null without a rule.
 */
export function ruleVerdictsFor(doc: ExperimentDoc, tableBaseline: string | null): Map<string, RuleVerdict> | null {
  if (!doc.design.stopping || !doc.results || !tableBaseline) return null;
  const rb = ruleBaseline(doc, tableBaseline);
  const out = new Map<string, RuleVerdict>();
  for (const { host, check } of stopsOf(doc, rb.baseline)) {
    if ((host ? hostCell(rb.baseline, host) : rb.baseline) !== tableBaseline) continue;
    const stopped_round = check.result?.stopped_round ?? null;
    for (const c of check.result?.comparisons ?? []) out.set(`${host ? hostCell(c.cell, host) : c.cell}\u0000${c.query}`, { ...c, stopped_round });
  }
  return out;
}

/** What a run journals at a look: the look record, and the stop record when the rule stops there. */
export interface LookStep {
  /** The records to journal, in order (empty when no new look was taken). */
  records: JournalRecord[];
  /** The round of the last look taken (the one given when none is new). */
  lastLook: number;
  /** The rule stopped the run at this look. */
  stop: boolean;
  /** The look in lines, as `varlab run` prints it (empty when none). */
  text: string[];
}

/**
 * The step after each restart of a run with design.stopping, the same for an attached run (the engine)
 * and a detached run's follower (attach.ts, which then cancels the runner): the rule on the results so
 * far (stopCheck); a look taken at a round past `lastLook` is journaled as a `look` record, and when the
 * rule stops there, a `stopped-answered` record after it.
 */
export function lookStep(doc: ExperimentDoc, lastLook: number, at = Date.now()): LookStep {
  const none = { records: [], lastLook, stop: false, text: [] };
  if (!doc.design.stopping || doc.design.order === 'blocked') return none;
  const check = stopCheck(doc);
  const r = check.result;
  const look = r?.looks[r.looks.length - 1];
  if (!r || !look || look.round <= lastLook) return none;
  const records: JournalRecord[] = [{ t: 'look', at, look, max_rounds: r.max_rounds, effect_pct: r.effect_pct, comparisons: r.comparisons, rounds_left: roundsLeft(r), stopped_because: r.stopped_round === null ? null : r.stopped_because }];
  if (check.stop) records.push({ t: 'stopped-answered', at, round: r.stopped_round!, because: r.stopped_because });
  return { records, lastLook: look.round, stop: check.stop, text: lookText(r) };
}
