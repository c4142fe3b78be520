// One design on several hosts at once (issue 14): one run engine per host, each with its own plan
// (its own seed-derived order), server profile and journal (`hostJournalPath`), all saving into the
// one experiment file. Every save writes every host's results at once (the last each host reported,
// tagged with its host), so no host's save drops another's; the journals stay the truth.
//
// A host that fails does not stop the others; cancel, pause and resume go to every host. The events
// of all hosts go out in one numbered stream under the group's run id, each naming its host.
import type { Run } from './run.js';
import type { EventBatch, RunStatus } from '../../common/api.js';
import { afterColon, groupState } from '../../common/events.js';
import type { Results } from '../../common/experiment/types.js';
import { buildPlan } from '../../common/plan.js';
import { resultsFromJournal, severalHostsResults } from '../../common/records.js';
import { EventBatcher } from '../engine/batcher.js';
import { readJournal } from '../engine/journal.js';
import type { RunEngine, RunOutcome } from '../engine/run.js';
import type { HostRun } from './prepare.js';
import { snapshotBatch } from './snapshot.js';

export interface HostGroupOptions {
  runId: string;
  path: string;
  hosts: HostRun[];
  /** The engine of one host, writing its events into the group's batcher and its results through `save`. */
  engine: (host: HostRun, batcher: EventBatcher, save: (results: Results) => Promise<void>) => RunEngine;
  /** Writes the results of every host into the file. */
  save: (results: Results) => Promise<void>;
  onBatch?: (b: EventBatch) => void;
  batchMs?: number;
}

export class HostGroup implements Run {
  readonly batcher: EventBatcher;
  private readonly running: { target: string; engine: RunEngine }[];
  private readonly results = new Map<string, Results>();
  private ended: RunStatus['state'] | null = null;

  constructor(private readonly opts: HostGroupOptions) {
    this.batcher = new EventBatcher(opts.runId, (b) => opts.onBatch?.(b), opts.batchMs ?? 100);
    for (const h of opts.hosts) {
      // A host that finished in an earlier process is not run again: its results come from its journal.
      const state = h.done ? readJournal(h.journal) : null;
      this.results.set(h.target, state ? resultsFromJournal(state) : { restarts: [] });
    }
    this.running = opts.hosts.filter((h) => !h.done).map((h) => ({ target: h.target, engine: opts.engine(h, this.batcher, (r) => this.save(h.target, r)) }));
  }

  status(): RunStatus {
    const state = this.ended ?? groupState(this.running.map((r) => r.engine.status().state));
    return { runId: this.opts.runId, path: this.opts.path, state, lastSeq: this.batcher.lastSeq };
  }

  events(afterSeq: number): EventBatch[] | null {
    return this.batcher.after(afterSeq);
  }

  /** Every host's run so far as one snapshot batch, each event naming its host (running hosts from their folds, finished ones from their journals). */
  snapshot(): EventBatch {
    const events = this.opts.hosts.flatMap((h) => {
      const r = this.running.find((x) => x.target === h.target);
      const from = r ? r.engine.folded().fold : h.journal;
      return snapshotBatch(this.opts.runId, 0, from, r ? r.engine.status().state : 'finished').events.map((e) => ({ ...e, host: h.target }));
    });
    return { runId: this.opts.runId, seq: this.batcher.lastSeq, events, snapshot: true };
  }

  pause(): void {
    for (const r of this.running) r.engine.pause();
  }

  resume(): void {
    for (const r of this.running) r.engine.resume();
  }

  cancel(): void {
    for (const r of this.running) r.engine.cancel();
  }

  private save(host: string, results: Results): Promise<void> {
    this.results.set(host, results);
    return this.opts.save(severalHostsResults(this.opts.hosts.map((h) => ({ host: h.target, results: this.results.get(h.target)! }))));
  }

  /** Every host's run at once; never throws. The outcome is the hosts' together, each host's own in `hosts`. */
  async run(): Promise<RunOutcome> {
    const outcomes = await Promise.all(this.running.map(async (r) => ({ target: r.target, outcome: await r.engine.run() })));
    const end = groupOutcome(this.opts, outcomes);
    this.ended = end.state;
    this.batcher.push({ type: 'run-finished', at: Date.now(), state: end.state, ...(end.message ? { message: end.message } : {}) });
    this.batcher.flush();
    return end;
  }
}

/** Finished when every host finished; else failed when a host failed (each named with why), else cancelled. */
export function groupOutcome(opts: Pick<HostGroupOptions, 'path' | 'hosts'>, outcomes: { target: string; outcome: RunOutcome }[]): RunOutcome {
  // A host that finished in an earlier process counts whole.
  const before = opts.hosts.filter((h) => h.done).reduce((n, h) => n + buildPlan(h.doc.design).length, 0);
  const planned = outcomes.reduce((n, h) => n + h.outcome.planned, before);
  const done = outcomes.reduce((n, h) => n + h.outcome.done, before);
  // How many measured anything: known when every host's run here says (none finished in an earlier process).
  const measured = before === 0 && outcomes.every((h) => h.outcome.measured !== undefined) ? outcomes.reduce((n, h) => n + h.outcome.measured!, 0) : undefined;
  const failed = outcomes.filter((h) => h.outcome.state === 'failed');
  const cancelled = outcomes.filter((h) => h.outcome.state === 'cancelled');
  const state = groupState(outcomes.map((h) => h.outcome.state));
  const said = (list: typeof outcomes) => list.map((h) => `${h.outcome.state} on ${h.target} after ${h.outcome.done} of ${h.outcome.planned} restarts${afterColon(h.outcome)}`);
  const others = outcomes.filter((h) => h.outcome.state === 'finished').map((h) => `finished on ${h.target}`);
  const message = state === 'finished' ? undefined : [...said(failed), ...said(cancelled), ...others, ...(state === 'cancelled' ? ['run again to resume'] : [])].join('; ');
  const restoreProblem = outcomes.map((h) => h.outcome.restoreProblem && `${h.target}: ${h.outcome.restoreProblem}`).filter(Boolean).join('; ');
  return {
    state,
    ...(message ? { message } : {}),
    ...(restoreProblem ? { restoreProblem } : {}),
    transient: failed.every((h) => h.outcome.transient),
    planned,
    done,
    ...(measured !== undefined ? { measured } : {}),
    resumed: outcomes.some((h) => h.outcome.resumed),
    path: opts.path,
    journal: opts.hosts.map((h) => h.journal).join(', '),
    hosts: outcomes,
  };
}
