// What the Run view says when a run detached on several hosts did not start on one of them (the
// backend's run.start answer, src/node/api/run.ts, carries each such host and why).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { notStartedMessage } from '../../src/browser/views/run/not-started.js';

test('a run detached on several hosts names each host that did not start and why, and says the others go on', () => {
  const m = notStartedMessage({ target: 'ssh://a', following: true, notStarted: [{ target: 'ssh://b', message: 'mysqld did not start' }, { target: 'ssh://c', message: 'host key mismatch' }] });
  assert.equal(m, 'not started on ssh://b: mysqld did not start; not started on ssh://c: host key mismatch. The other hosts go on; running the file again once they have ended runs what this one lacks.');
});

test('a run that started on every host, or an attached one, says nothing', () => {
  assert.equal(notStartedMessage({ target: 'ssh://a', following: true }), null);
  assert.equal(notStartedMessage(undefined), null);
});
