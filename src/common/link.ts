// A follower's link to the target of a detached run, as the views show it: lost (and when the next try
// to reach it again is), or back. The follower (detach/relink.ts) says each change as a `link` event in
// the run's batches; the log lines it says beside them stay as they were (the CLI prints those).

/** A time of this day on this computer's clock, to the second: 21:07:42. */
export const timeOfDay = (ms: number) => new Date(ms).toTimeString().slice(0, 8);

/**
 * The link's state. `lost`: since lostAt, with the next try at nextTryAt (absent, or past: a try is
 * under way). `back`: open again at `backAt`.
 */
export type LinkState = { state: 'lost'; target: string; lostAt: number; nextTryAt?: number } | { state: 'back'; target: string; lostAt: number; backAt: number };

/** The words for a link state at `now`: "link to T lost at 21:07:42, reconnecting (next try in 5 s)", "link back; resumed at 21:08:01". */
export function linkWords(l: LinkState, now: number): string {
  if (l.state === 'back') return `link back; resumed at ${timeOfDay(l.backAt)}`;
  const inS = l.nextTryAt === undefined ? 0 : Math.ceil((l.nextTryAt - now) / 1000);
  return `link to ${l.target} lost at ${timeOfDay(l.lostAt)}, reconnecting (${inS > 0 ? `next try in ${inS} s` : 'trying now'})`;
}
