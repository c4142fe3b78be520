// The live Run view: progress through the plan, the current cell, every execution on a WebGL
// timeline coloured by restart, per-restart means with their within-restart spread, the
// between-restart spread of each cell as restarts accumulate, and the current minimum detectable
// effect. Pause, resume, cancel. Redrawn at most once per animation frame, whatever the event rate.
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { checkWord, type ExperimentDoc, type RestartResult, type Workload } from '../../../common/experiment/types.js';
import { buildPlan, designHosts, expandCells, formatDuration, resultHosts } from '../../../common/plan.js';
import { executionsText } from '../../../common/experiment/words.js';
import { aboutText, learnedEstimate, resumeEstimate } from '../../../common/stats/planner.js';
import { Plot } from '../../plot/Plot.js';
import { useApp } from '../../store/index.js';
import { saveAs } from '../../store/actions.js';
import { LiveRun, LiveRuns, type IntervalTrace } from './live.js';
import { noNoteWords, runsWords, timerFoundOf, timersByRun, type RunsTimer, type TimerNoteParts } from '../../../common/timer-note.js';
import { drawnInterval } from './intervals.js';
import { endedWords, eventLine, launchCancelledWords, measuredIn, measuredNothing } from '../../../common/event-line.js';
import { noiseSummary } from '../../../common/noise.js';
import { Timeline, type TimelineNote } from './Timeline.js';
import { offScaleNote } from '../../../common/figures/warmup-clip.js';
import { DEFAULTS } from '../../../common/stats/analysis.js';
import { MDE_LABELS } from '../../../common/stats/mde.js';
import { agreeAndStart, agreeToFollow, attachToRunning, cancelLaunch, checkUnfinished, control, followDetached, showHost, startRun, stopFollowing, useRunSession } from './session.js';
import { notFollowingMessage } from './follow.js';
import type { TrustCheck } from '../../../common/trust.js';
import { ConsentList } from '../export/ConsentList.js';
import { StopPanel } from './StopPanel.js';
import { roundsLeft, stopCheck } from '../../../common/stats/replay.js';
import type { RunEvent } from '../../../common/events.js';
import type { UntilAnswered } from '../../../common/api.js';
import { linkWords, type LinkState } from '../../../common/link.js';
import './run.css';

