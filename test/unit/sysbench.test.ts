import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseSysbench, parseSysbenchInterval, parseWithRegex, sysbenchMetric } from '../../src/node/workloads/sysbench.js';

// Real output of sysbench 1.0.20 against a MariaDB 10.11 sandbox (see test/fixtures/).
const readOnly = readFileSync('test/fixtures/sysbench-oltp-read-only.txt', 'utf8');
const pointSelect = readFileSync('test/fixtures/sysbench-point-select-p99.txt', 'utf8');

test('sysbench summary: tps, qps, average and 95th percentile latency', () => {
  const s = parseSysbench(readOnly);
  assert.equal(s.tps, 578.79);
  assert.equal(s.qps, 9260.56);
  assert.equal(s.latency_avg_ms, 1.72);
  assert.equal(s.latency_p95_ms, 2.07);
  assert.equal(s.latency_min_ms, 0.5);
  assert.equal(s.latency_max_ms, 14.99);
  assert.equal(s.total_time_s, 3.0025);
  assert.equal(s.events, 1738);
});

test('sysbench --report-interval lines become intervals', () => {
  const s = parseSysbench(readOnly);
  assert.equal(s.intervals.length, 3);
  assert.deepEqual(s.intervals[0], { second: 1, threads: 1, tps: 549.62, qps: 8799.86, percentile: 95, latencyMs: 2.14, errPerSec: 0 });
  assert.equal(parseSysbenchInterval('SQL statistics:'), null);
});

test('sysbench with --percentile=99 reports that percentile, not a 95th', () => {
  const s = parseSysbench(pointSelect);
  assert.equal(s.tps, 70370.59);
  assert.equal(s.percentile, 99);
  assert.equal(s.latency_pct_ms, 0.12);
  assert.equal(s.latency_p95_ms, undefined);
  assert.equal(s.intervals.length, 0);
  assert.throws(() => sysbenchMetric(s, 'latency_p95_ms'), /"latency_p95_ms" is not in the output; available: .*latency_pct_ms/);
  assert.equal(sysbenchMetric(s, 'qps'), 70370.59);
});

test('output of a sysbench that failed says what is missing and shows its last lines', () => {
  const failed = 'sysbench 1.0.20\nFATAL: unable to connect to MySQL server on socket \'/tmp/nope\', aborting...\nFATAL: error 2002';
  assert.throws(() => parseSysbench(failed), /no transactions per second, queries per second, average latency .*FATAL: error 2002/);
});

test('a user regex reads its first capture group', () => {
  assert.equal(parseWithRegex(readOnly, 'transactions:\\s+\\d+\\s+\\(([\\d.]+) per sec'), 578.79);
  assert.throws(() => parseWithRegex(readOnly, 'no such ([0-9]+) thing'), /does not match workload.command.regex/);
  assert.throws(() => parseWithRegex(readOnly, 'transactions'), /needs one capture group/);
  assert.throws(() => parseWithRegex(readOnly, '(['), /not a valid regular expression/);
});
