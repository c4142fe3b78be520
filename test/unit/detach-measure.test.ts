// The detached runner's batch rule (MEASURE_AWK), run by the target's awk over what the mysql client
// prints: a batch's figures become journal X lines only when they are provably the batch's; a batch
// with a figure missing (a history that wrapped into it, a statement not timed) gives none, so the
// restart is measured again (never guessed).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MEASURE_AWK } from '../../src/node/detach/runner.js';

const N = 'vlabab';

function awk(lines: string[]): { x: string[]; count: number; last: string } {
  const dir = mkdtempSync(join(tmpdir(), 'varlab-awk-'));
  try {
    const cnt = join(dir, 'count');
    const last = join(dir, 'last');
    const r = spawnSync('awk', ['-v', `N=${N}`, '-v', 'seq=7', '-v', `cnt=${cnt}`, '-v', `last=${last}`, MEASURE_AWK], { input: lines.join('\n') + '\n', encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    return { x: r.stdout.split('\n').filter(Boolean), count: Number(readFileSync(cnt, 'utf8')), last: readFileSync(last, 'utf8').trim() };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// performance_schema: `N h Q R0 COUNT AT EVENT_ID TIMER_WAIT SAME` per statement since the last read, then `N b Q R0 COUNT AT`.
const h = (id: number, wait: string, same: 0 | 1) => `${N} h 1 4 3 1000 ${id} ${wait} ${same}`;
const b = `${N} b 1 4 3 1001`;

test('performance_schema: the previous read, then 3 executions of the query: 3 X lines, repetitions 4 to 6', () => {
  const out = awk(['0', h(10, '5000', 0), '0', h(12, '1100000000', 1), h(15, '1200000000', 1), h(18, '1300000000', 1), b]);
  assert.deepEqual(out.x, ['X 1001 7 1 4 1100000000', 'X 1001 7 1 5 1200000000', 'X 1001 7 1 6 1300000000']);
  assert.equal(out.count, 3);
  // Where the session got to: query 1, repetition 6 (a statement refused after it is the next one's).
  assert.equal(out.last, '1 6');
  assert.equal(awk(['0']).last, '0 0');
});

test('performance_schema: a history that wrapped into the batch, a statement not timed, or one too many: no X line', () => {
  assert.deepEqual(awk([h(15, '1200000000', 1), h(18, '1300000000', 1), b]).x, []);
  assert.deepEqual(awk([h(10, '5000', 0), h(12, '1100000000', 1), h(15, '-', 1), h(18, '1300000000', 1), b]).x, []);
  assert.deepEqual(awk([h(9, '900', 1), h(12, '1100000000', 1), h(15, '1200000000', 1), h(18, '1300000000', 1), b]).x, []);
  // The history wrapped past the previous read only: all three are there.
  assert.equal(awk([h(12, '1100000000', 1), h(15, '1200000000', 1), h(18, '1300000000', 1), b]).count, 3);
});

// query profiling: `N P Q R0 COUNT AT`, SHOW PROFILES's rows (Query_ID TAB Duration TAB Query), then `N b …`.
const P = `${N} P 1 4 3 1000`;
const row = (id: number, dur: string, q: string) => `${id}\t${dur}\t${q}`;
const marker = (id: number) => row(id, '0.00001', `SELECT CONCAT('${N} b 1 1 3 ', 1)`);

test('query profiling: the 3 profiles between the previous marker and the P marker: 3 X lines', () => {
  const out = awk(['0', P, marker(20), row(21, '0.00110', 'SELECT 1'), row(22, '0.00120', 'SELECT 1'), row(23, '0.00130', 'SELECT 1'), row(24, '0.00001', `SELECT CONCAT('${N} P 1 4 3 ', 1)`), b]);
  assert.deepEqual(out.x, ['X 1001 7 1 4 0.00110', 'X 1001 7 1 5 0.00120', 'X 1001 7 1 6 0.00130']);
});

test('query profiling: a profile missing, or the previous marker gone from the history: no X line', () => {
  const tail = row(24, '0.00001', `SELECT CONCAT('${N} P 1 4 3 ', 1)`);
  assert.deepEqual(awk([P, marker(20), row(21, '0.00110', 'SELECT 1'), row(23, '0.00130', 'SELECT 1'), tail, b]).x, []);
  assert.deepEqual(awk([P, row(21, '0.00110', 'SELECT 1'), row(22, '0.00120', 'SELECT 1'), row(23, '0.00130', 'SELECT 1'), tail, b]).x, []);
  assert.deepEqual(awk([P, marker(20), row(21, '0.00110', 'SELECT 1'), row(22, '0.00120', 'SELECT 1'), marker(23), tail, b]).x, []);
});
