// `varlab run FILE`: execute an experiment on its target and save the results into the file. The run
// service does the work (the app uses the same); this prints its progress and answers its questions.
import { dataProgressText } from '../../common/dbt3/words.js';
import { eventLine, measuredIn, measuredNothing } from '../../common/event-line.js';
import { ApiError } from '../../common/api.js';
import { afterColon, type RunEvent } from '../../common/events.js';
import { buildPlan, designHosts, expandCells, formatDuration } from '../../common/plan.js';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { readExperimentFile, saveExperimentFile } from '../../node/files.js';
import { checkExperiment } from '../../common/experiment/validate.js';
import { oneLinerDoc, oneLinerFileName, oneLinerSummary } from '../../common/templates/oneliner.js';
import { analyze, tidyFromExperiment } from '../../common/stats/index.js';
import { DocumentService } from '../../node/documents/service.js';
import { inspectJournal, journalPath } from '../../node/engine/journal.js';
import { resultsFromJournal } from '../../common/records.js';
import type { RunOutcome } from '../../node/engine/run.js';
import { openTarget } from '../../node/host/index.js';
import { chosenTarget, dryRun, dryRunText, type WithTarget } from '../../node/runs/dryrun.js';
import { consentNote, prepareRun, type RunRequest } from '../../node/runs/prepare.js';
import { RunService, type StartOptions } from '../../node/runs/service.js';
import { hostAuths } from '../../node/runs/auth.js';
import type { Prompter } from '../../node/host/types.js';
import { onInterrupt } from '../../node/shutdown.js';
import { numberOption, parse, UsageError, type CliIO, type Command } from '../io.js';
import { terminalPrompter } from '../prompter.js';
import { confirmConsent } from '../consent.js';
import { checkTrust } from '../../node/trust.js';
import { consentList } from '../../common/trust.js';
import { TARGET_OPTIONS, targetAuth } from './probe.js';
import { visible } from '../../common/printable.js';
import { targetProblem } from '../../common/target.js';
import { lookSchedule } from '../../common/stats/sequential.js';
import { aboutText, learnedEstimate } from '../../common/stats/planner.js';

/** The user did not agree to the file's commands: nothing ran; leave with this status. */
class NotAgreed extends Error {
  constructor(readonly status: number) {
    super('not agreed');
  }
}

