// The README's "Is B faster than A?" commands as a new user types them (walk, 2026-11-28): the file the
// block runs and analyzes is made by a line of the block before it, and that line is one varlab takes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI } from '../fixtures/cli.js';

/** The shell lines of the first sh block under a heading of the README. */
function block(heading: string): string[] {
  const readme = readFileSync('README.md', 'utf8');
  const section = readme.slice(readme.indexOf(`\n## ${heading}\n`));
  const body = /```sh\n([\s\S]*?)```/.exec(section)![1];
  return body.split('\n').filter((l) => l.startsWith('varlab '));
}

test('"Is B faster than A?": the block makes ab.varlab.json before it runs or analyzes it, with a command varlab takes', () => {
  const lines = block('Is B faster than A?');
  const first = lines.findIndex((l) => l.includes('ab.varlab.json'));
  assert.ok(first >= 0, lines.join('\n'));
  assert.match(lines[first], /--out ab\.varlab\.json|new ab\.varlab\.json/, `the first line that names ab.varlab.json makes it: ${lines[first]}`);
  // That line as typed (its query filled in), in an empty home: the file is written (build A, B; in rounds), then
  // the run stops at the missing server profile, not at an option.
  const dir = mkdtempSync(join(tmpdir(), 'varlab-readme-ab-'));
  try {
    const words = lines[first].replace(/'SELECT …'/, "'SELECT 1'").split(/ (?=(?:[^']*'[^']*')*[^']*$)/).slice(1).map((w) => w.replace(/^'(.*)'$/, '$1'));
    const file = join(dir, 'ab.varlab.json');
    const r = spawnSync(process.execPath, [...CLI, ...words.map((w) => (w === 'ab.varlab.json' ? file : w))], { encoding: 'utf8', env: { ...process.env, VARLAB_HOME: join(dir, 'home') } });
    assert.doesNotMatch(r.stderr, /unknown option|goes with|Run `varlab run --help`/, r.stderr);
    assert.ok(existsSync(file), r.stderr);
    const doc = JSON.parse(readFileSync(file, 'utf8'));
    assert.deepEqual(doc.design.factors, [{ tunable: 'build', levels: ['A', 'B'] }]);
    assert.notEqual(doc.design.order, 'blocked');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
