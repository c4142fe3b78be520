// `varlab attach|status|cancel FILE`: a run started with `varlab run FILE --detach`, from nothing but
// the file (its journal says where the run is and how this computer connected). The run service
// (node/runs/service.ts) does the work, as it does for the app and `varlab run`; this prints.
import { ApiError } from '../../common/api.js';
import type { RunEvent } from '../../common/events.js';
import { eventLine, measuredIn, measuredNothing } from '../../common/event-line.js';
import { formatDuration } from '../../common/plan.js';
import type { AttachOutcome } from '../../node/detach/attach.js';
import { detachedRuns } from '../../node/detach/runs.js';
import { describeDetached } from '../../node/detach/status.js';
import { RunService } from '../../node/runs/service.js';
import { visible } from '../../common/printable.js';
import { DocumentService } from '../../node/documents/service.js';
import { readExperimentFile } from '../../node/files.js';
import { onInterrupt } from '../../node/shutdown.js';
import { parse, UsageError, type CliIO, type Command } from '../io.js';
import { terminalPrompter } from '../prompter.js';
import { targetAuth } from './probe.js';

/** --identity, --known-hosts, --accept-new: the user's own way to the target, before this machine's record and the Hosts list. */
const AUTH_OPTIONS = { identity: { type: 'string' }, 'known-hosts': { type: 'string' }, 'accept-new': { type: 'boolean' } } as const;
const AUTH_USAGE =
  '--identity KEY, --known-hosts FILE, --accept-new: as for `varlab probe`. Without them, the key and known_hosts\n' +
  '                    files are the ones this computer launched the run with (its own record), else the Hosts\n' +
  '                    list\'s for the target, else ~/.ssh/config\'s; a journal made elsewhere never chooses them.\n';

function oneFile(positionals: string[]): string {
  if (positionals.length !== 1) throw new UsageError('expected exactly one FILE');
  return positionals[0];
}

/**
 * An ApiError is the user's message: print it, exit 1 (2 when the file or its journal is refused). No
 * detached run of a FILE that is not there, or not an experiment, is said as that (exit 2): "no detached
 * run (start one with `varlab run FILE --detach`)" sent a typo'd name off to a run that cannot start.
 */
async function failed(io: CliIO, name: string, e: unknown, file: string): Promise<number> {
  if (!(e instanceof ApiError)) throw e;
  if (e.code === 'not-found' && !detachedRuns(file).length) {
    const r = await readExperimentFile(file);
    if (!r.doc) {
      io.err(`varlab ${name}: ${r.problems.map((p) => `${file}: ${p}`).join('\n')}`);
      return 2;
    }
  }
  io.err(`varlab ${name}: ${e.message}`);
  return e.code === 'invalid-file' || e.code === 'invalid-argument' ? 2 : 1;
}

/** The lines a person reads while following: where the run is, what went wrong, how it ended. */
function follower(io: CliIO, json: boolean, target: () => string): (e: RunEvent) => void {
  // Several hosts: each host's count (events name their host; lines start with it).
  const counts = new Map<string, { done: number; planned: number }>();
  return (e) => {
    if (json) {
      if (e.type !== 'history') io.out(JSON.stringify(e));
      return;
    }
    const key = e.host ?? '';
    const c = counts.get(key) ?? { done: 0, planned: 0 };
    counts.set(key, c);
    switch (e.type) {
      case 'run-started':
        c.done = e.done;
        c.planned = e.planned;
        break;
      case 'progress':
        c.done = e.done;
        c.planned = e.planned;
        break;
      case 'restart-started':
        io.err(`${describeDetached({ state: 'running', target: e.host ?? target(), planned: c.planned, done: c.done, current: c.done + 1, imported: false })}: ${e.cell}`);
        break;
      case 'run-finished':
        // How it ended is this command's own report (report below).
        break;
      default: {
        const line = eventLine(e);
        if (line && !line.routine) io.err(line.text);
      }
    }
  };
}

/** After a finished run in which no restart measured anything, as `varlab run` says it. */
const NOTHING_MEASURED = (path: string) => `no restart measured anything (each one's reason is in the file); the file holds no measurement. Fix the cause, then \`varlab run ${path} --fresh\``;

