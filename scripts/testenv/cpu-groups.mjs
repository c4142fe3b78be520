// The CPU time of each test runner (scripts/run-tests.mjs): a cgroup v1 cpuacct group of its own, where
// this machine lets us make one (root, cgroup v1). Plain JavaScript: run-tests.mjs runs without tsx.
//
// Several copies of the suite run on one machine at once (two checkouts; a CI run beside a developer's
// `npm run test:quick`), and every copy's groups sit side by side under the same root. A group is named
// after the run-tests process that made it (varlab-test-PID-XXXXXX), and a copy removes at its start
// only the groups of copies that have ended (their zombies since reaped), never those of a copy that
// still runs: an empty group of a running copy is one just made, its runner not in it yet, or one whose
// runner has just ended, its time not read yet. Before, a copy removed every group it could; a second
// copy starting beside a first removed the first's new group, whose runner then ran outside it, and
// the first crashed reading the group's time (ENOENT), leaving its other files' runners orphaned.
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export const CPUACCT = '/sys/fs/cgroup/cpuacct';
const PREFIX = 'varlab-test-';
/** A group named by an older run-tests (no maker in its name): removed once no runner can still be about to join it. */
const UNNAMED_AFTER_MS = 60 * 60_000;

/** Is the process there (a zombie counts: its group is still held)? */
function processThere(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === 'EPERM';
  }
}

/** The pid of the run-tests process that made the group, or null for a name without one. */
export function groupMaker(name) {
  const m = /^varlab-test-([1-9][0-9]*)-/.exec(name);
  return m ? Number(m[1]) : null;
}

/**
 * Remove the groups under `root` left by copies that have ended; a group that still holds processes
 * stays (rmdir refuses it) for a later run. Returns the names removed.
 */
export function removeEndedGroups(root = CPUACCT, { there = processThere, now = Date.now() } = {}) {
  const removed = [];
  for (const g of existsSync(root) ? readdirSync(root).filter((x) => x.startsWith(PREFIX)) : []) {
    const maker = groupMaker(g);
    let ended;
    try {
      ended = maker === null ? now - statSync(join(root, g)).mtimeMs > UNNAMED_AFTER_MS : !there(maker);
    } catch {
      continue; // removed meanwhile
    }
    if (!ended) continue;
    try {
      rmdirSync(join(root, g));
      removed.push(g);
    } catch {
      // still held: left for a later run
    }
  }
  return removed;
}

/** A new group for one runner of this run-tests process, or null where none can be made. */
export function makeGroup(root = CPUACCT, pid = process.pid) {
  try {
    return mkdtempSync(join(root, `${PREFIX}${pid}-`));
  } catch {
    return null;
  }
}

/** The group's CPU seconds; undefined when it cannot be read (the figure is lost, never the run). */
export function groupCpuSeconds(group) {
  try {
    return Number(readFileSync(join(group, 'cpuacct.usage'), 'utf8')) / 1e9;
  } catch {
    return undefined;
  }
}