/** A one-line progress bar on a terminal: `[#####-----] 12/32 restarts  4 min 10 s left  cell …`. */
function progressLine(done: number, planned: number, remainingMs: number, cell: string): string {
  const width = 24;
  const filled = planned ? Math.round((done / planned) * width) : width;
  // Written straight to the terminal, not through io: the cell id is made visible here.
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${planned} restarts  ${formatDuration(remainingMs / 1000)} left  ${visible(cell)}`;
}

/** The data step's bar: `[#####-----] DBT-3 data: loading rows (lineitem) 45%, 1 min 10 s left`. */
function dataProgressLine(e: Extract<RunEvent, { type: 'data-progress' }>): string {
  const width = 24;
  const filled = Math.round(e.fraction * width);
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${dataProgressText(e)}`;
}

export const run: Command = {
  name: 'run',
  usage:
    'varlab run FILE [--target T]... [--identity KEY] [--known-hosts FILE] [--accept-new]\n' +
    '                [--restarts N] [--repetitions N] [--warmup N] [--out FILE] [--events json] [--dry-run [--connect]] [--trust]\n' +
    '                [--fresh | --resume | --missing]\n' +
    '                [--detach] [--until-answered [--effect E] [--max-restarts N]]\n' +
    'varlab run --query SQL [--query SQL]... --factor TUNABLE=L1,L2[,…]... [--restarts N] [--repetitions N] [--warmup N]\n' +
    '                [--database NAME] [--target T] [--out FILE]\n\n' +
    'The second form is a one-liner, as with hyperfine: the command line becomes an experiment (Q1, Q2… × the\n' +
    'factors\' cells, N restarts per cell, default 5, in interleaved rounds), written first to --out FILE, else to\n' +
    './varlab-run-DATE-TIME.varlab.json (named in the output; `varlab run FILE` resumes it, `varlab analyze FILE`\n' +
    'and the app read it), run, and summed up: each cell\'s mean ± sd of its restart means, and each cell against\n' +
    'the first ("ahi=off is 1.04 ± 0.01 times faster than ahi=on") with the analysis\'s verdict. The database\n' +
    '(--database, default varlab_bench) is made when missing; the queries run as a read-only account.\n\n' +
    'Runs every scheduled restart of the plan: tunables applied and verified, mysqld restarted, the queries\n' +
    'or the benchmark command measured. Every measurement goes to FILE.journal.jsonl first; if the run stops\n' +
    '(Ctrl-C, a dropped connection, a crash) running the same command again resumes it; if the design was\n' +
    'edited since, it says what changed and asks for --fresh or --resume. One run at a time per target.\n' +
    'The target is --target, else the file\'s; the server profile is the one registered for that target\n' +
    '(varlab sandbox create), else the file\'s own if it was made for that target.\n' +
    '--target T          run on T instead of the file\'s target (local, ssh://[user@]host[:port], an ssh alias);\n' +
    '                    several (--target A --target B) run the same design on each host at once, each in its\n' +
    '                    own random order and journal (FILE.journal.<host>.jsonl), results tagged with their host;\n' +
    '                    a host that fails does not stop the others\n' +
    '--restarts N        restarts per cell       --repetitions N  executions per query per restart\n' +
    '--warmup N          first executions per restart flagged warm-up (kept, excluded from analysis)\n' +
    '                    (these overrides are written into the design of the saved file)\n' +
    '--out FILE          save the experiment with its results here instead of FILE\n' +
    '--events json       print every event as one JSON line on stdout\n' +
    '--dry-run           print what the run would do on the host: the setup script or data step, and every command\n' +
    '                    each cell sends (computed for what the target has: it connects to read it), runs nothing.\n' +
    '                    It connects only to a host you chose: local, a --target you name, one in your Hosts list\n' +
    '                    (added, probed, run on, or with a sandbox or registered server), or one where you agreed to\n' +
    '                    this file\'s commands; another host a file names is asked about on a terminal, else not\n' +
    '                    connected to (the rest is printed, and how to let it connect)\n' +
    '--connect           with --dry-run: connect to the file\'s target to read it (read only: CPUs, NUMA nodes, mysqld)\n' +
    '                    without being asked\n' +
    '--fresh             start over: a finished or unfinished run of the file begins again from its first restart\n' +
    '                    (the file with its results so far is kept beside it as FILE.results-<date>.varlab.json,\n' +
    '                    the journal archived); without --fresh a finished file is left alone\n' +
    '--missing           run only what the file\'s results miss, after the design of a finished file grew (a level or a\n' +
    '                    cell added, more restarts per cell): those cells alone, in rounds of their own; the old\n' +
    '                    restarts are not measured again and stay in the file, the new ones join them (marked as a\n' +
    '                    later run: Analysis compares them only with cells of their own run unless asked); on\n' +
    '                    several hosts, each host runs the cells it misses; detached too; resumed like a run\n' +
    '--resume            go on with an unfinished run although the file\'s design changed since it started (the run\n' +
    '                    keeps the design it started with; your edited file is kept beside it)\n' +
    '--detach            put the whole run on the target and return within seconds, printing its id: it runs there\n' +
    '                    under systemd-run (a transient unit varlab-<id>) where the target has systemd, else setsid nohup,\n' +
    '                    and needs only sh, coreutils and the mysql/mariadb client there; it restores the host itself.\n' +
    '                    Then: varlab attach FILE (follow it, bring the results into the file), varlab status FILE,\n' +
    '                    varlab cancel FILE. With several --targets: one runner per host, each its own order and journal;\n' +
    '                    a host that does not start is said (exit 1) and the others go on\n' +
    '--until-answered    stop when answered: run in rounds (each round holds every cell once) up to --max-restarts N per\n' +
    '                    cell, and after each look compare every cell with the first in pairs within rounds against\n' +
    '                    group-sequential boundaries (Lan–DeMets, O\'Brien–Fleming type, α over all looks); stop when every\n' +
    '                    comparison is decided (differs / equivalent within ±E % / inconclusive) or at the maximum.\n' +
    '                    Each look is printed; the file keeps the look it stopped at and why. A file with design.stopping\n' +
    '                    runs this way without the flag. --effect E: the target effect in percent (default: the file\'s\n' +
    '                    design.stopping.effect); --max-restarts N (default: design.stopping\'s, else --restarts / the\n' +
    '                    file\'s restarts per cell). Several hosts: each host stops on its own rounds. With --detach the\n' +
    '                    varlab following the run (varlab attach FILE, the app) takes the looks and stops the runner\n' +
    '--trust             agree to what this file runs beyond the built-in tunables (a command, the setup script,\n' +
    '                    the queries, server options, a server profile carried in the file) on this target\n' +
    '                    without being asked (the list is printed in full)\n' +
    '--identity KEY, --known-hosts FILE, --accept-new: as for `varlab probe`. With several --targets, give --identity\n' +
    '                    and --known-hosts once (for every host) or once per --target, in the same order (each host\n' +
    '                    its own; with no --target, in the order of the file\'s hosts). A host given none uses\n' +
    '                    its Hosts-list entry, else ~/.ssh/config, never another host\'s\n' +
    'Exit status: 0 finished, 1 failed (or finished with no restart measuring anything), 2 bad input, 130 cancelled.',
  async run(argv, io) {
    const { values, positionals } = parse(argv, {
      ...TARGET_OPTIONS,
      // Several hosts: once for every host, or once per --target in the same order (each host its own key and known-hosts file).
      identity: { type: 'string', multiple: true },
      'known-hosts': { type: 'string', multiple: true },
      target: { type: 'string', multiple: true },
      restarts: { type: 'string' },
      repetitions: { type: 'string' },
      warmup: { type: 'string' },
      out: { type: 'string' },
      events: { type: 'string' },
      'dry-run': { type: 'boolean' },
      connect: { type: 'boolean' },
      trust: { type: 'boolean' },
      fresh: { type: 'boolean' },
      resume: { type: 'boolean' },
      missing: { type: 'boolean' },
      detach: { type: 'boolean' },
      'until-answered': { type: 'boolean' },
      effect: { type: 'string' },
      'max-restarts': { type: 'string' },
      query: { type: 'string', multiple: true },
      factor: { type: 'string', multiple: true },
      database: { type: 'string' },
    });
    const oneLiner = values.query !== undefined || values.factor !== undefined;
    if (!oneLiner && values.database !== undefined) throw new UsageError('--database: goes with --query (a one-liner); a file names its own database');
    if (oneLiner) {
      if (positionals.length) throw new UsageError(`--query and --factor make the experiment: leave out FILE (${positionals[0]}), or name the file to write with --out`);
      for (const o of ['fresh', 'resume', 'missing', 'detach', 'dry-run'] as const) if (values[o]) throw new UsageError(`--${o}: not with a one-liner (run the file it writes with \`varlab run FILE --${o}\`)`);
      if ((values.target?.length ?? 0) > 1) throw new UsageError('--target: a one-liner runs on one target');
    } else if (positionals.length !== 1) throw new UsageError('expected exactly one FILE');
    if (values.events !== undefined && values.events !== 'json') throw new UsageError(`--events: the only format is json, got ${JSON.stringify(values.events)}`);
    const restarts = numberOption('restarts', values.restarts, { min: 1, max: 10_000, integer: true });
    const repetitions = numberOption('repetitions', values.repetitions, { min: 1, max: 1_000_000, integer: true });
    const warmup = numberOption('warmup', values.warmup, { min: 0, max: 1_000_000, integer: true });

    const until = values['until-answered'] === true;
    if (!until && (values.effect !== undefined || values['max-restarts'] !== undefined)) throw new UsageError(`--${values.effect !== undefined ? 'effect' : 'max-restarts'}: goes with --until-answered`);
    const effect = numberOption('effect', values.effect, { min: 0, max: 99.99 });
    if (effect !== undefined && !(effect > 0)) throw new UsageError('--effect: expected a percentage above 0');
    const maxRestarts = numberOption('max-restarts', values['max-restarts'], { integer: true, min: 3, max: 10_000 });
    const untilAnswered = until ? { effect, maxRestarts: maxRestarts ?? restarts } : undefined;

    const targets = values.target ?? [];
    // A host name is checked as a file's design.target is, before it is looked up or said back in a hint
    // ("… or run: varlab sandbox create T", which a hostile T would turn into a command of its own).
    for (const t of targets) {
      const problem = targetProblem(t);
      if (problem) throw new UsageError(`--target: ${problem}`);
    }
    const file = oneLiner ? await writeOneLiner(io, values, { restarts, repetitions, warmup }) : positionals[0];
    if (file === null) return 2;
    const request = { untilAnswered, file, out: oneLiner ? undefined : values.out, target: targets.length === 1 ? targets[0] : undefined, targets: targets.length > 1 ? targets : undefined, restarts, repetitions, warmup, fresh: values.fresh === true, resume: values.resume === true, missing: values.missing === true };
    if (values.fresh && values.resume) throw new UsageError('--fresh starts over and --resume goes on: pass one of them');
    if (values.missing && (values.fresh || values.resume)) throw new UsageError('--missing runs only what the results miss; --fresh starts over and --resume goes on with an edited design: pass one of them');
    // Repeated per host without --targets (resuming a file that names several): the file's hosts, in its order.
    const repeated = (values.identity?.length ?? 0) > 1 || (values['known-hosts']?.length ?? 0) > 1;
    const auth = runAuth(targets.length || !repeated ? targets : await fileHosts(file), values);

    if (values.connect && !values['dry-run']) throw new UsageError('--connect goes with --dry-run (a run connects once you agree to what it runs: --trust)');
    if (values.detach) {
      if (values['dry-run']) throw new UsageError('--dry-run runs nothing: leave out --detach');
      if (values.events !== undefined) throw new UsageError('--detach prints the run id and returns; `varlab attach FILE --events json` streams the events');
      return detachRun(io, file, { ...request, ...auth }, values);
    }

    // The file's measured run, read before a fresh start keeps it aside in a copy: the time estimates
    // below are at its costs ("from the run of DATE", as varlab plan says), else the design's estimates.
    const measured = (await readExperimentFile(file).catch(() => null))?.doc?.results;

    if (values['dry-run']) {
      try {
        const p = await prepareRun(request);
        // Each host as it would run (several hosts: each its own order, journal and connection).
        const hosts = p.hosts ?? [{ target: p.doc.design.target, doc: p.doc, journal: journalPath(p.out) }];
        const auths = await hostAuths(hosts.map((h) => h.target), auth.auth, auth.hostAuth);
        const prompt = terminalPrompter();
        for (const h of hosts) {
          const design = h.doc.design;
          // What the file would run beyond the built-in tunables, before anything connects: a teammate's
          // file is read here first, whether or not the target can be reached.
          const check = await checkTrust(h.doc, h.target);
          if (check.needsConsent) io.out(`${visible(file)} would run these on ${check.target}, beyond varlab's built-in tunables (not agreed to yet: \`varlab run\` asks before it runs them):\n${consentList(check.commands)}\n`);
          // The target is probed (the commands are computed for what it has), as the run would: only a host
          // the user chose, or agrees to now, is connected to (a teammate's file may name any host).
          const read = (await chosenTarget(check, h.target, targets.length > 0)) || values.connect === true || (await askToRead(h.target, prompt));
          // Resuming an unfinished run: the time is that of the restarts left (the journal's run measured the rest).
          const verdict = request.fresh ? null : inspectJournal(p.out, design, h.journal);
          const resumed = verdict?.kind === 'resume' ? resultsFromJournal(verdict.state) : undefined;
          const withTarget: WithTarget = async (fn) => {
            const session = await openTarget(design.target, { auth: auths.get(h.target), prompt });
            try {
              return await fn(session);
            } finally {
              await session.close();
            }
          };
          const report = await dryRun(design, design.target, read ? withTarget : null, [design.serverProfile], measured, resumed);
          if (report.problem) {
            io.err(`varlab run: ${p.hosts ? `${h.target}: ` : ''}${report.problem}`);
            return 2;
          }
          for (const line of dryRunText(p.doc.name, design, report, { out: p.out, journal: h.journal, notes: p.notes })) io.out(line);
        }
        return 0;
      } catch (e) {
        return refused(io, file, e);
      }
    }

    const json = values.events === 'json';
    const startedAt = Date.now();
    const bar = io.tty && !json;
    let lastCell = '';
    let last: Extract<RunEvent, { type: 'progress' }> | null = null;
    // Several hosts: the bar shows them together (each host's last progress, summed).
    const progressOf = new Map<string, Extract<RunEvent, { type: 'progress' }>>();
    let barShown = false;
    let lastData: { phase: string; step: number } = { phase: '', step: -1 };
    let resumeNote = false;
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
      // The run's end, and where the rule stopped it, are this command's own summary, below (said once).
      const line = e.type === 'run-finished' || e.type === 'stopped-answered' ? null : eventLine(e);
      // With a bar, routine lines (a restart done, a preload) would only push it around.
      if (line && !(bar && line.routine)) {
        clearBar();
        io.err(line.text);
      }
      if (e.type === 'data-progress') {
        // A bar on a terminal; otherwise one line per phase and per quarter of the rows.
        const step = e.phase === 'rows' ? Math.floor(e.fraction * 4) : -1;
        if (bar) {
          clearBar();
          process.stderr.write(dataProgressLine(e));
          barShown = true;
        } else if (e.phase !== lastData.phase || step !== lastData.step) io.err(dataProgressLine(e));
        lastData = { phase: e.phase, step };
        return;
      }
      if (e.type === 'progress') {
        progressOf.set(e.host ?? '', e);
        const all = [...progressOf.values()];
        last = { ...e, done: all.reduce((n, p) => n + p.done, 0), planned: all.reduce((n, p) => n + p.planned, 0), remainingMs: Math.max(...all.map((p) => p.remainingMs)) };
      }
      if (e.type === 'restart-started') lastCell = `${e.host !== undefined ? `${e.host} ` : ''}restart ${e.seq}: ${e.cell}`;
      if (bar && last && (e.type === 'progress' || e.type === 'restart-started' || (line && !line.routine))) {
        clearBar();
        process.stderr.write(progressLine(last.done, last.planned, last.remainingMs, lastCell));
        barShown = true;
      }
    };

    const prompt = terminalPrompter();
    const service = new RunService({ documents: new DocumentService(), prompt });
    let started;
    try {
      started = await service.start({
        ...request,
        ...auth,
        prompt,
        onEvent,
        // A one-liner's queries and factors are what the user typed in this very command: nothing to agree to.
        consent: askConsent(io, file, values.trust === true || (oneLiner && 'typed on this command line (--query)'), prompt),
      });
    } catch (e) {
      if (e instanceof NotAgreed) return e.status;
      return refused(io, file, e, json);
    }
    const { prepared, said } = started;
    for (const line of said) io.err(line);
    const resuming = prepared.notes.find((n) => n.startsWith('resuming'));
    resumeNote = Boolean(resuming);
    if (resuming) io.err(resuming.replace(/; the edited file would be kept as .*/, ''));
    else {
      const plan = buildPlan(prepared.doc.design);
      const about = aboutText(learnedEstimate({ design: prepared.doc.design, results: measured }, plan.length));
      const hosts = prepared.hosts?.map((h) => h.target);
      const s = prepared.doc.design.stopping;
      if (s) io.err(`stop when answered: at most ${s.maxRestartsPerCell} rounds (restarts per cell), looks at rounds ${lookSchedule(s.maxRestartsPerCell).join(', ')}, target ±${s.effect} %, α ${s.alpha}`);
      if (hosts) io.err(`running ${s ? 'at most ' : ''}${plan.length} restarts on each of ${hosts.length} hosts at once (${hosts.join(', ')}), each in its own order, ${about}; results into ${prepared.out}`);
      else io.err(`running ${s ? 'at most ' : ''}${plan.length} restarts on ${prepared.doc.design.target}, ${about}; results into ${prepared.out}`);
    }

    // Ctrl-C or SIGTERM: the run service cancels, stops mysqld and restores the host, and says so.
    let disposing: Promise<string> | null = null;
    const stopListening = onInterrupt(
      (signal) => {
        clearBar();
        io.err(`cancelling (${signal}): the current restart is discarded, then mysqld is stopped and the host restored (Ctrl-C again to leave at once)`);
        disposing = service.dispose();
      },
      () => {
        io.err('varlab run: interrupted twice: leaving now; the host may still run mysqld (run again to resume and restore)');
        process.exit(130);
      },
    );
    // Node exits with status 0 when nothing is left to wait on; a run waiting on a stream that died
    // silently must never look like success, so keep the process alive until the engine answers.
    const keepAlive = setInterval(() => {}, 60_000);
    let outcome: RunOutcome;
    try {
      outcome = await started.done;
      // What the cancel did is the outcome's line below (report): one line, not the service's list of runs too.
      if (disposing) await disposing;
    } finally {
      clearInterval(keepAlive);
      stopListening();
      clearBar();
    }
    const status = report(io, file, outcome, Date.now() - startedAt);
    if (oneLiner && outcome.state === 'finished' && !json) await summarise(io, outcome.path);
    return status;
  },
};