function StartPanel() {
  // A tab that attached to a run in progress knows its file from the run, even with nothing open.
  const sessionPath = useRunSession((s) => s.path);
  const path = useApp((s) => s.path) ?? sessionPath;
  const dirty = useApp((s) => s.dirty);
  const doc = useApp((s) => s.doc);
  const design = doc?.design;
  const hosts = design ? designHosts(design) : ['local'];
  const target = hosts.join(', ');
  // This panel is gone while a run is shown: what the last run was started with is offered again.
  const lastAuth = useRunSession((s) => (s.lastAuth?.path === path ? s.lastAuth.auth : null));
  const [identity, setIdentity] = useState(lastAuth?.identity ?? '');
  const [knownHosts, setKnownHosts] = useState(lastAuth?.knownHosts ?? '');
  const [startOver, setStartOver] = useState(false);
  const [detach, setDetach] = useState(false);
  // Stop when answered: on when the file's design has a rule, with its target effect and maximum.
  const [untilAnswered, setUntilAnswered] = useState(Boolean(design?.stopping));
  const [effect, setEffect] = useState(String(design?.stopping?.effect ?? 1));
  const [maxRestarts, setMaxRestarts] = useState(String(design?.stopping?.maxRestartsPerCell ?? Math.max(10, design?.restartsPerCell ?? 10)));
  const stop = stopChoice(untilAnswered, effect, maxRestarts, Boolean(design?.stopping));
  // The rule's maximum becomes the design's restarts per cell (the plan runs up to it): said before Run, not found after.
  const rewritesTo = design && stop.ask && stop.ask.maxRestarts !== undefined && stop.ask.maxRestarts !== design.restartsPerCell ? stop.ask.maxRestarts : null;
  const error = useRunSession((s) => s.error);
  const unfinished = useRunSession((s) => (s.unfinished?.path === path ? s.unfinished : null));
  const designChanged = useRunSession((s) => (s.designChanged?.path === path ? s.designChanged : null));
  const consent = useRunSession((s) => (s.consent?.path === path ? s.consent : null));
  const follow = useRunSession((s) => (s.follow?.path === path ? s.follow : null));
  const launching = useRunSession((s) => (s.launching?.path === path ? s.launching : null));
  const launchCancelled = useRunSession((s) => s.launchCancelled === path);
  // What pressing Run starts, before it is pressed.
  const asRun = design && untilAnswered && stop.problem === null && stop.ask ? { ...design, restartsPerCell: stop.ask.maxRestarts ?? design.restartsPerCell } : design;
  // At the costs the file's own run measured when it has one (issue 21: the estimates learn).
  const learned = useMemo(() => (doc && asRun ? learnedEstimate({ ...doc, design: asRun }, buildPlan(asRun).length) : null), [doc, asRun]);
  const estimate = learned?.estimate ?? null;
  // An unfinished run: what resuming it (the restarts left) or starting over takes, at the costs its restarts so far measured.
  // On several hosts each host goes on from where it stopped: the time is the slowest host's, at its own costs.
  const unfinishedAbout = useMemo(() => {
    if (!doc || !unfinished) return null;
    if (startOver) return learned ? `Starting over takes ${aboutText(learned)}.` : null;
    const left = unfinished.restartsPlanned - unfinished.restartsDone;
    if (left <= 0) return null;
    // The restarts left, the run's start again and the set-ups a resumed run makes again (stats/planner.ts runPoint).
    const resuming = resumeEstimate(doc);
    if (hosts.length > 1) {
      if (!unfinished.hosts) return null;
      return `Resuming it takes ${aboutText(resuming)} for the ${left} left on ${unfinished.hosts.length} hosts${resuming.host ? ` (the slowest, ${resuming.host}, has ${resuming.estimate.restarts} left)` : ''}.`;
    }
    return `Resuming it takes ${aboutText(resuming)} for the ${left} left.`;
  }, [doc, unfinished, hosts.length, startOver, learned]);
  if (!path) {
    return (
      <p data-testid="run-needs-save">
        {design ? 'Save the experiment to a file first: the run saves its results into it and keeps its journal beside it. ' : 'Nothing is open: open an experiment or the quickstart (Design), save it to a file, and run it here.'}
        {design && (
          <button className="primary" onClick={() => void saveAs()} data-testid="run-save-as">
            Save As…
          </button>
        )}
      </p>
    );
  }
  // The file's run goes on on its target by itself (or ended there, not brought in yet): it is followed, not run.
  const away = unfinished?.detached ?? (follow ? { target: follow.target ?? target } : null);
  if (away) {
    // Recorded by a run this computer did not launch: nothing connects until the user asks (Follow) and agrees.
    const recorded = follow?.state === 'recorded' || (!follow && unfinished?.detached?.launchedHere === false);
    if (recorded) return <RecordedRun path={path} target={away.target} journals={follow?.journals ?? unfinished?.detached?.journals ?? []} />;
    return (
      <div className="run-box" style={{ display: 'flex', gap: 12, alignItems: 'center', flexWrap: 'wrap' }} data-testid="run-start">
        <span data-testid="run-detached-away">
          The run of <code>{path}</code> is detached on <code>{away.target}</code>
          {unfinished ? ` (${unfinished.restartsDone} of ${unfinished.restartsPlanned} restarts brought into this computer so far)` : ''}
          {follow?.state === 'failed' || follow?.state === 'stopped' ? '.' : ': connecting to follow it…'}
        </span>
        {follow?.state === 'stopped' && (
          <>
            <span data-testid="run-not-following">{notFollowingMessage(away.target, follow.since ?? Date.now())}</span>
            <button className="primary" onClick={() => void followDetached(path)} data-testid="run-follow">
              Follow
            </button>
          </>
        )}
        {follow?.state === 'failed' && (
          <>
            <span className="problem" role="alert" data-testid="run-follow-problem">
              It could not be followed: {follow.message}
            </span>
            <button onClick={() => void followDetached(path)} data-testid="run-follow">
              Try again
            </button>
          </>
        )}
      </div>
    );
  }
  const ssh = hosts.some((h) => h !== 'local');
  const auth = { identity: identity.trim() || undefined, knownHosts: knownHosts.trim() || undefined };
  // The file's design is not the one its unfinished run started with: the user says which way on.
  const changes = designChanged?.changes ?? (unfinished?.designChanges.length ? unfinished.designChanges : null);
  return (
    <div className="run-box" style={{ display: 'flex', gap: 12, alignItems: 'center', flexWrap: 'wrap' }} data-testid="run-start">
      <span>
        Run <code>{path}</code> on <code data-testid="run-hosts">{target}</code>
        {hosts.length > 1 ? ' at once, each host in its own order' : ''}
      </span>
      {estimate && !unfinished && (
        <span className="muted" data-testid="run-estimate">
          {untilAnswered ? 'at most ' : ''}
          {estimate.restarts} restarts{hosts.length > 1 ? ` on each of ${hosts.length} hosts` : ''} · {executionsText(estimate.executions, design?.workload.kind)}{hosts.length > 1 ? ' each' : ''} · about {formatDuration(estimate.seconds)}
          {learned?.costs.source === 'journal' ? ` (costs ${learned.basis})` : ''}
        </span>
      )}
      {ssh && (
        <>
          <label>
            key file <input value={identity} onChange={(e) => setIdentity(e.target.value)} placeholder={hosts.length > 1 ? "empty: each host's own" : '~/.ssh/id_ed25519 (or ssh-agent)'} title={hosts.length > 1 ? "A key file for every host; left empty, each host uses its own (its Hosts view entry, else ~/.ssh/config)" : undefined} />
          </label>
          <label>
            known_hosts <input value={knownHosts} onChange={(e) => setKnownHosts(e.target.value)} placeholder="optional extra file" />
          </label>
        </>
      )}
      {unfinished && (
        <span data-testid="run-unfinished">
          An unfinished run of this file: {unfinished.restartsDone} of {unfinished.restartsPlanned} restarts done.
          {/* Why it stopped (its journal's end): what a run that failed before its first restart left to say. */}
          {unfinished.ended && (
            <>
              {' '}
              <span className="run-failed" data-testid="run-unfinished-ended">
                {unfinished.ended}
                {/[.!?]$/.test(unfinished.ended) ? '' : '.'}
              </span>
            </>
          )}
          {unfinishedAbout && (
            <>
              {' '}
              <span className="muted" data-testid="run-unfinished-about">
                {unfinishedAbout}
              </span>
            </>
          )}
        </span>
      )}
      {changes ? (
        <DesignChangedChoice changes={changes} done={designChanged?.restartsDone ?? unfinished?.restartsDone ?? 0} disabled={dirty} onChoose={(how) => void startRun(path, auth, how)} />
      ) : (
        <>
          {unfinished && (
            <label title="Keep the unfinished run's results in a copy, archive its journal and run the whole plan again">
              <input type="checkbox" checked={startOver} onChange={(e) => setStartOver(e.target.checked)} /> start over
            </label>
          )}
          <label title={`Run in rounds and stop as soon as every cell is shown to differ from the first, or to be equivalent within ±E %, or cannot be shown either way (group-sequential, α over all looks)${detach ? `. ${DETACHED_LOOKS}` : ''}`}>
            <input type="checkbox" checked={untilAnswered} onChange={(e) => setUntilAnswered(e.target.checked)} data-testid="run-until-answered" /> Stop when answered
          </label>
          {untilAnswered && (
            <>
              <label>
                target ± <input style={{ width: 56 }} value={effect} onChange={(e) => setEffect(e.target.value)} data-testid="run-stop-effect" /> %
              </label>
              <label>
                at most <input style={{ width: 56 }} value={maxRestarts} onChange={(e) => setMaxRestarts(e.target.value)} data-testid="run-stop-max" /> restarts per cell
              </label>
              {stop.problem ? (
                <span className="problem" data-testid="run-stop-problem">
                  {stop.problem}
                </span>
              ) : (
                <span className="muted small" style={{ flexBasis: '100%' }} data-testid="run-stop-hint">
                  Runs in rounds (every cell once per round) and, from round 3, looks at the rounds so far: it stops as soon as each cell is shown to differ from{' '}
                  <code>{design ? (expandCells(design).find((c) => !c.excluded)?.id ?? 'the first cell') : 'the first cell'}</code>, or to be within ±{effect} % of it, or cannot be shown either way; never more than {maxRestarts} restarts per cell.
                  {design && rewritesTo !== null && (
                    <span data-testid="run-stop-rewrites">
                      {' '}
                      Run writes the rule into the file&apos;s design, with {rewritesTo} restarts per cell as its most (the design says {design.restartsPerCell} now): the Designer and a later run show the design as it ran.
                    </span>
                  )}
                  {detach && ' '}
                  {detach && <span data-testid="run-stop-detached">{DETACHED_LOOKS}.</span>}
                </span>
              )}
            </>
          )}
          <label title={`The whole run goes to ${hosts.length > 1 ? 'each host and runs there by itself, each host its own' : 'the target and runs there by itself'} (systemd-run, else setsid nohup); this computer follows it while it can, and brings every measurement in when the file is opened again${untilAnswered ? `. ${DETACHED_LOOKS}` : ''}`}>
            <input type="checkbox" checked={detach} onChange={(e) => setDetach(e.target.checked)} data-testid="run-detach" /> Keep running when this computer sleeps
          </label>
          <button className="primary" disabled={dirty || stop.problem !== null || launching !== null} title={dirty ? 'Save first: the run uses the file on disk' : undefined} onClick={() => void startRun(path, auth, startOver ? 'fresh' : 'auto', detach, stop.ask)} data-testid="run-start-button">
            {unfinished && !startOver ? 'Resume' : 'Run'}
          </button>
          {launching?.detach && (
            <div className="muted" style={{ flexBasis: '100%' }} data-testid="run-launching">
              Launching on <code>{target}</code>
              {design?.workload.data
                ? `: first the DBT-3 data step (SF ${design.workload.data.sf}), over this computer's connection, loaded or recognised, then the runner takes over. Keep this computer awake until the run is launched.`
                : ': the runner takes over once it has begun its first restart.'}
              {launching.data && <DataStepBar data={launching.data} testId="run-launching-data" />}
              {/* The run has no Progress panel (nor its Cancel) until its runner starts: the launch is cancelled by its own id. */}
              <div style={{ display: 'flex', gap: 12, alignItems: 'center', marginTop: 6 }}>
                <button className="danger" disabled={!launching.runId || launching.cancelling} onClick={() => void cancelLaunch()} title="Stops the launch at its next step: the mysqld it started is stopped and the host's settings restored; nothing is launched" data-testid="run-launch-cancel">
                  Cancel
                </button>
                {launching.cancelling && <span data-testid="run-launch-cancelling">Cancelling: the launch stops at its next step (within a DBT-3 load, after the chunk it is loading), then stops mysqld and restores the host…</span>}
              </div>
            </div>
          )}
          {launchCancelled && !launching && (
            <p className="run-ended run-cancelled" style={{ flexBasis: '100%' }} data-testid="run-launch-cancelled">
              {capitalised(launchCancelledWords(unfinished ? 'press Resume' : 'press Run again'))}.
            </p>
          )}
        </>
      )}
      {consent && <ConsentAsk check={consent.check} disabled={dirty} />}
      <RunError error={consent ? null : error} />
    </div>
  );
}

