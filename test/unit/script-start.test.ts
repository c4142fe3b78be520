// The restart script's start, run by the real sh with a stand-in mysqld: the error log's size before
// the start and the launch's time stamp come from one subshell (wc and date side by side, issue 22, a
// lean restart), as do the script's start T0 and the host's counters before anything else (date beside
// the noise sample), and a start that fails still reports the log's new part only, the host's
// counters once, and the stop's lap; a log that is not there yet counts as empty.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerProfile } from '../../src/common/experiment/types.js';
import type { HostFingerprint } from '../../src/common/host.js';
import { restartProcedure } from '../../src/common/restart.js';
import { DEFAULT_HOST_PATHS, parseReply, restartScript } from '../../src/node/host/script.js';

const host = { target: 'local', probedAt: 0, threads: 2, numaNodes: [], sudoWithoutPassword: true, tools: {}, toolPaths: {}, systemd: false, allocators: {}, arch: 'x86_64' } as unknown as HostFingerprint;

function run(dir: string, withOldLog: boolean) {
  const log = join(dir, 'error.log');
  if (withOldLog) writeFileSync(log, 'old line 1 [ERROR] from an earlier start\nold line 2\n');
  // Stands in for mysqld: says why it cannot start, on stderr (nohup sends it to the log), and exits.
  const mysqld = join(dir, 'mysqld');
  writeFileSync(mysqld, "#!/bin/sh\necho \"$(date) [ERROR] unknown variable 'x=1'\" >&2\nexit 1\n");
  chmodSync(mysqld, 0o755);
  const profile: ServerProfile = { kind: 'direct', mysqld, datadir: dir, socket: join(dir, 'mysqld.sock'), port: 23306, user: 'root', pidFile: join(dir, 'mysqld.pid'), errorLog: log, extraArgs: [], sudo: false };
  const proc = restartProcedure({ profile, factors: [], levels: {}, host });
  const text = restartScript({ proc, profile, host, paths: DEFAULT_HOST_PATHS, recordDir: join(dir, 'rec') }).text;
  writeFileSync(join(dir, 's.sh'), text);
  let out = '';
  try {
    out = execFileSync('sh', [join(dir, 's.sh')], { encoding: 'utf8' });
  } catch (e) {
    out = String((e as { stdout: string }).stdout);
  }
  return { text, reply: parseReply(out), out };
}

for (const withOldLog of [true, false]) {
  test(`a start that fails reports the log's new part only, the stop's lap and a time stamp (${withOldLog ? 'a log with earlier lines' : 'no log yet'})`, () => {
    const dir = mkdtempSync(join(tmpdir(), 'varlab-start-'));
    try {
      const { text, reply, out } = run(dir, withOldLog);
      // One subshell reads the log's size (wc, in the background) and the time (date, exec'd).
      assert.match(text, /\$\(wc -c 2>\/dev\/null < \S+error\.log & exec date \+T%s%N 2>\/dev\/null\)/);
      assert.match(text, /\{ T0=\$\(date \+%s%N 2>\/dev\/null & noise_sample begin "\$fl" \S+ >&3\); \} 3>&1/);
      assert.equal(out.split('\n').filter((l) => l.startsWith('@noise begin ')).length, 1, out);
      assert.ok(reply.noise.begin && reply.noise.begin.uptime > 0 && reply.noise.begin.ctxt > 0, out);
      assert.equal(reply.fail?.kind, 'exited', out);
      assert.deepEqual(reply.log.map((l) => l.replace(/^.*\[ERROR\]/, '[ERROR]')), ["[ERROR] unknown variable 'x=1'"], out);
      assert.ok(reply.laps.stop !== undefined && reply.laps.stop >= 0 && reply.laps.stop < 60_000, out);
      assert.ok(existsSync(join(dir, 'error.log')));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
