// A followed detached run's link as the Run view shows it (common/link.ts, LiveRun): lost with the next
// try counted down (or a try under way), then back until the next restart ends.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { linkWords, timeOfDay } from '../../src/common/link.js';
import { LiveRun } from '../../src/browser/views/run/live.js';

const T = 'ssh://root@db1';
const lostAt = new Date(2026, 10, 30, 21, 7, 42).getTime();

test('a lost link says when it was lost and when the next try is, counted down; during a try, that it tries now', () => {
  assert.equal(linkWords({ state: 'lost', target: T, lostAt }, lostAt), `link to ${T} lost at 21:07:42, reconnecting (trying now)`);
  assert.equal(linkWords({ state: 'lost', target: T, lostAt, nextTryAt: lostAt + 5_000 }, lostAt + 200), `link to ${T} lost at 21:07:42, reconnecting (next try in 5 s)`);
  assert.equal(linkWords({ state: 'lost', target: T, lostAt, nextTryAt: lostAt + 5_000 }, lostAt + 4_100), `link to ${T} lost at 21:07:42, reconnecting (next try in 1 s)`);
  assert.equal(linkWords({ state: 'lost', target: T, lostAt, nextTryAt: lostAt + 5_000 }, lostAt + 5_000), `link to ${T} lost at 21:07:42, reconnecting (trying now)`);
  assert.equal(linkWords({ state: 'back', target: T, lostAt, backAt: lostAt + 19_000 }, lostAt + 20_000), 'link back; resumed at 21:08:01');
  assert.equal(timeOfDay(lostAt), '21:07:42');
});

test('the live run holds the last link state; back is let go when the next restart ends', () => {
  const live = new LiveRun();
  live.apply([{ type: 'restart-started', at: 1, seq: 1, cell: 'a' }]);
  live.apply([{ type: 'link', at: lostAt, state: 'lost', target: T, lostAt }]);
  assert.deepEqual(live.link, { state: 'lost', target: T, lostAt });
  live.apply([{ type: 'link', at: lostAt + 1_000, state: 'lost', target: T, lostAt, nextTryAt: lostAt + 2_000 }]);
  assert.equal(live.link?.state === 'lost' && live.link.nextTryAt, lostAt + 2_000);
  live.apply([{ type: 'link', at: lostAt + 3_000, state: 'back', target: T, lostAt, backAt: lostAt + 3_000 }]);
  assert.equal(live.link?.state, 'back');
  live.apply([{ type: 'restart-finished', at: lostAt + 9_000, seq: 1, cell: 'a', status: 'ok' }]);
  assert.equal(live.link, undefined);
});
