// `npm run varlab -- FILE` as the README gives it, started from the user's own folder with --prefix:
// a relative FILE is read from that folder (npm runs the script in the package's folder).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

test('npm --prefix REPO run varlab -- validate FILE reads FILE from the folder npm was started in', () => {
  const dir = mkdtempSync(join(tmpdir(), 'varlab-npm-run-'));
  try {
    copyFileSync('examples/quickstart.varlab.json', join(dir, 'mine.varlab.json'));
    const r = spawnSync('npm', ['--prefix', resolve('.'), 'run', '--silent', 'varlab', '--', 'validate', 'mine.varlab.json'], { cwd: dir, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^mine\.varlab\.json: valid/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