function report(io: CliIO, o: AttachOutcome, ms: number, json: boolean): number {
  if (o.hosts) {
    // Several hosts: one line per host, then the run as a whole.
    const codes = o.hosts.map((h) => report(io, h.outcome, ms, json));
    for (const t of o.notStarted ?? []) io.err(`${visible(t)}: its runner never started; \`varlab run ${o.path}\` runs what it lacks`);
    if (o.state === 'detached') return o.error ? 1 : 130;
    if (o.state === 'finished' && measuredNothing(o)) {
      io.err(`varlab attach: finished on ${o.hosts.length} hosts: ${o.done} of ${o.planned} restarts${measuredIn(o)}: ${NOTHING_MEASURED(o.path)}`);
      return 1;
    }
    io.err(`${o.state} on ${o.hosts.length} hosts: ${o.done} of ${o.planned} restarts${measuredIn(o)}; results of every host saved into ${o.path}`);
    return o.state === 'finished' ? 0 : o.state === 'cancelled' ? 130 : Math.max(...codes.filter((c) => c !== 130), 1);
  }
  const where = o.cleanedUp ? ` (its directory on ${o.target} removed)` : '';
  switch (o.state) {
    case 'detached':
      if (o.error) {
        // Without --events json, the error's log line has said it already.
        if (json) io.err(`varlab: stopped following the run on ${o.target}: ${o.message}`);
        return 1;
      }
      if (o.message && !o.message.startsWith('detached')) {
        io.err(o.message);
        return 0;
      }
      io.err(`detached from ${o.target}: the run goes on there (${o.done} of ${o.planned} restarts in ${o.path}). \`varlab attach ${o.path}\` follows it again.`);
      return 130;
    case 'finished':
      // Every restart done failed to start or to verify: the run ended, but nothing was measured.
      if (measuredNothing(o)) {
        io.err(`varlab attach: finished on ${o.target}: ${o.done} of ${o.planned} restarts${measuredIn(o)}: ${NOTHING_MEASURED(o.path)}`);
        return 1;
      }
      io.err(`finished on ${o.target}: ${o.done} of ${o.planned} restarts${measuredIn(o)}; results saved into ${o.path}${where} after ${formatDuration(ms / 1000)} attached`);
      return 0;
    case 'cancelled':
      io.err(`cancelled on ${o.target} after ${o.done} of ${o.planned} restarts${measuredIn(o)}; mysqld stopped and the host restored there; results so far saved into ${o.path}${where}. \`varlab run ${o.path}\` resumes.`);
      return 130;
    default:
      io.err(`varlab: the run on ${o.target} failed after ${o.done} of ${o.planned} restarts${measuredIn(o)}: ${o.message ?? 'no reason given'}; results so far saved into ${o.path}${where}`);
      return 1;
  }
}

/** Follow (attach) or stop (cancel) the file's detached run; Ctrl-C stops following only. */
async function follow(name: 'attach' | 'cancel', argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parse(argv, { events: { type: 'string' }, ...AUTH_OPTIONS });
  const file = oneFile(positionals);
  if (values.events !== undefined && values.events !== 'json') throw new UsageError(`--events: the only format is json, got ${JSON.stringify(values.events)}`);
  const json = values.events === 'json';
  let target = '';
  const stop = new AbortController();
  const stopListening = onInterrupt(
    () => {
      io.err('detaching: this computer stops following; the run goes on on its target (Ctrl-C again to leave at once)');
      stop.abort();
    },
    () => process.exit(130),
  );
  // Node leaves with status 0 when nothing is left to wait on: keep the process up until the service answers.
  const keepAlive = setInterval(() => {}, 60_000);
  const startedAt = Date.now();
  try {
    const service = new RunService({ documents: new DocumentService(), prompt: terminalPrompter() });
    const opts = { onEvent: follower(io, json, () => target), signal: stop.signal, auth: targetAuth(values), say: (m: string) => io.err(`varlab ${name}: ${m}`) };
    target = detachedRuns(file)
      .map((d) => d.target)
      .join(', ');
    if (name === 'cancel') {
      const o = await service.cancelDetached(file, opts);
      const code = report(io, o, Date.now() - startedAt, json);
      return o.state === 'cancelled' ? 0 : code;
    }
    return report(io, await service.attachToEnd(file, opts), Date.now() - startedAt, json);
  } catch (e) {
    return failed(io, name, e, file);
  } finally {
    clearInterval(keepAlive);
    stopListening();
  }
}

