// The workload helpers that need no server: the setup script's statement splitter.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { setupFailure, splitStatements } from '../../src/node/workloads/setup.js';

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

test('a setup script whose table is there from an earlier run says the way out: skip the setup when it exists, or drop it first', () => {
  const statements = splitStatements('CREATE TABLE t (a INT PRIMARY KEY, b INT);\nINSERT INTO t SELECT seq, seq % 97 FROM seq_1_to_20000;');
  // The server's own words (MariaDB and MySQL alike; a detached run's client may qualify the name).
  for (const said of ["Table 't' already exists", "ERROR 1050 (42S01) at line 1: Table 'varlab_bench.t' already exists"]) {
    const m = setupFailure(0, statements, said).message;
    assert.ok(m.startsWith(`setup script, statement 1 of 2 failed: ${said}\n  CREATE TABLE t (a INT PRIMARY KEY, b INT)\n`), m);
    assert.match(m, /\n {2}The data is there from an earlier run: to keep it, set "Skip the setup when this table exists" to t in the Designer \(design\.workload\.setupSkipIfTable in the file\); to make it again each run, begin the script with DROP TABLE IF EXISTS t;$/);
  }
  // Any other failure says what it said, no more.
  assert.equal(setupFailure(1, statements, 'You have an error').message, 'setup script, statement 2 of 2 failed: You have an error\n  INSERT INTO t SELECT seq, seq % 97 FROM seq_1_to_20000');
});