/**
 * Who takes the looks of a detached run: the runner on the target is plain shell, so the varlab that
 * follows it takes them and stops it at the look that answers (as `varlab run --detach` says).
 */
const DETACHED_LOOKS = 'Detached, this computer takes the looks while it follows the run and stops it there at the look that answers; while nobody follows it, it goes on towards its maximum, and following it again takes the looks it missed';

/** The Run view's "Stop when answered" as run.start asks it, or what is wrong with its numbers. */
function stopChoice(on: boolean, effect: string, maxRestarts: string, fileHasRule: boolean): { ask: UntilAnswered | false | undefined; problem: string | null } {
  // Off for a file with a rule: its fixed design runs (the rule's maximum restarts per cell are not taken).
  if (!on) return { ask: fileHasRule ? false : undefined, problem: null };
  const e = Number(effect);
  const m = Number(maxRestarts);
  if (!(e > 0 && e < 100)) return { ask: undefined, problem: 'the target effect is a percentage above 0 and below 100' };
  if (!(Number.isInteger(m) && m >= 3 && m <= 10_000)) return { ask: undefined, problem: 'at most … restarts per cell: a whole number from 3 to 10000 (the first look is at 3)' };
  return { ask: { effect: e, maxRestarts: m }, problem: null };
}

/** The run would do things on the target the user has not agreed to: the whole list, and Allow. */
function ConsentAsk({ check, disabled }: { check: TrustCheck; disabled: boolean }) {
  return (
    <div className="warning" data-testid="run-consent" style={{ flexBasis: '100%' }}>
      <strong>This run would do these on {check.target}, beyond varlab's built-in tunables.</strong>
      <div className="small">Nothing has run. Read them: varlab asks again if any of them changes or for another host.</div>
      <ConsentList check={check} />
      <button className="primary" disabled={disabled} data-testid="run-consent-allow" onClick={() => void agreeAndStart()}>
        Allow on {check.target} and run
      </button>
    </div>
  );
}

/** The design changed since the unfinished run started: what changed, and the two ways on. */
function DesignChangedChoice({ changes, done, disabled, onChoose }: { changes: string[]; done: number; disabled: boolean; onChoose: (how: 'fresh' | 'resume') => void }) {
  return (
    <div className="run-design-changed" data-testid="run-design-changed">
      <p>
        The design changed since this run started ({done} restart{done === 1 ? '' : 's'} done):
      </p>
      <ul>
        {changes.map((c) => (
          <li key={c}>{c}</li>
        ))}
      </ul>
      <div style={{ display: 'flex', gap: 8, flexWrap: 'wrap' }}>
        <button className="primary" disabled={disabled} onClick={() => onChoose('fresh')} data-testid="run-start-over" title="The unfinished run's results are kept in a copy of the file and its journal archived">
          Start over with the new design
        </button>
        <button disabled={disabled} onClick={() => onChoose('resume')} data-testid="run-resume-old" title="The file gets the design the run started with back; your edited file is kept beside it">
          Resume the old design
        </button>
      </div>
    </div>
  );
}

/** A run on several hosts: each host's progress; the one chosen is shown below. */
function HostsBar() {
  const runs = useRunSession((s) => s.runs);
  const live = useRunSession((s) => s.live);
  useRunSession((s) => s.frame);
  return <HostButtons runs={runs} shown={live} onShow={showHost} />;
}

/** One button per host of a run on several hosts (live, or its saved results): its state and restarts. */
function HostButtons({ runs, shown, onShow }: { runs: LiveRuns; shown: LiveRun; onShow: (host: string) => void }) {
  if (runs.hosts.length < 2) return null;
  return (
    <div style={{ display: 'flex', gap: 8, alignItems: 'center', flexWrap: 'wrap' }} data-testid="run-host-bar">
      <span>Hosts:</span>
      {runs.hosts.map((h) => {
        const l = runs.get(h);
        return (
          <button key={h} className={l === shown ? 'primary' : undefined} onClick={() => onShow(h)} data-testid="run-host" data-host={h} data-state={l.state}>
            {h}: {l.state}, {l.done} of {l.planned}
          </button>
        );
      })}
    </div>
  );
}

/**
 * A followed detached run whose link dropped: said in place of "running restart k of n" (which this
 * computer cannot know now), with the next try counted down each second. The run goes on there.
 */
function LinkLost({ link }: { link: LinkState }) {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, []);
  return (
    <span className="run-link-lost" role="status" data-testid="run-detached" data-link="lost" title="The run goes on on its target and keeps what it measures; this computer follows it again from where it stopped as soon as it answers">
      {linkWords(link, Math.max(now, Date.now()))}
    </span>
  );
}

/** The time left, counted down each second between the estimates each finished restart brings. */
function TimeLeft({ live }: { live: LiveRun }) {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, []);
  return <span data-testid="run-time-left">{formatDuration(Math.round(live.remainingNow(now) / 1000))} left</span>;
}

