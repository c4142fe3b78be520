// What the Run view says about a detached run: when one detached on several hosts did not start on
// one of them (the backend's run.start answer, src/node/api/run.ts, carries each such host and why),
// and when the user stopped following one (it goes on on its target).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { notStartedMessage } from '../../src/browser/views/run/not-started.js';
import { clock, followsByItself, notFollowingMessage } from '../../src/browser/views/run/follow.js';

test('a run detached on several hosts names each host that did not start and why, and says the others go on', () => {
  const m = notStartedMessage({ target: 'ssh://a', following: true, notStarted: [{ target: 'ssh://b', message: 'mysqld did not start' }, { target: 'ssh://c', message: 'host key mismatch' }] });
  assert.equal(m, 'not started on ssh://b: mysqld did not start; not started on ssh://c: host key mismatch. The other hosts go on; running the file again once they have ended runs what this one lacks.');
});

test('a run that started on every host, or an attached one, says nothing', () => {
  assert.equal(notStartedMessage({ target: 'ssh://a', following: true }), null);
  assert.equal(notStartedMessage(undefined), null);
});

// Stop following (src/browser/views/run/follow.ts): the run goes on on its target; the view does not
// follow it again by itself until the user asks or opens the file again.
test('a detached run the user stopped following is not followed again by itself until the file is opened again', () => {
  const stopped = { path: '/x/a.varlab.json', target: 'ssh://db1', state: 'stopped' as const, opened: 3 };
  assert.equal(followsByItself(stopped, '/x/a.varlab.json', 3), false, 'the same file, not opened again: not followed');
  assert.equal(followsByItself(stopped, '/x/a.varlab.json', 4), true, 'the file opened again: followed');
  assert.equal(followsByItself(stopped, '/x/b.varlab.json', 3), true, "another file's detached run is followed");
});

test('a run that could not be followed, is being connected to, or has no follow state is followed by itself', () => {
  assert.equal(followsByItself(null, '/x/a.varlab.json', 0), true);
  assert.equal(followsByItself({ path: '/x/a.varlab.json', target: 'ssh://db1', state: 'failed', message: 'the network dropped' }, '/x/a.varlab.json', 0), true);
  assert.equal(followsByItself({ path: '/x/a.varlab.json', state: 'connecting' }, '/x/a.varlab.json', 0), true);
});

test('not following says, as of when it stopped, that the run went on on its host, and how to follow it again', () => {
  const at = new Date(2026, 10, 26, 9, 47, 12).getTime();
  assert.equal(clock(at), '09:47');
  assert.equal(notFollowingMessage('ssh://db1', at), 'Not following since 09:47, when the run was still running on ssh://db1 (not following stops nothing there); press Follow or open the file again to bring in what it has done since.');
});
