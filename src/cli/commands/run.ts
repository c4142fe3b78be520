// `varlab run FILE`: execute an experiment on its target and save the results into the file.
import { ApiError } from '../../common/api.js';
import type { RunEvent } from '../../common/events.js';
import { buildPlan, estimatePlan, formatDuration } from '../../common/plan.js';
import { RunEngine } from '../../node/engine/run.js';
import { journalPath } from '../../node/engine/journal.js';
import { finishedMessage, finishedRun, prepareRun } from '../../node/engine/prepare.js';
import { createServerControl, dryRunCells, openTarget } from '../../node/host/index.js';
import { numberOption, parse, UsageError, type CliIO, type Command } from '../io.js';
import { terminalPrompter } from '../prompter.js';
import { confirmConsent } from '../consent.js';
import { TARGET_OPTIONS, targetAuth } from './probe.js';
import { visible } from '../../common/printable.js';

/** Interrupts closer together than this are one (see onInterrupt). */
const SAME_INTERRUPT_MS = 1000;

/** A one-line progress bar on a terminal: `[#####-----] 12/32 restarts  4 min 10 s left  cell …`. */
function progressLine(done: number, planned: number, remainingMs: number, cell: string): string {
  const width = 24;
  const filled = planned ? Math.round((done / planned) * width) : width;
  // Written straight to the terminal, not through io: the cell id is made visible here.
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${planned} restarts  ${formatDuration(remainingMs / 1000)} left  ${visible(cell)}`;
}

function describe(e: RunEvent): string | null {
  switch (e.type) {
    case 'restart-finished':
      return `restart ${e.seq} ${e.cell}: ${e.status}${e.reason ? ` (${e.reason})` : ''}`;
    case 'restart-discarded':
      return `restart ${e.seq} ${e.cell} discarded: ${e.reason}`;
    case 'log':
      return `${e.level === 'info' ? '' : `${e.level}: `}${e.message}`;
    case 'preload':
      return `restart ${e.seq}: preloaded ${e.tables} tables, ${e.indexes} indexes, ${e.rows} rows in ${(e.ms / 1000).toFixed(1)} s`;
    default:
      return null;
  }
}

export const run: Command = {
  name: 'run',
  usage:
    'varlab run FILE [--target T] [--identity KEY] [--known-hosts FILE] [--accept-new]\n' +
    '                [--restarts N] [--repetitions N] [--warmup N] [--out FILE] [--events json] [--dry-run] [--trust] [--fresh]\n\n' +
    'Runs every scheduled restart of the plan: tunables applied and verified, mysqld restarted, the queries\n' +
    'or the benchmark command measured. Every measurement goes to FILE.journal.jsonl first; if the run stops\n' +
    '(Ctrl-C, a dropped connection, a crash) running the same command again resumes it.\n' +
    '--target T          run on T instead of the file\'s target (local, ssh://[user@]host[:port], an ssh alias)\n' +
    '--restarts N        restarts per cell       --repetitions N  executions per query per restart\n' +
    '--warmup N          first executions per restart flagged warm-up (kept, excluded from analysis)\n' +
    '                    (these overrides are written into the design of the saved file)\n' +
    '--out FILE          save the experiment with its results here instead of FILE\n' +
    '--events json       print every event as one JSON line on stdout\n' +
    '--dry-run           print every command each cell would run on the host, and run nothing\n' +
    '--fresh             run a finished file again from scratch (a copy of it with its results is kept beside it;\n' +
    '                    without --fresh a finished file is left alone)\n' +
    '--trust             agree to the commands this file runs beyond the built-in tunables (a custom command,\n' +
    '                    setup script, start wrapper) on this target without being asked\n' +
    '--identity KEY, --known-hosts FILE, --accept-new: as for `varlab probe`\n' +
    'Exit status: 0 finished, 1 failed, 2 bad input, 130 cancelled.',
  async run(argv, io) {
    const { values, positionals } = parse(argv, {
      ...TARGET_OPTIONS,
      target: { type: 'string' },
      restarts: { type: 'string' },
      repetitions: { type: 'string' },
      warmup: { type: 'string' },
      out: { type: 'string' },
      events: { type: 'string' },
      'dry-run': { type: 'boolean' },
      trust: { type: 'boolean' },
      fresh: { type: 'boolean' },
    });
    if (positionals.length !== 1) throw new UsageError('expected exactly one FILE');
    if (values.events !== undefined && values.events !== 'json') throw new UsageError(`--events: the only format is json, got ${JSON.stringify(values.events)}`);
    const restarts = numberOption('restarts', values.restarts, { min: 1, max: 10_000, integer: true });
    const repetitions = numberOption('repetitions', values.repetitions, { min: 1, max: 1_000_000, integer: true });
    const warmup = numberOption('warmup', values.warmup, { min: 0, max: 1_000_000, integer: true });

    // A finished file is left alone unless --fresh says otherwise: running it would replace its results.
    const finished = await finishedRun(positionals[0], values.out);
    if (finished && !values.fresh) {
      io.out(finishedMessage(positionals[0], finished));
      return 0;
    }

    // Teammates' files: their own commands are listed and agreed to before the first run on a target (issue 6).
    if (!values['dry-run']) {
      const refused = await confirmConsent({ file: positionals[0], target: values.target, trust: values.trust === true, io, prompt: terminalPrompter(), interactive: Boolean(process.stdin.isTTY) });
      if (refused !== null) return refused;
    }

    let prepared;
    try {
      prepared = await prepareRun({ file: positionals[0], out: values.out, target: values.target, restarts, repetitions, warmup, fresh: values.fresh === true, dryRun: values['dry-run'] === true });
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      io.err(`varlab run: ${e.message}`);
      return e.code === 'busy' ? 1 : 2;
    }
    const { doc, out, resumeNote, freshNote } = prepared;
    const profile = doc.design.serverProfile!;
    const plan = buildPlan(doc.design);
    const est = estimatePlan(doc.design, plan.length);
    if (values['dry-run']) {
      io.out(`${doc.name}: ${plan.length} restarts on ${doc.design.target} (${profile.kind} ${profile.mysqld}), about ${formatDuration(est.seconds)}`);
      io.out(`${est.executions} executions; results into ${out}; journal ${journalPath(out)}`);
      if (resumeNote) io.out(resumeNote);
      if (freshNote) io.out(freshNote);
      // Every command a restart of each cell runs on the host, once per cell (its restarts run the same
      // ones): computed for this host's probe, by the same procedure and compiler as the run.
      const seqsOf = new Map<string, number[]>();
      for (const s of plan) seqsOf.set(s.cell, [...(seqsOf.get(s.cell) ?? []), s.seq]);
      let cells;
      try {
        const session = await openTarget(doc.design.target, { auth: targetAuth(values), prompt: terminalPrompter() });
        try {
          cells = await dryRunCells(createServerControl(session, profile), doc.design);
        } finally {
          await session.close();
        }
      } catch (e) {
        io.err(`varlab run: ${(e as Error).message}`);
        return e instanceof ApiError && e.code === 'invalid-argument' ? 2 : 1;
      }
      for (const cell of cells) {
        io.out('');
        io.out(`== cell ${cell.cell}: restarts ${(seqsOf.get(cell.cell) ?? []).join(', ')}`);
        for (const c of cell.commands) io.out(c);
      }
      io.out('');
      const w = doc.design.workload;
      io.out(w.kind === 'command' && w.command ? `then in each restart, ${w.repetitions} times: ${w.command.line}` : `then in each restart: ${w.queries.length} queries × ${w.repetitions} executions (${w.warmup} warm-up) through the mysql protocol`);
      io.out('dry run: nothing was run');
      return 0;
    }

    const json = values.events === 'json';
    const startedAt = Date.now();
    const bar = io.tty && !json;
    let lastCell = '';
    let last: Extract<RunEvent, { type: 'progress' }> | null = null;
    let barShown = false;
    const clearBar = () => {
      if (barShown) process.stderr.write('\r\x1b[2K');
      barShown = false;
    };
    const onEvent = (e: RunEvent) => {
      if (json) {
        // The restarts of an earlier process (one big line) are for live views; the journal has them.
        if (e.type !== 'history') io.out(JSON.stringify(e));
        return;
      }
      // The engine's own resume line and last time's discards are for live views: the note above said it once.
      if (e.type === 'log' && resumeNote && e.message.startsWith('resuming:')) return;
      if (e.type === 'restart-discarded' && e.at < startedAt) return;
      const line = describe(e);
      // With a bar, routine lines (a restart done, a preload) would only push it around.
      const routine = (e.type === 'restart-finished' && e.status === 'ok') || e.type === 'preload';
      if (line && !(bar && routine)) {
        clearBar();
        io.err(line);
      }
      if (e.type === 'progress') last = e;
      if (e.type === 'restart-started') lastCell = `restart ${e.seq}: ${e.cell}`;
      if (bar && last && (e.type === 'progress' || e.type === 'restart-started' || (line && !routine))) {
        clearBar();
        process.stderr.write(progressLine(last.done, last.planned, last.remainingMs, lastCell));
        barShown = true;
      }
    };

    if (freshNote) io.err(freshNote);
    if (resumeNote) io.err(resumeNote);
    else io.err(`running ${plan.length} restarts on ${doc.design.target}, about ${formatDuration(est.seconds)}; results into ${out}`);

    const engine = new RunEngine({ path: out, doc, auth: targetAuth(values), prompt: terminalPrompter(), onEvent });
    // One Ctrl-C often arrives more than once: the terminal signals the whole process group (npm and
    // node alike) and npm forwards it again; a CI cancel sends SIGTERM. Signals within a second of the
    // first are that same interrupt; only a separate, later Ctrl-C means "leave at once".
    let firstInterrupt = 0;
    const onInterrupt = (signal: NodeJS.Signals) => {
      const now = Date.now();
      if (firstInterrupt && now - firstInterrupt < SAME_INTERRUPT_MS) return;
      if (firstInterrupt && signal === 'SIGINT') {
        io.err('varlab run: interrupted twice: leaving now; the host may still run mysqld (run again to resume and restore)');
        process.exit(130);
      }
      if (firstInterrupt) return;
      firstInterrupt = now;
      clearBar();
      io.err(`cancelling (${signal}): the current restart is discarded, then mysqld is stopped and the host restored (Ctrl-C again to leave at once)`);
      engine.cancel();
    };
    process.on('SIGINT', onInterrupt);
    process.on('SIGTERM', onInterrupt);
    // Node exits with status 0 when nothing is left to wait on; a run waiting on a stream that died
    // silently must never look like success, so keep the process alive until the engine answers.
    const keepAlive = setInterval(() => {}, 60_000);
    let outcome;
    try {
      outcome = await engine.run();
    } finally {
      clearInterval(keepAlive);
      process.off('SIGINT', onInterrupt);
      process.off('SIGTERM', onInterrupt);
      clearBar();
    }
    return report(io, outcome);
  },
};

function report(io: CliIO, o: Awaited<ReturnType<RunEngine['run']>>): number {
  if (o.state === 'finished') {
    io.err(`finished: ${o.done} of ${o.planned} restarts; results saved into ${o.path}`);
    return 0;
  }
  if (o.state === 'cancelled') {
    io.err(`cancelled after ${o.done} of ${o.planned} restarts; run the same command again to resume. ${o.message && !o.message.startsWith('cancelled') ? o.message : ''}`.trim());
    return 130;
  }
  io.err(`varlab run: failed after ${o.done} of ${o.planned} restarts: ${o.message}`);
  io.err(`measurements so far are kept in ${o.journal}; run the same command again to resume`);
  return 1;
}
