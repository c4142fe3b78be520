// Teammates' files: everything an experiment would make a target do beyond varlab's built-in
// tunables: a command workload, the setup script, every measured query, server options that are not
// known tuning variables, and a server profile carried in the file (its binary, paths, users and
// options). Opening a file runs nothing; before the first run on a host, the user sees this list in
// full and agrees (the node side remembers the answer per list and target, so changing any of it or
// moving to a new host asks again).
import { describeDataSet } from './dbt3/scale.js';
import type { ExperimentDoc, ServerProfile } from './experiment/types.js';
import { visible } from './printable.js';
import { isTuningVariable } from './tunables/variables.js';

export type ConsentKind = 'command' | 'setup-sql' | 'data' | 'query' | 'server-variable' | 'server-profile';

export interface ConsentItem {
  kind: ConsentKind;
  /** Where in the file it is, as a JSON path: `design.workload.command.line`. */
  where: string;
  /** What will run (or be read), as the file holds it, whole: shown in full, control characters made visible. */
  command: string;
  /** One line for people: what this is and why it matters. */
  summary: string;
}

/** The binaries a server profile may start without asking: anything else is a wrapper that runs as it likes. */
const STANDARD_SERVER = /^(mysqld|mariadbd)(-debug)?$/;

/** A server profile as people read it: every field that decides what runs, as whom and on which files. */
export function profileText(p: ServerProfile): string {
  const lines = [
    `kind: ${p.kind}`,
    `mysqld: ${p.mysqld}`,
    `run as OS user: ${p.osUser ?? '(the login user)'}${p.sudo ? ', through sudo' : ''}`,
    `client account (setup script, admin): ${p.user}`,
    `datadir: ${p.datadir}`,
    `socket: ${p.socket}`,
    `port: ${p.port}`,
  ];
  if (p.defaultsFile) lines.push(`option file: ${p.defaultsFile}`);
  if (p.errorLog) lines.push(`error log: ${p.errorLog}`);
  if (p.pidFile) lines.push(`pid file: ${p.pidFile}`);
  if (p.kind === 'systemd' && p.service) lines.push(`systemd unit: ${p.service} (systemctl restart ${p.service})`);
  lines.push(`server options: ${p.extraArgs.length ? p.extraArgs.join(' ') : '(none)'}`);
  // Every binary the profile's builds start: the `build` factor's levels run these, each on its datadir.
  // What a wrapper runs (exe) is the file's word: the restart's check reads it from the live process, after the wrapper ran.
  for (const b of p.builds ?? []) lines.push(`build ${b.name}: starts ${b.mysqld}${b.exe !== b.mysqld ? ` (a wrapper: the file says it runs ${b.exe}, checked once started)` : ''}, sha256 ${b.sha256}, datadir ${b.datadir}${b.basedir ? `, basedir ${b.basedir}` : ''}`);
  return lines.join('\n');
}

/**
 * Everything the experiment would make the target do beyond the built-in tunables, in full. The
 * server profile is listed when the run would use the file's own (`doc.design.serverProfile` as the
 * run resolved it; the caller leaves out a profile that is the user's registered one).
 */
export function commandsNeedingConsent(doc: ExperimentDoc): ConsentItem[] {
  const items: ConsentItem[] = [];
  const w = doc.design.workload;
  if (w.kind === 'command' && w.command?.line) {
    items.push({ kind: 'command', where: 'design.workload.command.line', command: w.command.line, summary: 'a shell command run on the target once per repetition' });
  }
  // In the order a run does them: the data step, then the setup script (engine/restart.ts, detach/launch.ts).
  if (w.data) {
    // Named in full: the tables it makes, where the rows come from, and that nothing is left on the target.
    items.push({ kind: 'data', where: 'design.workload.data', command: describeDataSet(w.database, w.data), summary: `the DBT-3 data step: run once before the first restart as the admin account of the server profile` });
  }
  if (w.setupSql?.trim()) {
    items.push({ kind: 'setup-sql', where: 'design.workload.setupSql', command: w.setupSql, summary: `a setup script run once in database ${w.database} as the admin account of the server profile${w.data ? ', after the DBT-3 data step' : ''}` });
  }
  if (w.kind === 'queries') {
    w.queries.forEach((q, i) => {
      items.push({ kind: 'query', where: `design.workload.queries[${i}].sql`, command: q.sql, summary: `query ${JSON.stringify(q.name)}, measured as a read-only account of database ${w.database}` });
    });
  }
  doc.design.factors.forEach((f, i) => {
    if (f.tunable !== 'variable' || !f.name || isTuningVariable(f.name)) return;
    items.push({
      kind: 'server-variable',
      where: `design.factors[${i}]`,
      command: f.levels.map((l) => `--${f.name}=${l}`).join('\n'),
      summary: `server option ${f.name}, not a known tuning variable: mysqld is started with each of these`,
    });
  });
  const p = doc.design.serverProfile;
  if (p) {
    const standard = (path: string) => STANDARD_SERVER.test(path.split('/').pop() ?? path);
    // A build the file says runs another binary is a wrapper whatever its name (a script called mariadbd too).
    const wrappers = [...(standard(p.mysqld) ? [] : [p.mysqld]), ...(p.builds ?? []).filter((b) => !standard(b.mysqld) || b.exe !== b.mysqld).map((b) => b.mysqld)];
    const wrapper = wrappers.length ? ` (${wrappers.join(', ')} ${wrappers.length === 1 ? 'is' : 'are'} not mysqld or mariadbd itself: a custom start wrapper)` : '';
    items.push({ kind: 'server-profile', where: 'design.serverProfile', command: profileText(p), summary: `the server profile carried in the file: how mysqld is started, as whom and on which files${wrapper}` });
  }
  return items;
}

/** What trust.check answers: the list, and whether the user still has to agree to it for this target. */
export interface TrustCheck {
  needsConsent: boolean;
  commands: ConsentItem[];
  target: string;
  /** sha256 of consentText(commands): what a consent is recorded against. */
  digest: string;
}

/**
 * The text a consent is given for: kinds and commands only, in a fixed order, so two files that would
 * run the same things share a consent and any change to a command needs a new one.
 */
export function consentText(items: ConsentItem[]): string {
  return JSON.stringify(items.map((i) => [i.kind, i.command]));
}

/**
 * The list as a terminal or a message shows it: each item whole (no cut, however long), every
 * control character but newline and tab written as a visible escape, so a carriage return or an
 * escape sequence cannot hide or repaint what would run.
 */
export function consentList(items: ConsentItem[], indent = '  '): string {
  return items.map((i) => `${indent}- ${visible(i.summary)} (${i.where}):\n${indent}    ${visible(i.command).replace(/\n/g, `\n${indent}    `)}`).join('\n');
}
