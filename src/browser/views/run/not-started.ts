// What the Run view says when a run detached on several hosts did not start on some of them.
// Kept apart from the session store so it can be tested without a browser.
import type { RunStatus } from '../../../common/api.js';

/** null when every host started; otherwise each host that did not, why, and that the others go on. */
export function notStartedMessage(detached: RunStatus['detached']): string | null {
  const hosts = detached?.notStarted ?? [];
  if (!hosts.length) return null;
  return `${hosts.map((n) => `not started on ${n.target}: ${n.message}`).join('; ')}. The other hosts go on; running the file again once they have ended runs what this one lacks.`;
}
