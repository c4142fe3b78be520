// The batch matcher: the server timer's figures read after a batch of back-to-back executions, each
// given to the execution it provably belongs to, or to none (that execution is measured again).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { keptForm, matchBatch, sameStatement, type HistoryRow, type SentExecution } from '../../src/node/workloads/history.js';
import { exactTimerFromProbe, TIMER_CONSUMERS, TIMER_PROBE_NAME, TIMER_PROBE_ROW } from '../../src/node/workloads/queries.js';

const SQL = 'SELECT COUNT(*) FROM t WHERE n < 1000';
const READ = 'SELECT EVENT_ID AS id, TIMER_WAIT AS w FROM performance_schema.events_statements_history_long WHERE THREAD_ID = 42';
const sent = (n: number): SentExecution[] => Array.from({ length: n }, () => ({ sql: SQL, rows: 1 }));
const exec = (id: number, ms: number): HistoryRow => ({ id, text: SQL, ms, rows: 1 });

test('performance_schema: the statement that read the previous batch, then n executions, give n figures in order', () => {
  const history = [{ id: 7, text: SQL, ms: 9, rows: 1 }, { id: 10, text: READ, ms: 0.2, rows: 3 }, exec(12, 1.1), exec(15, 1.2), exec(18, 1.3)];
  assert.deepEqual(matchBatch(sent(3), history, 7, 'increasing'), { ms: [1.1, 1.2, 1.3], last: 18 });
});

test('performance_schema: a history that wrapped lost the oldest executions, which get no figure (measured again)', () => {
  // The ring kept only the two newest: the read statement and the first execution are gone.
  assert.deepEqual(matchBatch(sent(3), [exec(15, 1.2), exec(18, 1.3)], 7, 'increasing'), { ms: [null, 1.2, 1.3], last: 18 });
});

test('performance_schema: a figure missing inside a whole history leaves every execution of the batch without one', () => {
  // The read statement is there, so the history is whole back to it, yet one execution has no row: which one cannot be told.
  assert.deepEqual(matchBatch(sent(3), [{ id: 10, text: READ, ms: 0.2 }, exec(12, 1.1), exec(18, 1.3)], 7, 'increasing').ms, [null, null, null]);
});

test('performance_schema: a figure with other rows sent, or no time, is not the execution\'s', () => {
  const untimed = [{ id: 10, text: READ, ms: 0.2 }, exec(12, 1.1), exec(15, 1.2), exec(18, NaN)];
  assert.deepEqual(matchBatch(sent(3), untimed, 7, 'increasing').ms, [null, null, null]);
  const rows = [{ id: 10, text: READ, ms: 0.2 }, exec(12, 1.1), { ...exec(15, 1.2), rows: 5 }, exec(18, 1.3)];
  assert.deepEqual(matchBatch(sent(3), rows, 7, 'increasing').ms, [null, null, null]);
});

test('performance_schema: another statement\'s rows are never taken, nor one execution too many', () => {
  const other = [{ id: 10, text: READ, ms: 0.2 }, exec(12, 1.1), { id: 15, text: 'SELECT 2', ms: 0.1 }, exec(18, 1.3)];
  assert.deepEqual(matchBatch(sent(2), other, 7, 'increasing').ms, [null, null]);
  assert.deepEqual(matchBatch(sent(2), [exec(12, 1.1), exec(15, 1.2), exec(18, 1.3)], 7, 'increasing').ms, [null, null]);
});

test('query profiling: execution i is Query_ID after + 1 + i; a missing one alone is measured again', () => {
  const history = [{ id: 4, text: SQL, ms: 1 }, { id: 5, text: SQL, ms: 1.1 }, { id: 7, text: SQL, ms: 1.3 }];
  assert.deepEqual(matchBatch(sent(3), history, 4, 'consecutive'), { ms: [1.1, null, 1.3], last: 7 });
  // A profile that wrapped out of SHOW PROFILES (history size 100) is simply absent.
  assert.deepEqual(matchBatch(sent(2), [{ id: 6, text: SQL, ms: 1.2 }], 4, 'consecutive').ms, [null, 1.2]);
  assert.deepEqual(matchBatch(sent(1), [{ id: 5, text: 'SELECT 2', ms: 1.2 }], 4, 'consecutive').ms, [null]);
});

test('a statement text the server cut short matches only a long statement it begins', () => {
  const long = `SELECT ${'a, '.repeat(200)}b FROM t`;
  assert.ok(sameStatement(long.slice(0, 300), long));
  assert.ok(!sameStatement('SELECT', 'SELECT 1'));
  assert.ok(!sameStatement('select 1', 'SELECT 1'));
});

test('the server keeps a statement without the whitespace around it and the semicolons after it: still the execution\'s own', () => {
  assert.equal(keptForm('\n  SELECT COUNT(*) FROM t -- ;note\n'), 'SELECT COUNT(*) FROM t -- ;note');
  assert.equal(keptForm('SELECT 1 ;  \n\t'), 'SELECT 1');
  assert.ok(sameStatement('SELECT COUNT(*) FROM t -- ;note', 'SELECT COUNT(*) FROM t -- ;note\n'));
  assert.ok(!sameStatement('SELECT COUNT(*) FROM t', 'SELECT COUNT(*) FROM u\n'));
});

test("the exact timer's probe, read in the verify step's read back: thread, consumers on, history mark", () => {
  const all = TIMER_CONSUMERS.length;
  assert.deepEqual(exactTimerFromProbe(`42 ${all} 1234`), { timer: { source: 'performance_schema', threadId: 42 }, after: 1234 });
  assert.equal(exactTimerFromProbe(`42 ${all - 1} 1234`), null, 'a consumer off');
  assert.equal(exactTimerFromProbe(`42 ${all}`), null);
  assert.equal(exactTimerFromProbe(''), null);
  assert.equal(exactTimerFromProbe(undefined), null);
  // One (n, e) row, as the read back's other parts give theirs.
  assert.match(TIMER_PROBE_ROW, new RegExp(`^SELECT '${TIMER_PROBE_NAME}' AS n, CONCAT_WS\\(' ', t\\.THREAD_ID, .* AS e FROM performance_schema\\.threads t WHERE t\\.PROCESSLIST_ID = CONNECTION_ID\\(\\)`));
});
