// The one-liner on the sandbox sshd's mariadbd: `varlab run --query … --factor ahi=on,off` writes the
// experiment it runs (named in its output), runs it and prints the hyperfine-style summary; the file
// holds the results, and `varlab analyze` reads it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';
import { runEnvForTests, varlabSync } from './run-env.js';

const env = runEnvForTests();

test('varlab run --query --factor: the file it wrote, the run, and each cell against the first', { timeout: 600_000 }, () => {
  const file = join(env.dir, 'one.varlab.json');
  const query = 'SELECT COUNT(*) FROM information_schema.COLLATIONS';
  const r = varlabSync(['run', '--query', query, '--factor', 'ahi=on,off', '--restarts', '2', '--repetitions', '5', '--target', env.sshd.target, ...env.authArgs, '--out', file], env.varlabHome);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, new RegExp(`wrote ${file}: the experiment this command runs`));
  // It has no setup script: nothing is said of one (it said "setup script ran (0 statements, 0.0 s)").
  assert.doesNotMatch(r.stderr, /setup script ran|setup skipped/);
  const doc = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
  assert.equal(doc.results!.restarts.length, 4);
  assert.deepEqual(doc.design.workload.queries, [{ name: 'Q1', sql: query }]);
  assert.match(r.stdout, new RegExp(`^Q1: ${query.replace(/[()*]/g, '\\$&')}$`, 'm'));
  assert.match(r.stdout, /mean ± sd of restart means \(2 restarts; warm-up 2 dropped in each\)/);
  assert.match(r.stdout, /^ {2}ahi=on {3}\d[\d.]* ms ± [\d.]+ ms\n {2}ahi=off {2}\d[\d.]* ms ± [\d.]+ ms$/m);
  assert.match(r.stdout, /^ {2}ahi=off is \d+\.\d\d ± \d+\.\d\d times (faster|slower) than ahi=on; (differs|equivalent|inconclusive)/m);

  // The file is an experiment like any other: analyze reads it; the same one-liner again does not write over it.
  const a = varlabSync(['analyze', file], env.varlabHome);
  assert.equal(a.code, 0, a.stderr);
  const again = varlabSync(['run', '--query', query, '--factor', 'ahi=on,off', '--out', file], env.varlabHome);
  assert.equal(again.code, 2);
  assert.match(again.stderr, /exists already: name another with --out/);
});