/** A one-liner's experiment, written to --out or a new name in this folder; null (said why) when it cannot be. */
async function writeOneLiner(io: CliIO, values: { query?: string[]; factor?: string[]; database?: string; target?: string[]; out?: string }, o: { restarts?: number; repetitions?: number; warmup?: number }): Promise<string | null> {
  if (!values.query?.length) throw new UsageError('--query: give the SQL to measure, e.g. --query "SELECT COUNT(*) FROM t"');
  let doc;
  try {
    doc = oneLinerDoc({ queries: values.query, factors: values.factor ?? [], ...o, database: values.database, target: values.target?.[0] });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  // The tunables, levels and names checked as any file is: a bad level is named here, before anything is written.
  const checked = checkExperiment(doc);
  if (!checked.doc) throw new UsageError(checked.problems.join('; '));
  const file = values.out ?? oneLinerFileName(new Date());
  if (existsSync(file)) {
    io.err(`varlab run: ${file} exists already: name another with --out (a one-liner never writes over a file; \`varlab run ${file}\` runs that one)`);
    return null;
  }
  await saveExperimentFile(resolve(file), checked.doc);
  io.err(`wrote ${file}: the experiment this command runs (\`varlab run ${file}\` resumes it, \`varlab analyze ${file}\` reads it)`);
  return file;
}

/** The hyperfine-style summary of a one-liner's finished file, on stdout, the first cell the baseline. */
async function summarise(io: CliIO, path: string): Promise<void> {
  const r = await readExperimentFile(path);
  if (!r.doc?.results) return;
  const data = tidyFromExperiment(r.doc);
  // The first cell of the design (its factors' first levels), as hyperfine compares with its first command.
  const first = expandCells(r.doc.design).find((c) => !c.excluded && data.cells.includes(c.id))?.id ?? data.cells[0];
  const a = analyze(data, { warmup: r.doc.design.workload.warmup, baseline: first });
  for (const line of oneLinerSummary(a, r.doc.design.workload.queries, Object.fromEntries(r.doc.results.restarts.flatMap((x) => x.queries.map((q) => [q.query, q.unit]))), r.doc)) io.out(line);
}

/**
 * How each host connects: --identity and --known-hosts given once are for every host; given once per
 * --target, the n-th is the n-th target's own. A host given nothing uses its Hosts-list entry, else
 * ~/.ssh/config (runs/auth.ts).
 */
function runAuth(targets: string[], values: { identity?: string[]; 'known-hosts'?: string[]; 'accept-new'?: boolean }): Pick<StartOptions, 'auth' | 'hostAuth'> {
  const shared: Parameters<typeof targetAuth>[0] = { 'accept-new': values['accept-new'] };
  const hostAuth: NonNullable<StartOptions['hostAuth']> = {};
  for (const [option, key] of [['identity', 'identity'], ['known-hosts', 'knownHosts']] as const) {
    const given = values[option] ?? [];
    if (given.length <= 1) {
      shared[option] = given[0];
      continue;
    }
    if (targets.length < 2 || given.length !== targets.length) {
      throw new UsageError(`--${option}: give it once (for every host) or once per host in the order of the --targets (else of the file's hosts); got ${given.length} for ${targets.length} host${targets.length === 1 ? '' : 's'}`);
    }
    targets.forEach((t, i) => (hostAuth[t] = { ...hostAuth[t], [key]: given[i] }));
  }
  return { auth: targetAuth(shared), ...(Object.keys(hostAuth).length ? { hostAuth } : {}) };
}

/** The hosts the file's design names (none when it cannot be read: the run says why). */
async function fileHosts(file: string): Promise<string[]> {
  const r = await readExperimentFile(file).catch(() => null);
  return r?.doc ? designHosts(r.doc.design) : [];
}

/** A host the user did not choose, asked about on a terminal (none: not connected to; --connect says yes). */
async function askToRead(target: string, prompt: Prompter): Promise<boolean> {
  if (!process.stdin.isTTY) return false;
  const answer = await prompt({ kind: 'confirm', title: 'Read the target?', message: `Connect to ${target} to read it (read only: CPUs, NUMA nodes, mysqld)?` });
  return answer.accept;
}

/** Teammates' files: their own commands are listed and agreed to before the first run on a target (issue 6). */
function askConsent(io: CliIO, file: string, trust: boolean | string, prompt: Prompter): StartOptions['consent'] {
  return async (doc, target, prepared) => {
    const status = await confirmConsent({ file, doc, target, trust, io, prompt, interactive: Boolean(process.stdin.isTTY), note: consentNote(prepared) });
    if (status !== null) throw new NotAgreed(status);
  };
}

/** `varlab run FILE --detach`: start the run on the target, print its id and where, and return. */
async function detachRun(io: CliIO, file: string, request: RunRequest & Pick<StartOptions, 'auth' | 'hostAuth'>, values: { trust?: boolean }): Promise<number> {
  const prompt = terminalPrompter();
  const service = new RunService({ documents: new DocumentService(), prompt });
  // Ctrl-C or SIGTERM before the runner has started (in the DBT-3 data step, say): the launch stops, and says so.
  let disposing: Promise<string> | null = null;
  const stopListening = onInterrupt(
    (signal) => {
      io.err(`cancelling (${signal}): the launch stops at its next step (a DBT-3 load after its current chunk), then mysqld is stopped, the host restored and the target let go (Ctrl-C again to leave at once)`);
      disposing = service.dispose();
    },
    () => {
      io.err('varlab run: interrupted twice: leaving now; the target may still run mysqld (run again to launch it, which stops it first)');
      process.exit(130);
    },
  );
  try {
    let lastData = '';
    const d = await service.detach({
      ...request,
      prompt,
      consent: askConsent(io, file, values.trust === true, prompt),
      // The DBT-3 data step runs before the runner is launched: one line per phase and per quarter of the rows.
      onEvent: (e) => {
        if (e.type !== 'data-progress') return;
        const step = `${e.phase} ${e.phase === 'rows' ? Math.floor(e.fraction * 4) : ''}`;
        if (step !== lastData) io.err(dataProgressLine(e));
        lastData = step;
      },
    });
    for (const line of d.said) io.err(line);
    // One line per host started (several hosts: each its own run id, order and journal).
    for (const h of d.hosts) {
      const left = h.done ? `${h.restarts} restarts left of ${h.planned}` : `${h.planned} restarts`;
      io.out(`detached: run ${h.runId} on ${visible(h.target)} (${left}, under ${h.supervisor === 'systemd' ? `systemd unit varlab-${h.runId}` : 'setsid nohup'}; its directory there: ${h.dir})`);
    }
    // A host that did not start: said clearly; the others go on.
    for (const f of d.failed) io.err(`varlab run: not started on ${visible(f.target)}: ${f.message}`);
    if (d.failed.length) {
      io.err(`the run goes on on ${d.hosts.map((h) => visible(h.target)).join(', ')} without ${d.failed.map((f) => visible(f.target)).join(', ')}; once it has ended and \`varlab attach ${file}\` brought it in, \`varlab run ${file}\` runs what the hosts that did not start lack`);
    }
    io.err(`it goes on without this computer. Follow it and bring the results into the file: varlab attach ${file}`);
    // The rule as run: --until-answered's, else the file's own (the file gets the design as run at the end).
    const asked = request.untilAnswered;
    const inFile = asked === false ? undefined : (await readExperimentFile(file)).doc?.design.stopping;
    if (asked || inFile) {
      const max = (asked ? asked.maxRestarts : undefined) ?? inFile?.maxRestartsPerCell;
      io.err(
        `  stop when answered: the rule's looks are taken by the varlab that follows the run (varlab attach ${file}, or the app), which stops the runner at the look that answers; ` +
          `while nobody follows it, it goes on towards its maximum${max ? ` of ${max} restarts per cell` : ''}, and attaching takes the looks it missed`,
      );
    }
    io.err(`  where it is: varlab status ${file}    stop it (the host${d.hosts.length > 1 ? 's are' : ' is'} restored): varlab cancel ${file}`);
    return d.failed.length ? 1 : 0;
  } catch (e) {
    if (e instanceof NotAgreed) return e.status;
    // Cancelled: one line, how it ended (the service's own list would say it again).
    if (disposing && e instanceof ApiError && e.code === 'cancelled') {
      io.err(e.message);
      return 130;
    }
    return refused(io, file, e);
  } finally {
    stopListening();
    if (disposing) await disposing;
  }
}

/**
 * A run refused before anything ran: the reason, and what to do about it (with --events json, also as
 * the run's one event, so a script reading events learns why). Returns the exit status.
 */
function refused(io: CliIO, file: string, e: unknown, json = false): number {
  if (!(e instanceof ApiError)) throw e;
  if (e.code === 'already-finished') {
    io.out(json ? JSON.stringify({ type: 'log', at: Date.now(), level: 'info', message: e.message } satisfies RunEvent) : e.message);
    return 0;
  }
  if (json) io.out(JSON.stringify({ type: 'run-finished', at: Date.now(), state: 'failed', message: `${e.code}: ${e.message}` } satisfies RunEvent));
  io.err(`varlab run: ${e.message}`);
  if (e.code === 'design-changed') {
    io.err(`  start over with the new design:  varlab run ${file} --fresh`);
    io.err(`  resume the old design:           varlab run ${file} --resume   (your edited file is kept beside it)`);
  }
  return e.code === 'busy' ? 1 : 2;
}

/** Where the rule stopped, and why (every comparison decided, or its maximum). */
function stopText(s: NonNullable<RunOutcome['stopped']>, file: string): string {
  return `stopped when answered at round ${s.round}: ${s.because}; \`varlab analyze ${file} --until-answered\` gives each verdict with its repeated interval`;
}

function report(io: CliIO, file: string, o: RunOutcome, ms: number): number {
  // Several hosts: how each ended, one line per host, before the line for the whole run.
  if (o.hosts && o.state !== 'finished') {
    for (const h of o.hosts) io.err(`  ${visible(h.target)}: ${h.outcome.state} after ${h.outcome.done} of ${h.outcome.planned} restarts${afterColon(h.outcome)}`);
  }
  const stopped = o.hosts ? o.hosts.flatMap((h) => (h.outcome.stopped ? [`${visible(h.target)}: ${stopText(h.outcome.stopped, o.path)}`] : [])) : o.stopped ? [stopText(o.stopped, o.path)] : [];
  for (const s of stopped) io.err(s);
  if (o.state === 'finished') {
    // Every restart done failed to start or to verify: the run ended, but nothing was measured.
    if (measuredNothing(o)) {
      io.err(`varlab run: finished ${o.done} of ${o.planned} restarts in ${formatDuration(ms / 1000)}${measuredIn(o)}: no restart measured anything (each one's reason is above); the file holds no measurement. Fix the cause, then \`varlab run ${file} --fresh\``);
      return 1;
    }
    io.err(`finished: ${o.done} of ${o.planned} restarts in ${formatDuration(ms / 1000)}${measuredIn(o)}; results saved into ${o.path}`);
    return 0;
  }
  if (o.state === 'cancelled') {
    const hosts = o.hosts ? ` on ${o.hosts.length} hosts` : '';
    const left = o.restoreProblem ?? `mysqld stopped and the host${o.hosts ? 's' : ''} restored`;
    io.err(`cancelled after ${o.done} of ${o.planned} restarts${hosts}${measuredIn(o)}: ${left}; run the same command again to resume`);
    return 130;
  }
  io.err(`varlab run: failed after ${o.done} of ${o.planned} restarts${measuredIn(o)}: ${o.message}`);
  // Failed before its first restart (the host never answered, a build missing): there is nothing to keep or resume.
  if (o.done === 0) io.err(o.transient ? 'nothing was measured; run the same command again to try again' : `nothing was measured. Running again unchanged fails the same way: fix the cause first, then \`varlab run ${file}\`.`);
  else if (o.transient) io.err(`measurements so far are kept in ${o.journal}; run the same command again to resume`);
  else
    io.err(
      `measurements so far are kept in ${o.journal}. Running again unchanged fails the same way: fix the cause first. ` +
        `Then \`varlab run ${file}\` resumes (and asks if you changed the design), or \`varlab run ${file} --fresh\` starts over.`,
    );
  return 1;
}
