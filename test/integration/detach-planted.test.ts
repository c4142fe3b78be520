// The target trusts no folder it did not make (issue 24, item 4). A local user of the target (here the
// `mysql` account) plants a folder whose `runs` is a symbolic link to the runs directory of a live
// detached run, and ships a file and journal naming that run's id under the planted folder. `varlab
// status` and `varlab cancel` on the shipped file give the run directory launch's checks (its real
// path, owners, who can write) and refuse it, by name: the victim's runner goes on, its directory
// stays. The real sandbox sshd and mariadbd; the victim is then cancelled from its own file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, lchownSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { readJournalText } from '../../src/common/records.js';
import { journalPath } from '../../src/node/engine/journal.js';
import { shipDetachedRun } from '../fixtures/shipped-run.js';
import { alive, keepCells, quickstartCopy, runEnvForTests, varlabSync } from './run-env.js';

const env = runEnvForTests({ varlabHome: true });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test("a shipped journal naming a planted folder that links to a live run's directory: status and cancel refuse it, the run goes on", { timeout: 600_000 }, async () => {
  const victim = quickstartCopy(env, 'victim', (d) => {
    keepCells(d, ['aslr=on,ahi=on,preload=off,numa=default']);
    d.design.target = env.sshd.target;
    d.design.restartsPerCell = 3;
    d.design.workload.queries = d.design.workload.queries.slice(0, 1);
    d.design.workload.repetitions = 2;
    d.design.workload.warmup = 0;
    d.design.idleSeconds = 600;
  });
  const started = varlabSync(['run', victim, '--detach', ...env.authArgs], env.varlabHome);
  assert.equal(started.code, 0, started.stderr);
  const state = readJournalText(readFileSync(journalPath(victim), 'utf8'));
  const { dir, runId } = state.detached!;
  const runner = Number(readFileSync(join(dir, 'pid'), 'utf8').trim());
  try {
    // The planted folder, made by another user of the target: its `runs` links to the victim's.
    const uid = Number(execFileSync('id', ['-u', 'mysql']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'mysql']).toString().trim());
    const evil = join(env.dir, 'evil');
    const profile = join(evil, 'mysqld-23306-0123456789');
    mkdirSync(profile, { recursive: true, mode: 0o700 });
    chownSync(evil, uid, gid);
    chownSync(profile, uid, gid);
    symlinkSync(dirname(dir), join(profile, 'runs'));
    lchownSync(join(profile, 'runs'), uid, gid);
    const planted = join(profile, 'runs', runId);
    const shipped = shipDetachedRun({ dir: join(env.dir, 'shipped'), name: 'planted', target: env.sshd.target, host: state.host!, runId, runDir: () => planted });
    const home = join(env.dir, 'other-home');

    for (const command of ['status', 'cancel']) {
      const r = varlabSync([command, shipped.file, ...env.authArgs], home);
      assert.equal(r.code, 1, `${command}: ${r.stdout}${r.stderr}`);
      assert.match(r.stderr, new RegExp(`refusing ${planted.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: its real path is ${dir.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} \\(a symbolic link on the way\\)`), `${command}: ${r.stderr}`);
    }
    assert.ok(alive(runner), "the victim's runner goes on");
    assert.ok(existsSync(join(dir, 'journal')), "the victim's run directory is still there");
    assert.equal(readJournalText(readFileSync(journalPath(victim), 'utf8')).lastState, undefined, 'nothing ended the victim run');
  } finally {
    // The victim's own file stops it (and restores its host).
    const c = varlabSync(['cancel', victim], env.varlabHome);
    assert.equal(c.code, 0, c.stderr);
    for (let i = 0; i < 100 && alive(runner); i++) await sleep(100);
  }
});
