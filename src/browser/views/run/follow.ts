// Following a detached run from the Run view: when the view follows the open file's run by itself,
// and what it says when the user stopped following. Kept apart from the session store so it can be
// tested without a browser.

/**
 * The open file's detached run: being looked at to follow it, why it could not be followed, not
 * followed because the user stopped following it, or recorded beside the file by a run this computer
 * did not launch (nothing connects until the user agrees to follow it, shown its target).
 */
export interface FollowState {
  path: string;
  target?: string;
  state: 'connecting' | 'failed' | 'stopped' | 'recorded';
  message?: string;
  /** recorded: the journals beside the file that record it. */
  journals?: string[];
  /** stopped: the app's open-file generation then (opening the file again bumps it). */
  opened?: number;
  /** stopped: when (ms since the epoch). */
  since?: number;
}

/**
 * Does the Run view follow the file's detached run without being asked? Yes, unless the user stopped
 * following it and has not opened the file again since: Stop following must hold until they ask
 * (Follow) or open the file again.
 */
export function followsByItself(follow: FollowState | null, path: string, opened: number): boolean {
  return !(follow && follow.path === path && follow.state === 'stopped' && follow.opened === opened);
}

/**
 * What the view says once it stopped following: the run is not cancelled, and how to follow it again.
 * Said as of when it stopped: from then on nothing comes from the target, so the run may have ended
 * there since; Follow brings in what it did.
 */
export function notFollowingMessage(target: string, since: number): string {
  return `Not following since ${clock(since)}, when the run was still running on ${target} (not following stops nothing there); press Follow or open the file again to bring in what it has done since.`;
}

/** A time of this day as the reader's clock says it, hours and minutes: 09:47. */
export const clock = (ms: number) => new Date(ms).toTimeString().slice(0, 5);