function Progress() {
  const live = useRunSession((s) => s.live);
  const detached = useRunSession((s) => s.detached);
  useRunSession((s) => s.frame);
  // A run that stopped when answered finished with fewer restarts than its maximum: it is whole, all the same.
  const pct = live.state === 'finished' ? 100 : live.planned ? (100 * live.done) / live.planned : 0;
  const active = live.state === 'running' || live.state === 'paused';
  // Of the restarts done, those that measured anything: a run whose restarts all failed to start says so, as the CLI does.
  const tally = { done: live.restarts.length, measured: live.restarts.filter((r) => r.status === 'ok').length };
  // Another file opened while this tab watches a run: the run, its Pause and its Cancel are that run's file's.
  const runPath = useRunSession((s) => s.path);
  const openPath = useApp((s) => s.path);
  // Runs of a command or executions of queries: the run's own figures say; before the first, the open file's design if it is the run's.
  const openKind = useApp((s) => s.doc?.design.workload.kind);
  const kind = live.kind ?? (runPath && openPath && runPath !== openPath ? undefined : openKind);
  return (
    <div className="run-box" style={{ display: 'grid', gap: 6 }} data-testid="run-progress">
      {runPath && openPath && runPath !== openPath && (
        <p className="run-other-file" data-testid="run-other-file">
          This is the run of <code>{runPath}</code>, not of the open file <code>{openPath}</code>: Pause and Cancel act on it. The open file&apos;s Run comes back here when it has ended.
        </p>
      )}
      <HostsBar />
      <div style={{ display: 'flex', gap: 16, alignItems: 'center', flexWrap: 'wrap' }}>
        <strong data-testid="run-state">{live.state}</strong>
        {detached && active && live.link?.state === 'lost' && <LinkLost link={live.link} />}
        {detached && active && live.link?.state !== 'lost' && (
          <span data-testid="run-detached">
            detached on <code>{detached.target}</code>,{' '}
            {/* Until its journal's plan has come in, n is not known: "restart 0 of 0" would be a wrong answer. */}
            {live.planned ? `running restart ${Math.min(Math.max(live.done + 1, detached.current ?? 0), live.planned)} of ${live.planned}` : 'reading its journal…'}
          </span>
        )}
        {detached && active && live.link?.state === 'back' && (
          <span className="muted" data-testid="run-link-back">
            {linkWords(live.link, Date.now())}
          </span>
        )}
        <span data-testid="run-count">
          {live.done} of {live.stopping ? 'at most ' : ''}
          {live.planned} restarts{measuredIn(tally)}
        </span>
        {active && <TimeLeft live={live} />}
        <span data-testid="run-executions">{executionsText(live.executions, kind)}</span>
        {live.current && (
          <span data-testid="run-current">
            restart {live.current.seq}: <code>{live.current.cell}</code>
          </span>
        )}
        <span style={{ flex: 1 }} />
        <button disabled={live.state !== 'running' || detached !== null} onClick={() => void control('run.pause')} title={detached ? 'A detached run goes on by itself on its target: it cannot pause (Cancel stops it there)' : 'Takes effect when the current restart ends'}>
          Pause
        </button>
        <button disabled={live.state !== 'paused'} onClick={() => void control('run.resume')}>
          Resume
        </button>
        {detached && active && (
          <button onClick={() => void stopFollowing(useApp.getState().generation)} title={`This computer stops following it; the run goes on on ${detached.target} (Cancel stops it there)`} data-testid="run-stop-following">
            Stop following
          </button>
        )}
        <button className="danger" disabled={!active} onClick={() => void control('run.cancel')} data-testid="run-cancel">
          Cancel
        </button>
      </div>
      <div className="run-bar">
        <div style={{ width: `${pct}%` }} />
      </div>
      {/* Why it ended, where the user looks: not only in the log below the plots. */}
      {live.state === 'finished' && measuredNothing(tally) && (
        <p className="run-ended run-failed" role="alert" data-testid="run-ended-why">
          Run finished, but no restart measured anything (each one&apos;s reason is in the log below): the file holds no measurement. Fix the cause, then run it again from scratch.
        </p>
      )}
      {(live.state === 'failed' || live.state === 'cancelled') && live.finishMessage && (
        <p className={`run-ended run-${live.state}`} role={live.state === 'failed' ? 'alert' : undefined} data-testid="run-ended-why">
          Run {endedWords(live.state, live.finishMessage)}
        </p>
      )}
      {live.data && <DataStepBar data={live.data} testId="run-data" />}
      <Verified live={live} />
      {live.interval && live.interval.seq === live.current?.seq && (
        <small data-testid="run-interval">
          run {live.interval.rep}, {live.interval.second} s: {live.interval.tps.toFixed(1)} tps, {live.interval.qps.toFixed(1)} qps
          {live.interval.latencyMs !== undefined ? `, latency ${live.interval.latencyMs} ms (${live.interval.percentile !== undefined ? `${live.interval.percentile}th percentile` : 'the percentile sysbench reports'})` : ''}
        </small>
      )}
      {live.busyHost && (live.state === 'running' || live.state === 'paused') && (
        <small role="status" data-testid="run-host-busy" style={{ color: '#9a6700' }}>
          ⚠ The host is busy: restart {live.busyHost.seq} ran beside other load ({live.busyHost.reasons.join('; ')}). Its timings carry that noise; Analysis flags each such restart.
        </small>
      )}
      {live.timerNote && <TimerNote parts={live.timerNote} />}
      {!live.timerNote && live.source && <TimerSource source={live.source} />}
    </div>
  );
}

/** A part of a note as a sentence of its own: capital first, a full stop last. */
const sentence = (s: string) => `${s.charAt(0).toUpperCase()}${s.slice(1)}${s.endsWith('.') ? '' : '.'}`;

/** The exact timer named (a run measured by another one has its note instead): live, and on a finished file. */
function TimerSource({ source }: { source: string }) {
  // A benchmark command's figures are its own (sysbench's summary, or the design's pattern on its output): no server timer.
  const words = source === 'sysbench' ? "figures from sysbench's own output, per run (no server timer)" : source === 'regex' ? "figures from the command's output, read with the design's pattern (no server timer)" : `times from the server: ${source}`;
  return <small data-testid="run-timer-source">{words}</small>;
}

/** A grown design whose runs measured with different timers: each run's, its note in its parts or the timer it used. */
function TimerRuns({ runs }: { runs: RunsTimer[] }) {
  return (
    <div data-testid="run-timer-runs">
      <small>The runs of this grown design (run --missing) measured with different timers:</small>
      {runs.map((t) => (
        <div key={t.runs.join()} data-testid="run-timer-run">
          <small>{sentence(runsWords(t.runs)).replace(/\.$/, ':')}</small>
          {t.note ? <TimerNote parts={t.note} /> : <small> {noNoteWords(t.source)}</small>}
        </div>
      ))}
    </div>
  );
}

/**
 * The timer note (not the exact timer) in its parts, one a line: which timer and why, how it compared
 * with the client's time and what that difference is, and, folded, how to measure with the exact
 * timer, its server options one under another to copy.
 */
function TimerNote({ parts: p }: { parts: TimerNoteParts }) {
  const opts = p.help?.options ?? [];
  return (
    <div className="run-timer-note" role="note" data-testid="run-timer-note">
      <div>⚠ {sentence(p.what)}</div>
      {p.vsClient && (
        <div data-testid="run-timer-vs-client">
          {sentence(p.vsClient)} That difference is what the server&apos;s figure leaves out of each execution: the way to the client and back, and the timer&apos;s own constant.
        </div>
      )}
      {p.help && (
        <details>
          <summary>How to measure with the exact timer</summary>
          <div>
            {sentence(p.help.before).replace(/\.$/, ':')}
          </div>
          {opts.length > 0 && <pre>{opts.join('\n')}</pre>}
          {p.help.after && <div>{sentence(p.help.after)}</div>}
        </details>
      )}
    </div>
  );
}

/**
 * The two small plots: their titles sit just above the plot area, below the mode bar that Plotly
 * shows at the top right on hover (in the default 40 px margin it covered the end of the title).
 * A short title and its qualifier as a smaller subtitle under it: in one line of 17 px the whole
 * (about 470 px) was cut at both ends in a window 1000 px wide, where each plot is about 466 px.
 */