/** attach and cancel: one synopsis, their own text, the key options, their exit statuses; both follow the run. */
function followCommand(name: 'attach' | 'cancel', text: string, exit: string): Command {
  return {
    name,
    usage: `varlab ${name} FILE [--identity KEY] [--known-hosts FILE] [--accept-new] [--events json]\n\n${text}${AUTH_USAGE}Exit status: ${exit}`,
    run: (argv, io) => follow(name, argv, io),
  };
}

export const attach = followCommand(
  'attach',
  'Follows the run of FILE that `varlab run FILE --detach` left on its target: reads the target\'s journal from\n' +
    'where this computer stopped, brings every measurement into FILE.journal.jsonl (once, however often you\n' +
    'attach) and shows "detached on T, running restart k of n". When the run has ended, the results are saved\n' +
    'into FILE and the run\'s directory on the target is removed. It needs nothing but the file: the journal\n' +
    'holds the target (and, when this computer launched the run, it finds the key files it used). A run detached on\n' +
    'several hosts: every host followed at once (each on its own connection, as recorded in its own journal),\n' +
    'every host\'s results saved into FILE, one line per host at the end.\n' +
    'A link that drops (the network, a laptop that slept) is said, and followed again by itself from where it\n' +
    'stopped, for as long as attach runs. Ctrl-C detaches this computer only: the run goes on.\n' +
    '--events json       print every event as one JSON line on stdout\n',
  '0 finished (results in the file), 1 failed, 2 FILE (or its journal) refused, 130 detached by Ctrl-C or the run was cancelled.',
);

export const cancel = followCommand(
  'cancel',
  'Stops the detached run of FILE on its target: the runner there discards the restart in progress, stops\n' +
    'mysqld and restores the host (kernel settings, files it changed). Then what it measured is brought into\n' +
    'FILE, as `varlab attach` does. `varlab run FILE` resumes it later. On several hosts: every host\'s runner.\n',
  '0 cancelled (or it had ended anyway: its results are in the file), 1 failed, 2 FILE (or its journal) refused.',
);

export const status: Command = {
  name: 'status',
  usage:
    'varlab status FILE [--identity KEY] [--known-hosts FILE] [--accept-new] [--json]\n\n' +
    'One line: whether the detached run of FILE is running, finished, failed or cancelled, where, and which\n' +
    'restart it is at ("detached on T, running restart k of n"); a run on several hosts: one such line per host.\n' +
    'It looks at the target(s) and changes nothing. Exit status 1 when a host could not be reached (or there is no\n' +
    'detached run), 2 when FILE (or its journal) is refused.\n' +
    AUTH_USAGE.trimEnd(),
  async run(argv, io) {
    const { values, positionals } = parse(argv, { json: { type: 'boolean' }, ...AUTH_OPTIONS });
    const file = oneFile(positionals);
    try {
      const service = new RunService({ documents: new DocumentService(), prompt: terminalPrompter() });
      const s = await service.detachedStatus(file, { auth: targetAuth(values), say: (m) => io.err(`varlab status: ${m}`) });
      if (values.json) io.out(JSON.stringify(s));
      else if (!s.hosts) io.out(describeDetached(s));
      else {
        // Several hosts: one line per host, each naming where it is.
        for (const h of s.hosts) io.out(describeDetached(h));
        for (const u of s.unreachable ?? []) io.out(`${visible(u.target)}: not reached now (${u.message}); its run may go on`);
        for (const t of s.notStarted ?? []) io.out(`${visible(t)}: not started (its launch failed); \`varlab run ${file}\` runs it once the others have ended and are attached`);
      }
      return s.unreachable?.length ? 1 : 0;
    } catch (e) {
      return failed(io, 'status', e, file);
    }
  },
};
