// The timer note in its parts, as the Run view shows them (a line each, the exact timer's options one
// under another): the notes the run writes, built by the same functions, come apart into which timer
// and why, how to turn on the exact one, and how it compared with the client's time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { timerNoteParts } from '../../src/common/timer-note.js';
import { EXACT_TIMER_HELP, EXACT_TIMER_OPTIONS, profilingNote, vsClientText } from '../../src/node/workloads/queries.js';

const vs = vsClientText({ source: 'profiling', query: 'SELECT 1', n: 30, offsetMs: 0.071, spreadMs: 0.04, at: 1 });

test("a query profiling note with the client's time: which timer and why, the help with its options, the comparison", () => {
  const p = timerNoteParts(`${profilingNote('performance_schema is off')}; ${vs}`);
  assert.equal(p.what, 'times from query profiling (SHOW PROFILES), not the exact timer: performance_schema is off');
  assert.equal(p.help?.text, EXACT_TIMER_HELP);
  assert.deepEqual(p.help?.options, EXACT_TIMER_OPTIONS);
  assert.equal(p.help?.before, "for performance_schema's exact timer (TIMER_WAIT, in picoseconds), start mysqld with");
  assert.equal(p.help?.after, "add them to the server profile's options; a varlab sandbox has them");
  assert.equal(p.vsClient, vs);
  assert.match(vs, /^compared with the client's round trip at the start of the run \(30 executions of SELECT 1\): the client's time is 0\.071 ms longer \(median\), spread 0\.040 ms/);
});

test('a note without the comparison, a why with a semicolon of its own, a note of another shape', () => {
  const p = timerNoteParts(profilingNote('performance_schema cannot be read (Access denied; check the grants)'));
  assert.equal(p.what, 'times from query profiling (SHOW PROFILES), not the exact timer: performance_schema cannot be read (Access denied; check the grants)');
  assert.deepEqual(p.help?.options, EXACT_TIMER_OPTIONS);
  assert.equal(p.vsClient, undefined);
  assert.deepEqual(timerNoteParts('something else; entirely'), { what: 'something else; entirely' });
});