const SMALL = { margin: { l: 60, r: 20, t: 80, b: 50 }, title: { yref: 'paper', y: 1, yanchor: 'bottom', pad: { b: 30 } } };
const smallTitle = (text: string, subtitle: string) => ({ ...SMALL.title, text, subtitle: { text: subtitle, font: { size: 12, color: '#57606a' } } });

/** The tunables and the server's own options as verified on the live server: now, or at the last restart once the run has ended. */
function Verified({ live }: { live: LiveRun }) {
  const v = live.verified;
  if (!v || !(v.checks.length || v.options?.length)) return null;
  return (
    <small data-testid="run-verified">
      {v.running ? 'verified' : `verified at restart ${v.seq}`}:{' '}
      {v.checks.map((c) => (
        <span key={c.tunable} style={{ color: c.ok ? '#1a7f37' : '#b42318', marginRight: 10 }} title={c.observed}>
          {c.tunable}={c.level} {c.ok ? '✓' : '✗'}
          {/* Which binary runs is the point of a build factor: shown, not only in the tooltip. */}
          {c.tunable === 'build' ? <span data-testid="run-build"> ({c.observed})</span> : null}
        </span>
      ))}
      {v.options?.length ? (
        <span data-testid="run-options">
          {' '}
          server options:{' '}
          {v.options.map((c) => (
            <span key={c.tunable} style={{ color: !c.ok ? '#b42318' : c.verifiable === false ? '#6b7785' : '#1a7f37', marginRight: 10 }} title={c.observed}>
              {c.tunable}={c.level} {checkWord(c).mark}
              {c.verifiable === false ? ' set, not verifiable' : ''}
            </span>
          ))}
        </span>
      ) : null}
    </small>
  );
}

const PALETTE = ['#3271d4', '#d4573b', '#2f9e6e', '#8a5cd1', '#c49a1a', '#1b9aaa', '#c2417d', '#6b7785'];
/** Past the palette's colours, the marker's shape (and the line's dash) tells the cells apart: 16 cells are 8 colours × 2 shapes. */
const SHAPES = [
  { symbol: 'circle', glyph: '●', dash: 'solid' },
  { symbol: 'square', glyph: '■', dash: 'dot' },
  { symbol: 'diamond', glyph: '◆', dash: 'dash' },
  { symbol: 'triangle-up', glyph: '▲', dash: 'dashdot' },
];

/** How a cell is drawn in the Run view's plots: the i-th cell's colour and shape. */
function cellStyle(i: number): { color: string; symbol: string; glyph: string; dash: string } {
  return { color: PALETTE[i % PALETTE.length], ...SHAPES[Math.floor(i / PALETTE.length) % SHAPES.length] };
}

/**
 * The cells of the restart-level plots, one legend for both (they draw a cell alike): beside a plot,
 * sixteen cell names would leave it no room, so the names wrap below the pair instead.
 */
function CellLegend({ cells }: { cells: string[] }) {
  if (cells.length < 2) return null;
  return (
    <div className="run-legend" data-testid="run-legend">
      {cells.map((c, i) => {
        const st = cellStyle(i);
        return (
          <span key={c} data-cell={c}>
            <span style={{ color: st.color }} aria-hidden>
              {st.glyph}
            </span>{' '}
            {c}
          </span>
        );
      })}
    </div>
  );
}

function Charts({ live, frame }: { live: LiveRun; frame: number }) {
  const [chosen, setChosen] = useState<string | null>(null);
  const query = chosen && live.queries.includes(chosen) ? chosen : (live.queries[0] ?? null);

  const [note, setNote] = useState<TimelineNote | null>(null);
  // Runs of a command or executions: the figures drawn say (a saved file's do not: its design does).
  const openKind = useApp((s) => s.doc?.design.workload.kind);
  // The restart-level plots and the MDE change only when a restart finishes (or is discarded): not redrawn on every frame.
  const restarts = `${live.restarts.length} ${live.queries.length} ${live.cells.length} ${live.executions === 0 ? 0 : 1} ${live.state}`;

  const cellColour = useMemo(() => new Map(live.cells.map((c, i) => [c, cellStyle(i)])), [live.cells]);

  const means = useMemo(() => {
    if (!query) return { data: [], layout: {} };
    const byCell = new Map<string, { x: number[]; y: number[]; e: number[] }>();
    for (const p of live.restartMeans(query)) {
      const t = byCell.get(p.cell) ?? { x: [], y: [], e: [] };
      t.x.push(p.seq);
      t.y.push(p.mean);
      t.e.push(p.sd);
      byCell.set(p.cell, t);
    }
    return {
      data: [...byCell].map(([cell, t]) => ({
        type: 'scatter',
        mode: 'markers',
        name: cell,
        x: t.x,
        y: t.y,
        error_y: { type: 'data', array: t.e, visible: true, thickness: 1 },
        marker: { color: cellColour.get(cell)?.color, symbol: cellColour.get(cell)?.symbol, size: 7 },
        hovertemplate: `${cell}<br>restart %{x}: %{y:.3f} ± %{error_y.array:.3f}<extra></extra>`,
      })),
      // Sixteen cell names do not fit beside the plot: the legend below the pair names them (CellLegend).
      layout: { margin: SMALL.margin, title: smallTitle('restart means ± within-restart SD', 'warm-ups excluded'), xaxis: { title: { text: 'restart' }, tick0: 1, dtick: integerStep(live.restarts.length) }, showlegend: false, datarevision: restarts, uirevision: query },
    };
  }, [live, query, restarts, cellColour]);

  const spreadWhy = useMemo(() => (query ? live.spreadWhy(query) : null), [live, query, restarts]);
  const spread = useMemo(() => {
    if (!query) return { data: [], layout: {} };
    const byCell = live.spreadByCell(query);
    return {
      data: [...byCell].map(([cell, pts]) => ({ type: 'scatter', mode: 'lines+markers', name: cell, x: pts.map((p) => p.restarts), y: pts.map((p) => p.cvPct), line: { color: cellColour.get(cell)?.color, dash: cellColour.get(cell)?.dash }, marker: { symbol: cellColour.get(cell)?.symbol }, hovertemplate: `${cell}<br>after %{x} restarts: CV %{y:.2f}%<extra></extra>` })),
      layout: { margin: SMALL.margin, title: smallTitle('between-restart CV of each cell', 'as its restarts accumulate'), xaxis: { title: { text: 'restarts of the cell' }, dtick: 1 }, yaxis: { title: { text: 'CV of restart means (%)' } }, showlegend: false, datarevision: restarts, uirevision: query },
    };
  }, [live, query, restarts, cellColour]);

  // restarts: the live data changed in place.
  const mdes = useMemo(() => live.queries.map((q) => ({ q, m: live.mde(q) })), [live, restarts]);
  // When no query has a value yet for the same reason, say it once rather than per query.
  const whys = mdes.map(({ q, m }) => (m ? null : live.mdeWhy(q)));
  const sameWhy = whys.length && whys.every((w) => w !== null && w === whys[0]) ? whys[0] : null;

  if (!query) return <p>{live.intervalCount ? "Waiting for the first run of the benchmark to end: its figure is the restart's measurement." : 'Waiting for the first execution…'}</p>;
  return (
    <>
      <div style={{ display: 'flex', gap: 12, alignItems: 'center', flexWrap: 'wrap' }}>
        <label>
          query{' '}
          <select value={query} onChange={(e) => setChosen(e.target.value)} data-testid="run-query">
            {live.queries.map((q) => (
              <option key={q}>{q}</option>
            ))}
          </select>
        </label>
        <span data-testid="run-mde">
          minimum detectable effect now ({MDE_LABELS.pooled}, α {DEFAULTS.alpha}, power {DEFAULTS.power}):{' '}
          {sameWhy !== null ? (
            <em>{sameWhy}</em>
          ) : (
            mdes.map(({ q, m }) => (
              <span key={q} style={{ marginRight: 12 }} title={m ? m.basis : undefined}>
                {q}: {m ? <strong>{`${m.pct.toFixed(1)}%`}</strong> : <em>{live.mdeWhy(q)}</em>}
              </span>
            ))
          )}
        </span>
      </div>
      <div className="run-timeline">
        <Timeline live={live} query={query} frame={frame} onNote={setNote} />
      </div>
      {note?.offScale ? (
        <small className="run-timeline-offscale" data-testid="run-timeline-offscale">
          {offScaleNote(note.offScale, note.offScale.unit, 'y')}; double-click for the full range.
        </small>
      ) : note?.full ? (
        <small className="run-timeline-offscale" data-testid="run-timeline-offscale">
          The full range, warm-ups and all; double-click to range the axis on the measured executions again.
        </small>
      ) : null}
      {note && !note.exact ? (
        <small className="muted" data-testid="run-timeline-note">
          Drawn: {note.drawn.toLocaleString('en')} of {executionsText(note.total, live.kind ?? openKind)}{' '}
          {note.zoomed ? 'in the zoomed range ' : ''}— the lowest and the highest of each pixel column; zoom in to see every execution (double-click: the whole run).
        </small>
      ) : null}
      <div className="run-pair">
        <div>
          <Plot data={means.data} layout={means.layout} className="run-plot" testId="run-means" />
        </div>
        <div>
          {spreadWhy ? (
            <p className="run-plot" data-testid="run-spread-why">
              {spreadWhy}
            </p>
          ) : (
            <Plot data={spread.data} layout={spread.layout} className="run-plot" testId="run-spread" />
          )}
        </div>
      </div>
      <CellLegend cells={live.cells} />
    </>
  );
}

