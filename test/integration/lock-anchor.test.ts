// A run of another machine whose varlab is killed holds the target at once no more (issue 24, item 7,
// for attached runs). Its lock names its session's anchor, a process on the target that lives as long
// as its SSH connection; when varlab is killed, its kernel closes the connection, the anchor ends, and
// a run of another file on that host goes ahead at once and says what it found, where it was refused
// as busy until the lock went stale (180 s) before. "Another machine" is `varlab run` in a UTS
// namespace of its own, named laptop-b: its pid means nothing to the run that comes next. The real
// sandbox sshd and mariadbd.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';
import { DocumentService } from '../../src/node/documents/service.js';
import { RunService } from '../../src/node/runs/service.js';
import { CLI } from '../fixtures/cli.js';
import { exited, keepCells, quickstartCopy, runEnvForTests } from './run-env.js';

const env = runEnvForTests({ varlabHome: true });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const auth = () => ({ identity: env.sshd.keyFile, knownHosts: env.sshd.knownHostsFile });

function oneCell(name: string, idleSeconds: number): string {
  return quickstartCopy(env, name, (d: ExperimentDoc) => {
    keepCells(d, ['aslr=on,ahi=on,preload=off,numa=default']);
    d.design.factors = [{ tunable: 'ahi', levels: ['off'] }];
    d.design.excludedCells = [];
    d.design.target = env.sshd.target;
    d.design.restartsPerCell = idleSeconds ? 3 : 1;
    d.design.workload.queries = d.design.workload.queries.slice(0, 1);
    d.design.workload.repetitions = 2;
    d.design.workload.warmup = 0;
    d.design.idleSeconds = idleSeconds;
  });
}

/** The profile's lock on the target, once a run holds it: its owner line and its `runner` file (if any). */
function heldLock(): { owner: string; runner?: string } | null {
  const records = '/var/lib/varlab';
  for (const profile of existsSync(records) ? readdirSync(records) : []) {
    const lock = join(records, profile, 'varlab-run.lock');
    if (!existsSync(join(lock, 'owner'))) continue;
    const runner = join(lock, 'runner');
    return { owner: readFileSync(join(lock, 'owner'), 'utf8'), ...(existsSync(runner) ? { runner: readFileSync(runner, 'utf8') } : {}) };
  }
  return null;
}

test("an attached run of another machine killed mid-run: a run of another file on that host goes ahead at once and says what it found", { timeout: 600_000 }, async () => {
  const killed = oneCell('laptop-b-run', 600);
  // varlab on "laptop-b": its own hostname, so the next run cannot judge its pid from here.
  const child = spawn('unshare', ['--uts', 'sh', '-c', 'hostname laptop-b && exec "$@"', 'sh', process.execPath, ...CLI, 'run', killed, '--trust', '--identity', env.sshd.keyFile, '--known-hosts', env.sshd.knownHostsFile], {
    env: { ...process.env, VARLAB_HOME: env.varlabHome },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  try {
    let lock = heldLock();
    for (let i = 0; i < 1200 && !lock?.owner.includes('"host":"laptop-b"'); i++) {
      await sleep(100);
      lock = heldLock();
    }
    assert.ok(lock?.owner.includes('"host":"laptop-b"'), `laptop-b's run took the lock; it said:\n${out}`);
    // Into its first restart (the idle time, mysqld stopped), then killed as the OOM killer would.
    await sleep(1500);
    child.kill('SIGKILL');
    // The lock names the anchor, a process on the target (pid, start time, boot id, and `-` for a
    // directory), which ends with the connection.
    const [anchorPid, , , dir] = (lock?.runner ?? '').trim().split(' ');
    if (dir === '-') assert.ok(await exited(Number(anchorPid), 10_000), 'the anchor ends with the connection');
    else await sleep(1000);
  } finally {
    child.kill('SIGKILL');
  }

  const other = oneCell('other-file', 0);
  const logs: string[] = [];
  const service = new RunService({ documents: new DocumentService(), prompt: async () => ({ accept: false }) });
  const run = await service.start({ file: other, auth: auth(), consent: async () => {}, onEvent: (e) => e.type === 'log' && logs.push(e.message) });
  const outcome = await run.done;
  assert.equal(outcome.state, 'finished', `${outcome.message}\n${logs.join('\n')}`);
  const said = logs.find((m) => m.startsWith('the run of '));
  assert.ok(said, logs.join('\n'));
  assert.match(said, new RegExp(`^the run of .*laptop-b-run\\.varlab\\.json \\(pid \\d+ on laptop-b\\) held \\S+, but its connection to \\S+ is gone \\(its varlab was stopped or killed, or its machine closed the connection\\): its lock is taken over`));
  assert.equal(heldLock(), null, 'the lock is let go at the end');
  await service.dispose();
});
