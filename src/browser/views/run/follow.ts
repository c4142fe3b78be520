// Following a detached run from the Run view: when the view follows the open file's run by itself,
// and what it says when the user stopped following. Kept apart from the session store so it can be
// tested without a browser.

/** The open file's detached run: being looked at to follow it, why it could not be followed, or not followed because the user stopped following it. */
export interface FollowState {
  path: string;
  target?: string;
  state: 'connecting' | 'failed' | 'stopped';
  message?: string;
  /** stopped: the app's open-file generation then (opening the file again bumps it). */
  opened?: number;
}

/**
 * Does the Run view follow the file's detached run without being asked? Yes, unless the user stopped
 * following it and has not opened the file again since: Stop following must hold until they ask
 * (Follow) or open the file again.
 */
export function followsByItself(follow: FollowState | null, path: string, opened: number): boolean {
  return !(follow && follow.path === path && follow.state === 'stopped' && follow.opened === opened);
}

/** What the view says once it stopped following: the run is not cancelled, and how to follow it again. */
export function notFollowingMessage(target: string): string {
  return `Not following: the run goes on on ${target}; open the file again or press Follow to follow it.`;
}