/** A tick step for an axis of restart numbers: whole restarts only (never 1.5), about ten ticks at most. */
function integerStep(count: number): number {
  return Math.max(1, Math.ceil(count / 10));
}

/** Restart boundaries drawn on the interval plots: labelled while there are few enough to read. */
const LABELLED_BOUNDARIES = 24;

/**
 * A benchmark command's interval lines (sysbench --report-interval), live: throughput and the latency
 * percentile sysbench prints, over the run's measured seconds (restarts and their runs end to end),
 * one line per restart in its cell's colour, a dashed line where each restart begins. A long run's
 * lines are decimated to the plots' pixel columns (intervals.ts).
 */
function IntervalPlots({ live }: { live: LiveRun }) {
  const count = live.intervalCount;
  const cellColour = useMemo(() => new Map(live.cells.map((c, i) => [c, cellStyle(i)])), [live.cells]);
  const figures = useMemo(() => {
    const traces = live.intervalTraces;
    const line = (t: IntervalTrace, all: number[], what: string) => {
      const { x, y, rep } = drawnInterval(t, all, count);
      return {
        type: 'scatter',
        mode: 'lines',
        name: t.cell,
        x,
        y,
        customdata: rep,
        line: { color: cellColour.get(t.cell)?.color ?? PALETTE[0], dash: cellColour.get(t.cell)?.dash, width: 1.5 },
        connectgaps: false,
        hovertemplate: `restart ${t.seq} · ${t.cell}<br>run %{customdata}: %{y:.4~f} ${what}<extra></extra>`,
      };
    };
    const boundaries = traces.map((t) => ({ type: 'line', xref: 'x', yref: 'paper', x0: t.start, x1: t.start, y0: 0, y1: 1, line: { color: '#8c959f', width: 1, dash: 'dot' } }));
    const labels = traces.length <= LABELLED_BOUNDARIES ? traces.map((t) => ({ xref: 'x', yref: 'paper', x: t.start, y: 1, xanchor: 'left', yanchor: 'top', xshift: 2, text: `restart ${t.seq}`, showarrow: false, font: { size: 10, color: '#57606a' } })) : [];
    const percentile = traces.find((t) => t.percentile !== undefined)?.percentile;
    const layout = (title: string, subtitle: string, y: string) => ({
      margin: SMALL.margin,
      title: smallTitle(title, subtitle),
      xaxis: { title: { text: 'measured seconds (runs and restarts end to end)' }, rangemode: 'tozero' },
      yaxis: { title: { text: y }, rangemode: 'tozero' },
      shapes: boundaries,
      annotations: labels,
      // The cells are named once below the pair (CellLegend), as for the query plots.
      showlegend: false,
      datarevision: count,
      uirevision: 'intervals',
    });
    return {
      tps: { data: traces.map((t) => line(t, t.tps, 'tps')), layout: layout('throughput over time', 'transactions per second, per interval', 'tps') },
      latency: {
        data: traces.map((t) => line(t, t.latencyMs, 'ms')),
        layout: layout('latency over time', percentile !== undefined ? `${percentile}th percentile per interval, as sysbench reports it` : 'the percentile sysbench reports per interval', 'ms'),
      },
      hasLatency: traces.some((t) => t.latencyMs.some((v) => !Number.isNaN(v))),
    };
    // count: the lines changed in place (the view is drawn at most once per animation frame).
  }, [live, count, cellColour]);
  if (!count) return null;
  return (
    <>
      <div className="run-pair" data-testid="run-intervals">
        <div>
          <Plot data={figures.tps.data} layout={figures.tps.layout} className="run-plot" testId="run-throughput" />
        </div>
        <div>{figures.hasLatency ? <Plot data={figures.latency.data} layout={figures.latency.layout} className="run-plot" testId="run-latency" /> : <p className="run-plot">sysbench printed no latency percentile per interval.</p>}</div>
      </div>
      <CellLegend cells={live.cells} />
    </>
  );
}

/**
 * The run's log, every line the live run keeps (its newest 500: live.ts), in a box of about 12
 * lines that follows the newest line while the reader is at its end. Not the last 12 alone: a restart
 * on a busy host adds a line each, and they pushed the lines said once at the start (the host busy
 * before the run, the setup script, varlab yielding the CPU to mysqld) out of sight by restart 10.
 */
