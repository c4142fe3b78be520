// Teammates' files: everything an experiment would run on a target beyond varlab's built-in tunables.
// Opening a file runs nothing; before the first run on a host, the user sees this list and agrees
// (the node side remembers the answer per list of commands and target, so changing any command or
// moving to a new host asks again).
import type { ExperimentDoc } from './experiment/types.js';

export type ConsentKind = 'command' | 'setup-sql' | 'start-wrapper' | 'server-args' | 'systemd-service' | 'defaults-file';

export interface ConsentItem {
  kind: ConsentKind;
  /** Where in the file it is, as a JSON path: `design.workload.command.line`. */
  where: string;
  /** What will run (or be read), as the file holds it. */
  command: string;
  /** One line for people: what this is and why it matters. */
  summary: string;
}

/** The binaries a server profile may start without asking: anything else is a wrapper that runs as it likes. */
const STANDARD_SERVER = /^(mysqld|mariadbd)(-debug)?$/;

export function commandsNeedingConsent(doc: ExperimentDoc): ConsentItem[] {
  const items: ConsentItem[] = [];
  const w = doc.design.workload;
  if (w.kind === 'command' && w.command?.line) {
    items.push({ kind: 'command', where: 'design.workload.command.line', command: w.command.line, summary: 'a shell command run on the target once per repetition' });
  }
  if (w.setupSql?.trim()) {
    items.push({ kind: 'setup-sql', where: 'design.workload.setupSql', command: w.setupSql, summary: `a setup script run once in database ${w.database} as the client account` });
  }
  const p = doc.design.serverProfile;
  if (p) {
    const base = p.mysqld.split('/').pop() ?? p.mysqld;
    if (!STANDARD_SERVER.test(base)) {
      items.push({ kind: 'start-wrapper', where: 'design.serverProfile.mysqld', command: p.mysqld, summary: 'a program started in place of mysqld (a custom start wrapper)' });
    }
    if (p.extraArgs.length) {
      items.push({ kind: 'server-args', where: 'design.serverProfile.extraArgs', command: p.extraArgs.join(' '), summary: 'extra options mysqld is started with' });
    }
    if (p.kind === 'systemd' && p.service) {
      items.push({ kind: 'systemd-service', where: 'design.serverProfile.service', command: `systemctl restart ${p.service}`, summary: 'a systemd unit restarted for every restart' });
    }
    if (p.defaultsFile) {
      items.push({ kind: 'defaults-file', where: 'design.serverProfile.defaultsFile', command: p.defaultsFile, summary: 'an option file mysqld reads at start' });
    }
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
