// The workload helpers that need no server: the setup script's statement splitter.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { splitStatements } from '../../src/node/workloads/setup.js';

test('the quickstart setup script splits into its statements, comments dropped', () => {
  const doc = JSON.parse(readFileSync('examples/quickstart.varlab.json', 'utf8'));
  const statements = splitStatements(doc.design.workload.setupSql);
  assert.equal(statements[0], 'CREATE TABLE digits (d INT NOT NULL PRIMARY KEY) ENGINE=InnoDB');
  assert.equal(statements.at(-1), 'DROP TABLE digits');
  assert.equal(statements.filter((s) => s.startsWith('CREATE TABLE')).length, 9);
  assert.ok(statements.every((s) => !s.includes('--')));
});

test('semicolons inside quotes and comments do not split a statement', () => {
  const script = "INSERT INTO t VALUES ('a;b', \"c;d\", 'it''s; fine', 'x\\';y');\n/* a; b */ SELECT `we;ird` FROM t; # trailing; comment\n-- x; y\nSELECT 2";
  assert.deepEqual(splitStatements(script), ["INSERT INTO t VALUES ('a;b', \"c;d\", 'it''s; fine', 'x\\';y')", 'SELECT `we;ird` FROM t', 'SELECT 2']);
});