function Log({ live }: { live: LiveRun }) {
  useRunSession((s) => s.frame);
  const last = live.log[live.log.length - 1];
  // The log is appended to in place: its length and newest line say when it changed. The rows are made
  // only then, not at every animation frame a streaming run redraws on.
  const rows = useMemo(
    () =>
      live.log.map((l, i) => (
        <div key={`${l.at}-${i}`} style={{ color: l.level === 'error' ? '#b42318' : l.level === 'warn' ? '#9a6700' : undefined }}>
          {new Date(l.at).toLocaleTimeString()} {l.message}
        </div>
      )),
    [live, live.log.length, last],
  );
  const box = useRef<HTMLDivElement>(null);
  const atEnd = useRef(true);
  useLayoutEffect(() => {
    if (box.current && atEnd.current) box.current.scrollTop = box.current.scrollHeight;
  }, [rows]);
  if (!rows.length) return null;
  return (
    <div
      className="run-box run-log"
      data-testid="run-log"
      ref={box}
      onScroll={(e) => {
        const el = e.currentTarget;
        atEnd.current = el.scrollTop + el.clientHeight >= el.scrollHeight - 4;
      }}
    >
      {rows}
    </div>
  );
}

/**
 * A finished run of the open file: what it holds, and running it again only when the user confirms.
 * What running again or running only what is missing would take is said at the costs this run
 * measured ("from the run of DATE"), as plan, the Designer and the start panel say it.
 */
function FinishedPanel({ path, doc, done, planned, keepResultsAs, summary, missing, stopped }: { path: string; doc: ExperimentDoc | null; done: number; planned: number; keepResultsAs: string; summary: string | null; missing?: { cells: number; restarts: number }; stopped: { round: number }[] }) {
  const error = useRunSession((s) => s.error);
  // With stop when answered the plan is a maximum: said so, as the run's own progress says it.
  const again = useMemo(() => (doc ? { restarts: `${doc.design.stopping ? 'at most ' : ''}${buildPlan(doc.design).length}`, about: aboutText(learnedEstimate(doc)) } : null), [doc]);
  const missingAbout = useMemo(() => (doc && missing ? aboutText(learnedEstimate(doc, missing.restarts)) : null), [doc, missing]);
  // The busy-host warning is shown while a run goes on; once it has ended, this says what it left in the file.
  const noise = useMemo(() => (doc?.results ? noiseSummary(doc.results.restarts, [], () => null) : null), [doc]);
  const ask = () =>
    useApp.getState().setDialog({
      kind: 'confirm',
      title: 'Run again from scratch?',
      message: `${path} will be run again from its first restart${again ? ` (${again.restarts} restarts, ${again.about})` : ''} and its results replaced. The current results are kept in ${keepResultsAs} (and the journal archived beside it).`,
      yes: 'Run again from scratch',
      resolve: (yes) => {
        useApp.getState().setDialog(null);
        if (yes) void startRun(path, {}, 'fresh');
      },
    });
  return (
    <div className="run-box" style={{ display: 'flex', gap: 12, alignItems: 'center', flexWrap: 'wrap' }} data-testid="run-finished">
      <strong data-testid="run-finished-count">
        {stopped.length ? `Stopped when answered at round ${stopped.map((s) => s.round).join(', ')}: ${done} of at most ${planned} restarts` : `Finished: ${done} of ${planned} restarts`}
      </strong>
      <span>
        The results are in <code>{path}</code>
        {summary ? ` (${summary})` : ''}; the Analysis tab compares the cells.
      </span>
      {noise?.busy.length ? (
        <span className="warning" style={{ flexBasis: '100%' }} data-testid="run-finished-busy">
          ⚠ {noise.busy.length} of {noise.read} measured restarts ran on a busy host: their timings carry that noise. Analysis shows it beside the between-restart spread, and names each such restart.
        </span>
      ) : null}
      <span style={{ flex: 1 }} />
      {missing && (
        <span data-testid="run-missing-note">
          The design grew since: {missing.cells} cell{missing.cells === 1 ? '' : 's'} need{missing.cells === 1 ? 's' : ''} {missing.restarts} restart{missing.restarts === 1 ? '' : 's'} in all
          {missingAbout ? <span data-testid="run-missing-estimate">, {missingAbout}</span> : null}. The old cells are not measured again.
        </span>
      )}
      {missing && (
        <button className="primary" onClick={() => void startRun(path, {}, 'missing')} title="Run the new cells alone, in rounds of their own; their results join the file's" data-testid="run-missing">
          Run only what is missing
        </button>
      )}
      <button onClick={ask} data-testid="run-again">
        Run again from scratch
      </button>
      <RunError error={error} />
    </div>
  );
}

/** The finished run's cells and measurements; `kind`: the open file's workload, when the runs' figures do not say (saved results). */
function summaryOf(lives: LiveRun[], kind: Workload['kind'] | undefined): string | null {
  const executions = lives.reduce((n, l) => n + l.executions, 0);
  if (!executions) return null;
  const cells = new Set(lives.flatMap((l) => l.restarts.filter((r) => r.status === 'ok').map((r) => r.cell))).size;
  return `${cells} cell${cells === 1 ? '' : 's'}, ${executionsText(executions, lives[0]?.kind ?? kind)}${lives.length > 1 ? ` on ${lives.length} hosts` : ''}`;
}

/** Every host's live runs of a LiveRuns (one, for a run on one host). */
const livesOf = (runs: LiveRuns): LiveRun[] => (runs.hosts.length ? runs.hosts.map((h) => runs.get(h)) : [runs.get()]);

/** The saved results of a finished run, folded like live events so the same plots show them: one per host (each numbers its restarts from 1). */
function liveFromResults(doc: ExperimentDoc): LiveRuns {
  const runs = new LiveRuns();
  const results = doc.results;
  if (!results) return runs;
  const hosts = resultHosts(doc.design, results.restarts);
  const groups: [string, typeof results.restarts][] = hosts.length ? hosts.map((h) => [h, results.restarts.filter((r) => r.host === h)]) : [['', results.restarts]];
  const at = results.finishedAt ?? results.startedAt ?? 0;
  const queries = doc.design.workload.kind === 'command' && doc.design.workload.command ? [doc.design.workload.command.metric] : doc.design.workload.queries.map((q) => q.name);
  const planned = buildPlan(doc.design).length;
  const cells = expandCells(doc.design)
    .filter((c) => !c.excluded)
    .map((c) => c.id);
  const stopping = doc.design.stopping;
  for (const [host, restarts] of groups) {
    const live = new LiveRun();
    live.workload = doc.design.workload.kind;
    // Which statement timer measured the queries, and this host's note, as the run found them.
    const source = doc.design.workload.kind === 'queries' ? restarts.flatMap((r) => r.queries.map((q) => q.source))[0] : undefined;
    live.apply([
      { type: 'run-started', at, planned, done: restarts.length, cells, queries, warmup: doc.design.workload.warmup, ...(stopping ? { stopping } : {}) },
      { type: 'history', at, warmup: doc.design.workload.warmup, restarts },
      ...(source ? [{ type: 'timer' as const, at, source, ...timerFoundOf(results, host, hosts) }] : []),
      ...stopEvents(doc, host, restarts, at),
      { type: 'run-finished', at, state: 'finished' },
    ]);
    // A grown design whose runs measured with different timers: each run's.
    const byRun = timersByRun(results, host, hosts);
    if (byRun.length > 1) live.timerRuns = byRun;
    // What the run said (results.log, journaled as it said it) beside the lines its records make (a busy or failed restart), in time order.
    const said = (results.log ?? []).filter((l) => (l.host ?? '') === host).map(({ host: _h, ...l }) => ({ ...l, message: eventLine({ type: 'log', ...l })!.text }));
    // At the same time what the run said comes first (the look before the stop it made).
    const lines = [...said, ...live.log].sort((a, b) => a.at - b.at);
    live.log.splice(0, live.log.length, ...lines);
    runs.byHost.set(host, live);
  }
  return runs;
}

