// A run that stops before its first restart (here: its target's sshd does not answer) says why on the
// spot, and the file keeps it: results.log ends with the line the live log ended with, and the Run
// view of the reopened file (run.check's unfinished run) says how its last attempt ended.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExperimentDoc, ServerProfile } from '../../src/common/experiment/types.js';
import { DocumentService } from '../../src/node/documents/service.js';
import { RunService } from '../../src/node/runs/service.js';
import { headerRecord, journalPath, runJournals } from '../../src/node/engine/journal.js';
import { hostDesign } from '../../src/common/plan.js';
import { CLI } from '../fixtures/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'varlab-ended-why-'));
const home = join(dir, 'home');
mkdirSync(home);
// Port 1 on 127.0.0.1: nothing listens there, so the run fails to connect, before its first restart.
const TARGET = 'ssh://root@127.0.0.1:1';
after(() => rmSync(dir, { recursive: true, force: true }));

const profile: ServerProfile = { kind: 'direct', mysqld: '/usr/sbin/mariadbd', datadir: join(dir, 'data'), socket: join(dir, 'mysqld.sock'), port: 23457, user: 'root', extraArgs: [], sudo: false };

function varlab(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...CLI, ...args], { env: { ...process.env, VARLAB_HOME: home }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

test('a run that fails before its first restart keeps why in its file (results.log) and the reopened file says it', { timeout: 120_000 }, async () => {
  // The profile registered for the target (no consent asked): the run goes as far as connecting.
  writeFileSync(join(home, 'profiles.json'), JSON.stringify({ [TARGET]: profile }));
  const doc = JSON.parse(readFileSync('examples/quickstart.varlab.json', 'utf8')) as ExperimentDoc;
  doc.design.target = TARGET;
  delete doc.design.serverProfile;
  const file = join(dir, 'unreachable.varlab.json');
  writeFileSync(file, JSON.stringify(doc, null, 2));

  const r = await varlab(['run', file]);
  assert.equal(r.code, 1, r.stderr);
  const why = /failed after 0 of 80 restarts: (.+)$/m.exec(r.stderr);
  assert.ok(why, r.stderr);
  assert.match(why[1], /127\.0\.0\.1/);

  const saved = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
  assert.deepEqual(saved.results!.restarts, []);
  assert.deepEqual(saved.results!.log?.at(-1), { at: saved.results!.finishedAt, level: 'error', message: `run failed: ${why[1]}` }, JSON.stringify(saved.results!.log));

  const runs = new RunService({ documents: new DocumentService(), prompt: async () => ({ accept: false }) });
  const check = await runs.check(file);
  assert.equal(check.finished, false);
  assert.equal(!check.finished && check.unfinished?.ended, `It failed: ${why[1]}`);
  assert.equal(!check.finished && check.unfinished?.restartsDone, 0);
});

test('a cancelled run says it was cancelled; on several hosts each host says how it ended, by name', async () => {
  const doc = JSON.parse(readFileSync('examples/quickstart.varlab.json', 'utf8')) as ExperimentDoc;
  doc.design.target = TARGET;
  delete doc.design.serverProfile;
  const runs = new RunService({ documents: new DocumentService(), prompt: async () => ({ accept: false }) });
  const one = join(dir, 'cancelled.varlab.json');
  writeFileSync(one, JSON.stringify(doc, null, 2));
  writeFileSync(journalPath(one), [headerRecord(doc.design, 1_000), { t: 'run-finished', at: 2_000, state: 'cancelled', message: 'cancelled; run again to resume' }].map((r) => JSON.stringify(r)).join('\n') + '\n');
  const c1 = await runs.check(one);
  assert.equal(!c1.finished && c1.unfinished?.ended, 'It was cancelled');

  const B = 'ssh://root@127.0.0.1:2';
  const two = join(dir, 'two-hosts.varlab.json');
  const several = { ...doc, design: { ...doc.design, targets: [TARGET, B] } };
  writeFileSync(two, JSON.stringify(several, null, 2));
  const ends: Record<string, { state: 'failed' | 'cancelled'; message: string }> = { [TARGET]: { state: 'failed', message: 'connection refused' }, [B]: { state: 'cancelled', message: 'cancelled; run again to resume' } };
  for (const j of runJournals(two, several.design)) {
    writeFileSync(j.path, [headerRecord(hostDesign(several.design, j.host), 1_000), { t: 'run-finished', at: 2_000, ...ends[j.host] }].map((r) => JSON.stringify(r)).join('\n') + '\n');
  }
  const c2 = await runs.check(two);
  assert.equal(!c2.finished && c2.unfinished?.ended, `On ${TARGET} it failed: connection refused; on ${B} it was cancelled`);
});