/** A saved run with a stopping rule: its last look, replayed on this host's results by the same rule, and where it stopped. */
function stopEvents(doc: ExperimentDoc, host: string, restarts: RestartResult[], at: number): RunEvent[] {
  if (!doc.design.stopping) return [];
  const check = stopCheck({ ...doc, results: { restarts } });
  const r = check.result;
  const look = r?.looks[r.looks.length - 1];
  const out: RunEvent[] = [];
  if (r && look) out.push({ type: 'look', at, look, comparisons: r.comparisons, max_rounds: r.max_rounds, effect_pct: r.effect_pct, rounds_left: roundsLeft(r), stopped_because: r.stopped_round === null ? null : r.stopped_because });
  const stopped = doc.results?.stopped?.find((s) => (s.host ?? '') === host);
  // The stop is said after the look that made it, as the live run said them: the look's lines reached results.log a few
  // ms after the stop record was made, so the record's own time would put "stopped when answered" before its look.
  const saidLook = (doc.results?.log ?? []).filter((l) => (l.host ?? '') === host && l.message.startsWith(`look at round ${stopped?.round} `)).map((l) => l.at);
  if (stopped) out.push({ type: 'stopped-answered', at: Math.max(stopped.at, ...saidLook), round: stopped.round, because: stopped.because });
  return out;
}

export function RunView() {
  const appPath = useApp((s) => s.path);
  const generation = useApp((s) => s.generation);
  const doc = useApp((s) => s.doc);
  const runId = useRunSession((s) => s.runId);
  const sessionPath = useRunSession((s) => s.path);
  const live = useRunSession((s) => s.live);
  const runs = useRunSession((s) => s.runs);
  const frame = useRunSession((s) => s.frame);
  // Several hosts: the run goes on while any host's does.
  const active = runId !== null && runs.active;
  // A tab opened mid-run has no file open: the run it attached to is its file.
  const path = appPath ?? sessionPath;
  const finished = useRunSession((s) => (s.finished && s.finished.path === path ? s.finished : null));
  // The session's run is shown when it is running, is of this file, or nothing else is open.
  const showSession = runId !== null && (active || sessionPath === path || !appPath);
  const saved = useMemo(() => (finished && doc && !showSession ? liveFromResults(doc) : null), [finished, doc, showSession]);
  // Saved results on several hosts: the host whose restarts are shown (the first, until one is chosen).
  const [savedHost, setSavedHost] = useState<string | null>(null);
  const savedLive = saved ? saved.get(savedHost && saved.hosts.includes(savedHost) ? savedHost : null) : null;
  useEffect(() => {
    void attachToRunning(appPath);
  }, [appPath]);
  // Whenever the view shows the start panel for a saved file: is there a run to resume, or has it finished?
  useEffect(() => {
    if (path && !active) void checkUnfinished(path);
    // A file whose run goes on on its target by itself: follow it (unless the user stopped following it and has not opened the file again).
    if (path && !active) void followDetached(path, generation);
  }, [path, active, generation]);
  return (
    <div className="run" data-testid="run-view">
      {!active && (finished ? <FinishedPanel path={finished.path} doc={doc} done={finished.restartsDone} planned={finished.restartsPlanned} keepResultsAs={finished.keepResultsAs} missing={finished.missing} summary={summaryOf(showSession ? livesOf(runs) : saved ? livesOf(saved) : [], doc?.design.workload.kind)} stopped={doc?.results?.stopped ?? []} /> : <StartPanel />)}
      {showSession && <Progress />}
      {showSession && <StopPanel live={live} />}
      {showSession && <IntervalPlots live={live} />}
      {showSession && <Charts live={live} frame={frame} />}
      {showSession && <Log live={live} />}
      {saved && savedLive && (
        <>
          {(saved.hosts.length > 1 || savedLive.verified || savedLive.timerNote || savedLive.source) && (
            <div className="run-box" style={{ display: 'grid', gap: 6 }} data-testid="run-saved">
              <HostButtons runs={saved} shown={savedLive} onShow={setSavedHost} />
              <Verified live={savedLive} />
              {savedLive.timerRuns && <TimerRuns runs={savedLive.timerRuns} />}
              {!savedLive.timerRuns && savedLive.timerNote && <TimerNote parts={savedLive.timerNote} />}
              {!savedLive.timerRuns && !savedLive.timerNote && savedLive.source && <TimerSource source={savedLive.source} />}
            </div>
          )}
          <StopPanel live={savedLive} />
          <IntervalPlots live={savedLive} />
          <Charts live={savedLive} frame={0} />
          <Log live={savedLive} />
        </>
      )}
    </div>
  );
}

/**
 * A detached run recorded beside the file by a run this computer did not launch (a shipped file):
 * where it is recorded and on which target; nothing has connected. Follow asks first, naming the
 * target and what following does there.
 */
function RecordedRun({ path, target, journals }: { path: string; target: string; journals: string[] }) {
  const generation = useApp((s) => s.generation);
  const [asking, setAsking] = useState(false);
  return (
    <div className="run-box" style={{ display: 'grid', gap: 8 }} data-testid="run-start">
      <span data-testid="run-detached-recorded">
        A detached run is recorded beside this file, in {journals.map((j, i) => (
          <span key={j}>
            {i ? ', ' : ''}
            <code>{j}</code>
          </span>
        ))}
        : it runs, or ran, on <code>{target}</code>. This computer did not launch it, so nothing has connected there.
      </span>
      {!asking ? (
        <div>
          <button className="primary" onClick={() => setAsking(true)} data-testid="run-follow">
            Follow
          </button>
        </div>
      ) : (
        <div className="warning" role="group" aria-label="Follow this run?" data-testid="run-follow-consent">
          <p>
            Following connects to <code>{target}</code> over SSH with your own key and known_hosts files (never the ones the journal names), reads the run&apos;s
            journal there and brings its measurements into <code>{path}</code>. Once the run has ended, its directory there is removed.
          </p>
          <button className="primary" onClick={() => void agreeToFollow(path, target, generation)} data-testid="run-follow-agree">
            Connect to {target} and follow
          </button>{' '}
          <button onClick={() => setAsking(false)} data-testid="run-follow-no">
            Not now
          </button>
        </div>
      )}
    </div>
  );
}

/** Why the last run request failed, beside the buttons that made it. */
function RunError({ error }: { error: string | null | undefined }) {
  return error ? (
    <span className="problem" data-testid="run-error">
      {error}
    </span>
  ) : null;
}

/** The DBT-3 data step's progress: a line and a bar (in a run, and in a detached launch before the run exists). */
function DataStepBar({ data, testId }: { data: { text: string; fraction: number }; testId: string }) {
  return (
    <div data-testid={testId}>
      <small>{data.text}</small>
      <div className="run-bar">
        <div style={{ width: `${100 * data.fraction}%` }} />
      </div>
    </div>
  );
}

const capitalised = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
