// The detached runner's pieces that need no server: the launch script (both supervisors: setsid nohup
// for real, systemd-run through its exact text and a stand-in on PATH, since this machine has no
// systemd), the runner script's syntax and how it is compiled from the restart procedures, and the
// import of a target journal into journal records (markers, base64, a run's end held until the host
// was put back).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Design, ExperimentDoc, ServerProfile } from '../../src/common/experiment/types.js';
import type { HostFingerprint } from '../../src/common/host.js';
import { buildPlan } from '../../src/common/plan.js';
import { JournalFold, resultsFromJournal, type JournalRecord } from '../../src/common/records.js';
import { restartProcedure } from '../../src/common/restart.js';
import { DEFAULT_HOST_PATHS, restartScript } from '../../src/node/host/script.js';
import { compileRunner, DETACHED_BATCH, runDir, VS_CLIENT_AWK } from '../../src/node/detach/runner.js';
import { importLines, parseVariables, type ImportContext } from '../../src/node/detach/import.js';
import { timerNoteParts, timerNoteText, VS_CYCLE_QUERY } from '../../src/common/timer-note.js';

/** A query profiling note in words, as the run's warning says it. */
const profilingNote = (why: string) => timerNoteText(timerNoteParts({ source: 'profiling', why })!);
import { launchInput, launchScript, parseLaunch, parseRead, readScript } from '../../src/node/detach/supervisor.js';

const profile: ServerProfile = {
  kind: 'direct',
  mysqld: '/usr/sbin/mariadbd',
  datadir: '/srv/sb/data',
  socket: '/srv/sb/mysqld.sock',
  port: 23306,
  osUser: 'mysql',
  user: 'root',
  errorLog: '/srv/sb/error.log',
  pidFile: '/srv/sb/mysqld.pid',
  extraArgs: ['--innodb-buffer-pool-size=512M'],
  sudo: true,
};

const host: HostFingerprint = {
  target: 'ssh://db',
  probedAt: 0,
  hostname: 'db1',
  kernel: 'Linux 6.1',
  cpuModel: 'x',
  sockets: 1,
  cores: 4,
  threads: 4,
  numaNodes: [{ node: 0, cpus: '0-3', memoryMb: 1000 }],
  aslr: '2',
  governor: null,
  turbo: null,
  thp: 'madvise',
  mysqld: null,
  sudoWithoutPassword: true,
  tools: { numactl: true, taskset: true, setarch: true, perf: false, sysbench: false },
  arch: 'x86_64',
  user: 'root',
  uid: 0,
};

function quickstart(): Design {
  const d = (JSON.parse(readFileSync('examples/quickstart.varlab.json', 'utf8')) as ExperimentDoc).design;
  d.target = 'ssh://db';
  d.restartsPerCell = 2;
  d.serverProfile = profile;
  return d;
}

const RUN = '0f1e2d3c-4b5a-4968-8776-655443322110';
const recordDir = '/var/lib/varlab/mysqld-23306-abc';

function compiled(d = quickstart()) {
  const plan = buildPlan(d);
  const procedures = new Map(plan.map((r) => [r.cell, restartProcedure({ profile, factors: d.factors, levels: r.levels, host, schemas: [d.workload.database], workload: true })]));
  return { plan, files: compileRunner({ runId: RUN, dir: runDir(recordDir, RUN), design: d, profile, host, paths: DEFAULT_HOST_PATHS, recordDir, restarts: plan, procedures, nonce: 'ab'.repeat(12) }) };
}

test('the runner is one POSIX sh script compiled from the restart procedures: each cell runs the very restart script of an attached run', () => {
  const d = quickstart();
  const { plan, files } = compiled(d);
  const runner = files[0];
  assert.equal(runner.name, 'runner.sh');
  assert.equal(runner.mode, 0o700);
  for (const f of files.slice(1)) assert.equal(f.mode, 0o600, f.name);
  const dir = mkdtempSync(join(tmpdir(), 'varlab-runner-'));
  try {
    writeFileSync(join(dir, 'runner.sh'), runner.text);
    // dash is Debian's /bin/sh; bash --posix reads it the same way.
    for (const sh of ['/bin/sh', '/bin/bash']) {
      const r = spawnSync(sh, ['-n', join(dir, 'runner.sh')], { encoding: 'utf8' });
      assert.equal(r.status, 0, `${sh}: ${r.stderr}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  // Every cell's restart script is in it, as the attached run would send it.
  const cells = [...new Set(plan.map((r) => r.cell))];
  for (const cell of cells) {
    const proc = restartProcedure({ profile, factors: d.factors, levels: plan.find((r) => r.cell === cell)!.levels, host, schemas: [d.workload.database], workload: true });
    assert.ok(runner.text.includes(restartScript({ proc, profile, host, paths: DEFAULT_HOST_PATHS, recordDir }).text), cell);
  }
  // The plan file: seq and the cell's number, in plan order.
  const planFile = files.find((f) => f.name === 'plan')!.text.trim().split('\n');
  assert.equal(planFile.length, plan.length);
  assert.deepEqual(planFile.map((l) => Number(l.split(' ')[0])), plan.map((r) => r.seq));
  // The measured session: each query its repetitions back to back, timed by SHOW PROFILES after each batch, never the client.
  const session = files.find((f) => f.name === 'session-profiling.sql')!.text;
  assert.equal(session.split('SHOW PROFILES').length - 1, d.workload.queries.length * Math.ceil(d.workload.repetitions / DETACHED_BATCH));
  assert.ok(session.includes(`${d.workload.queries[0].sql}\n${';;abababababab'}\n${d.workload.queries[0].sql}`), 'two executions with nothing between them');
  assert.equal(session.split(d.workload.queries[0].sql).length - 1, d.workload.repetitions);
  // The login: the profile's socket and user, never a password.
  assert.match(runner.text, /--socket=\/srv\/sb\/mysqld.sock --user=root/);
  assert.doesNotMatch(runner.text, /--password/);
  // Measured queries as the read-only account, whose password the runner makes on the target and keeps in its environment only.
  assert.deepEqual(runner.text.match(/MYSQL_PWD=\S*/g), ['MYSQL_PWD="$MPW"']);
  assert.match(runner.text, /MPW=\$\(od -An -N18 -tx1 \/dev\/urandom/);
  // The password never is an argument of a command (every user's ps shows those): only assigned, exported and read from the environment.
  const uses = runner.text.split('\n').filter((l) => l.includes('$MPW') || l.includes('${MPW}'));
  assert.deepEqual(uses.map((l) => l.trim().replace(/^(msql\(\) \{ MYSQL_PWD="\$MPW").*/, '$1')), [
    'msql() { MYSQL_PWD="$MPW"',
    // Made once per runner: every build's data directory gets the account with the same password.
    `[ -n "$MPW" ] || MPW=$(od -An -N18 -tx1 /dev/urandom | tr -d ' \\n'); export MPW`,
    `[ -n "$MPW" ] || finish failed msg "$(printf '%s' "no random password for the measurement account (/dev/urandom)" | b64)"`,
  ]);
  assert.match(runner.text, /awk '\{ gsub\(\/@@varlab_password@@\/, ENVIRON\["MPW"\]\); print \}' < "\$DIR\/account-\$acct.sql"/);
  assert.match(runner.text, /msql\(\) \{ MYSQL_PWD="\$MPW" "\$CLIENT" --no-defaults --socket=\/srv\/sb\/mysqld.sock --user=varlab_measure /);
  assert.match(runner.text, /msql --database=[a-z_]+ --delimiter="\$D" < "\$DIR\/session-\$2.sql"/);
  // Cancel, the end and an error of the runner's own all go through finish: stop mysqld, restore the host.
  assert.match(runner.text, /trap on_term TERM INT HUP/);
  assert.match(runner.text, /trap 'finish failed msg/);
});

test('a level that could reach the shell unvalidated is refused before anything is compiled', () => {
  const d = quickstart();
  d.factors = [{ tunable: 'cpubind', levels: ['0;reboot'] }];
  assert.throws(() => compiled(d), /not valid/);
});

test('the launch script starts the runner under systemd-run (exact unit) where systemd runs, else setsid nohup: both run here', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'varlab-launch-'));
  chmodSync(tmp, 0o755);
  try {
    const paths = { ...DEFAULT_HOST_PATHS, records: join(tmp, 'records') };
    const rec = join(paths.records, 'p1');
    // A stand-in runner: says it started and logged in, as the real one does.
    const runnerText = 'd=$(dirname "$0"); echo $$ > "$d/pid"; printf "V 1 r 1 %s\\nA 2\\n" $$ >> "$d/journal"; sleep 1\n';
    const files = [{ name: 'runner.sh', text: runnerText, mode: 0o700 as const }, { name: 'plan', text: '1 1\n', mode: 0o600 as const }];
    const run = (script: string, env: NodeJS.ProcessEnv = process.env) => execFileSync('/bin/sh', ['-c', script], { input: launchInput(files), env, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });

    const s1 = launchScript({ runId: RUN, dir: runDir(rec, RUN), recordDir: rec, paths, files, stopTimeoutS: 600, sudo: false });
    // The exact systemd-run line, in the root branch behind sd_booted's test.
    assert.match(s1.text, /if \[ "\$\(id -u\)" = 0 \] && \[ -d \/run\/systemd\/system \] && command -v systemd-run/);
    assert.ok(s1.text.includes(`systemd-run --unit=varlab-${RUN} --description='varlab detached run ${RUN}' --property=KillMode=mixed --property=TimeoutStopSec=720 --collect --quiet /bin/sh "$d/runner.sh"`));
    assert.ok(s1.text.includes('(cd / && exec setsid nohup /bin/sh "$d/runner.sh" < /dev/null >> "$d/runner.log" 2>&1 &)'));
    // No systemd here: setsid nohup, for real.
    const out1 = run(s1.text);
    assert.equal(parseLaunch(out1).supervisor, 'setsid');
    assert.ok(parseLaunch(out1).pid);
    assert.equal(readFileSync(join(runDir(rec, RUN), 'plan'), 'utf8'), '1 1\n');
    assert.match(execFileSync('stat', ['-c', '%a', runDir(rec, RUN)], { encoding: 'utf8' }), /^700/);
    // A second launch into the same run directory is refused.
    assert.throws(() => run(s1.text), /cannot make/);

    // With systemd: the same text, sd_booted's directory pointed at one that exists, and a systemd-run
    // stand-in on PATH that records its arguments and starts the command as systemd would.
    const RUN2 = RUN.replace(/0$/, '1');
    const s2 = launchScript({ runId: RUN2, dir: runDir(rec, RUN2), recordDir: rec, paths, files, stopTimeoutS: 60, sudo: false });
    const fakeRoot = join(tmp, 'systemd-system');
    mkdirSync(fakeRoot);
    const bin = join(tmp, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'systemd-run'), `#!/bin/sh\nprintf '%s\\n' "$@" > ${join(tmp, 'args')}\nwhile [ $# -gt 0 ]; do case "$1" in --*) shift ;; *) break ;; esac; done\n(setsid "$@" < /dev/null > /dev/null 2>&1 &)\n`, { mode: 0o755 });
    const out2 = run(s2.text.replace('/run/systemd/system', fakeRoot), { ...process.env, PATH: `${bin}:${process.env.PATH}` });
    assert.equal(parseLaunch(out2).supervisor, 'systemd');
    assert.deepEqual(readFileSync(join(tmp, 'args'), 'utf8').trim().split('\n'), [
      `--unit=varlab-${RUN2}`,
      `--description=varlab detached run ${RUN2}`,
      '--property=KillMode=mixed',
      '--property=TimeoutStopSec=180',
      '--collect',
      '--quiet',
      '/bin/sh',
      `${runDir(rec, RUN2)}/runner.sh`,
    ]);
    assert.ok(existsSync(join(runDir(rec, RUN2), 'journal')));

    // Reading from an offset: the state first, then exactly the bytes after the offset.
    const read = parseRead(execFileSync('/bin/sh', ['-c', readScript(runDir(rec, RUN), 4, false).text], { encoding: 'utf8' }));
    assert.equal(read.data, readFileSync(join(runDir(rec, RUN), 'journal'), 'utf8').slice(4));
    assert.ok(['running', 'ended'].includes(read.state));
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('launch refuses a records directory another user could write', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'varlab-launch-'));
  try {
    const paths = { ...DEFAULT_HOST_PATHS, records: join(tmp, 'records') };
    mkdirSync(paths.records, { mode: 0o777 });
    chmodSync(paths.records, 0o777);
    const rec = join(paths.records, 'p1');
    const files = [{ name: 'runner.sh', text: 'true\n', mode: 0o700 as const }];
    const s = launchScript({ runId: RUN, dir: runDir(rec, RUN), recordDir: rec, paths, files, stopTimeoutS: 600, sudo: false });
    const r = spawnSync('/bin/sh', ['-c', s.text], { input: launchInput(files), encoding: 'utf8' });
    assert.notEqual(r.status, 0);
    assert.match(r.stdout, /@fail dir refusing .*records: it is not owned by uid \d+ or others can write it/);
    assert.equal(existsSync(runDir(rec, RUN)), false);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('launch refuses a run directory below a folder others may rename things in, as status and attach would; a sticky one (like /tmp) is fine', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'varlab-launch-'));
  try {
    const files = [{ name: 'runner.sh', text: 'true\n', mode: 0o700 as const }];
    const launch = (mode: number) => {
      const open = join(tmp, `open-${mode.toString(8)}`);
      mkdirSync(open);
      chmodSync(open, mode);
      const paths = { ...DEFAULT_HOST_PATHS, records: join(open, 'records') };
      const rec = join(paths.records, 'p1');
      const s = launchScript({ runId: RUN, dir: runDir(rec, RUN), recordDir: rec, paths, files, stopTimeoutS: 600, sudo: false, waitS: 0.1 });
      return { r: spawnSync('/bin/sh', ['-c', s.text], { input: launchInput(files), encoding: 'utf8' }), open, dir: runDir(rec, RUN) };
    };
    const writable = launch(0o777);
    assert.notEqual(writable.r.status, 0);
    assert.match(writable.r.stdout, new RegExp(`@fail dir refusing ${writable.dir}: others can write ${writable.open}`));
    assert.equal(existsSync(writable.dir), false, 'the run directory is not left behind');
    const sticky = launch(0o1777);
    assert.doesNotMatch(sticky.r.stdout, /@fail dir/, sticky.r.stdout);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

// ---- import ----

const b64 = (s: string) => (s ? Buffer.from(s, 'utf8').toString('base64') : '-');
/** The message of the run-finished record among these, if any. */
const endOf = (records: JournalRecord[]) => {
  const r = records.find((x) => x.t === 'run-finished');
  return r?.t === 'run-finished' ? { state: r.state, message: r.message } : undefined;
};

function ctx(d: Design, fold: JournalFold): ImportContext {
  const s = fold.state();
  return { design: d, plan: buildPlan(d), profile, host, target: 'ssh://db', open: s.interrupted.map((i) => i.seq), timer: s.timer?.source };
}

function small(): Design {
  const d = quickstart();
  d.factors = [{ tunable: 'ahi', levels: ['on', 'off'] }];
  d.restartsPerCell = 1;
  d.workload.queries = d.workload.queries.slice(0, 1);
  d.workload.repetitions = 2;
  d.workload.warmup = 1;
  return d;
}

test('import: the runner lines become the records an attached run writes, whatever the query results or errors held', () => {
  const d = small();
  const plan = buildPlan(d);
  const fold = new JournalFold();
  const ahi1 = plan[0].levels.ahi === 'on' ? 'ON' : 'OFF';
  const lines = [
    'V 1 r 1000 4242',
    'R 1001 1',
    'U 1002 0 20 5300',
    `F 1003 1 ${b64('@pid 77\n@ready 812\n')} ${b64(`innodb_adaptive_hash_index\t${ahi1}\ninnodb_buffer_pool_size\t536870912\n`)}`,
    'T 1004 profiling events_statements_current,events_statements_history_long',
    'X 1005 1 1 1 0.00250000',
    'X 1006 1 1 2 0.00125000',
    // Its step times (a word that is not a step, or not a count, is left out).
    'D 1007 1 stop=52 start=190 verify=31 setup=5300 measure=12 connect=x bogus=4',
    'R 1008 2',
    // The second start left the hash index on although the cell says off: verify-failed, its figures kept out.
    `F 1009 2 ${b64('@pid 78\n@ready 700\n')} ${b64('innodb_adaptive_hash_index\tON\ninnodb_buffer_pool_size\t536870912\n')}`,
    'X 1010 2 1 1 0.1',
    'X 1011 2 1 2 0.1',
    'D 1012 2',
  ];
  const got = importLines(lines.join('\n') + '\npartial line witho', ctx(d, fold));
  for (const r of got.records) fold.apply(r);
  assert.equal(got.consumed, lines.join('\n').length + 1, 'only whole lines');
  assert.equal(got.ended, false);
  const s = fold.state();
  assert.equal(s.restarts.length, 2);
  const [ok, bad] = s.restarts;
  assert.equal(ok.status, 'ok');
  assert.deepEqual(ok.steps, { stop: 52, start: 190, verify: 31, setup: 5300, measure: 12 });
  assert.equal(bad.steps, undefined, 'a D line of an older runner: no steps');
  assert.deepEqual(ok.queries, [{ query: d.workload.queries[0].name, unit: 'ms', source: 'profiling', values: [2.5, 1.25] }]);
  assert.deepEqual(ok.options, [{ tunable: 'innodb_buffer_pool_size', level: '512M', ok: true, observed: '@@innodb_buffer_pool_size = 536870912' }]);
  assert.equal(bad.status, plan[1].levels.ahi === 'off' ? 'verify-failed' : 'ok');
  if (bad.status === 'verify-failed') assert.deepEqual(bad.queries, []);
  assert.equal(got.records.filter((r) => r.t === 'execution' && r.warmup).length, 1);
  // Which timer and why, once: in the timer record (the file's timer note is said from it) and as a warning in the run's log.
  assert.equal(s.timer?.why, "performance_schema's consumers events_statements_current, events_statements_history_long are off");
  const note = profilingNote(s.timer!.why!);
  assert.match(note, /^times from query profiling \(SHOW PROFILES\), not the exact timer: performance_schema's consumers events_statements_current, events_statements_history_long are off; for performance_schema's exact timer/);
  // What the runner said is journaled (log records, in the order it said it), so the file keeps it.
  const said = got.records.filter((r) => r.t === 'log');
  assert.deepEqual(said.map((l) => l.message), ['the runner started on ssh://db (pid 4242)', 'setup script ran (20 statements, 5.3 s)', note]);
  assert.equal(said[2].level, 'warn');
  assert.deepEqual(resultsFromJournal(s).log?.map((l) => l.message), said.map((l) => l.message));
  // The runner's other words: performance_schema off, none off; a word it could not have written reads as none off.
  for (const [word, why] of [['off', 'performance_schema is off'], ['-', "performance_schema does not time this connection's statements"], ['x;rm', "performance_schema does not time this connection's statements"]]) {
    const t = importLines(`T 1 profiling ${word}\n`, ctx(d, new JournalFold())).records.find((r) => r.t === 'timer');
    assert.equal(t?.t === 'timer' && t.why, why, word);
  }
});

test('import: a restart that failed its verification keeps the step times the F line carries; an older F line has none', () => {
  const d = small();
  const plan = buildPlan(d);
  // The cell whose level the read back contradicts.
  const seq = plan.findIndex((r) => r.levels.ahi === 'off') + 1;
  const vars = b64('innodb_adaptive_hash_index\tON\ninnodb_buffer_pool_size\t536870912\n');
  const reply = b64('@pid 78\n@ready 700\n');
  const finished = (lines: string[]) => importLines(lines.join('\n') + '\n', ctx(d, new JournalFold())).records.find((r) => r.t === 'restart-finished');
  const r = finished([`R 1 ${seq}`, `F 2 ${seq} ${reply} ${vars} stop=41 start=180 verify=9 setup=4100 bogus=3`]);
  assert.deepEqual(r?.t === 'restart-finished' && [r.status, r.steps], ['verify-failed', { stop: 41, start: 180, verify: 9, setup: 4100 }]);
  const old = finished([`R 1 ${seq}`, `F 2 ${seq} ${reply} ${vars}`]);
  assert.deepEqual(old?.t === 'restart-finished' && [old.status, old.steps], ['verify-failed', undefined]);
  // The runner writes them on its F line.
  assert.match(compiled(d).files[0].text, /jr "F \$\(ms\) \$1 \$\(b64 < "\$DIR\/reply"\) \$\(printf '%s' "\$v" \| b64\)\$\(st_line\)"/);
});

test('import: query profiling against the client\'s time, as the runner measured it, goes into the timer record and its note', () => {
  const d = small();
  const t = importLines('T 5 profiling off 30 0.071 0.012\n', ctx(d, new JournalFold())).records.find((r) => r.t === 'timer');
  assert.ok(t?.t === 'timer');
  assert.deepEqual(t.vsClient, { source: 'profiling', query: VS_CYCLE_QUERY, n: 30, offsetMs: 0.071, spreadMs: 0.012, at: 5 });
  assert.equal(t.why, 'performance_schema is off');
  assert.equal(timerNoteText(timerNoteParts(t)!), `${profilingNote('performance_schema is off')}; compared with the client's round trip at the start of the run (30 executions of ${VS_CYCLE_QUERY}, the client's time taken by the server's clock from one execution's start to the next's): the client's time is 0.071 ms longer (median), spread 0.012 ms (standard deviation)`);
  // A runner that measured nothing (or said something else) gives the note alone.
  for (const line of ['T 5 profiling off\n', 'T 5 profiling off \n', 'T 5 profiling off 2 0.1 0.1\n', 'T 5 profiling off 30 x 0.1\n']) {
    const u = importLines(line, ctx(d, new JournalFold())).records.find((r) => r.t === 'timer');
    assert.deepEqual(u?.t === 'timer' && [u.vsClient, u.why, u.note], [undefined, 'performance_schema is off', undefined], line);
  }
});

test('vs_client: the time from one execution\'s start to the next\'s less its profile, per execution: their count, median and standard deviation', () => {
  const N = 'vlabab';
  // Starts 0.100 ms + 0.001·i apart by the server's clock, each profiled at 0.040 ms; a profile of another statement before them.
  const starts = [0, 100, 201, 303, 406, 510].map((us) => `${N} v 1764230400.${String(123000 + us).padStart(6, '0')}`);
  const profiles = ['11\t0.00002000\tSET profiling_history_size = 100', ...starts.map((_, i) => `${12 + i}\t0.00004000\tSELECT CONCAT('${N} v ', UNIX_TIMESTAMP(NOW(6)))`)];
  const r = spawnSync('awk', ['-v', `N=${N}`, VS_CLIENT_AWK], { input: [...starts, ...profiles].join('\n') + '\n', encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  // Intervals 100 101 102 103 104 µs less 40: 0.060 … 0.064 ms; median 0.062, sd 0.00158.
  assert.equal(r.stdout, '5 0.062 0.002\n');
  // Too few figures, or fewer profiles than starts: nothing (the note goes without).
  const none = spawnSync('awk', ['-v', `N=${N}`, VS_CLIENT_AWK], { input: [...starts.slice(0, 3), ...profiles].join('\n') + '\n', encoding: 'utf8' });
  assert.equal(none.stdout, '');
});

test('import: a refusal in a detached measured session names the statement at the line the client gives: an execution, or the timer read after a batch', () => {
  const d = small();
  d.workload.queries = quickstart().workload.queries.slice(0, 2);
  d.workload.repetitions = 3;
  const [q1, q2] = d.workload.queries.map((q) => q.name);
  const cell = buildPlan(d)[1].cell;
  const lines = (timer: 'profiling' | 'performance_schema') => sessionSqlLines(d, timer);
  for (const timer of ['performance_schema', 'profiling'] as const) {
    const sql = lines(timer);
    const lineOf = (pred: (l: string) => boolean, nth = 0) => sql.map((l, i) => (pred(l) ? i + 1 : 0)).filter(Boolean)[nth];
    const end = (line: number, last = '0 0') =>
      endOf(importLines(`T 1 ${timer}${timer === 'profiling' ? ' off' : ''}\nR 1 2\nE 2 failed query 2 ${b64(`ERROR 1142 (42000) at line ${line}: SELECT command denied to user 'varlab_measure'@'localhost' for table \`events_statements_history_long\``)} ${last}\nH 3 ok\n`, ctx(d, new JournalFold())).records)?.message;
    const denied = "SELECT command denied to user 'varlab_measure'@'localhost' for table `events_statements_history_long`";
    // The timer's read after query 1's batch: the batch is named, not the next query (the lines before said "query 2").
    const read = lineOf((l) => (timer === 'profiling' ? l === 'SHOW PROFILES' : l.includes('events_statements_history_long') && l.startsWith('SELECT CONCAT(')));
    assert.equal(end(read, '1 3'), `restart 2 (${cell}): the server's statement timer (${timer}) could not be read after executions 1-3 of query ${JSON.stringify(q1)}, which ran: ${denied}. The run stopped there; the restarts measured before it are kept`, timer);
    // An execution: that query, whatever the session had got to.
    const second = lineOf((l) => l === d.workload.queries[1].sql, 1);
    assert.match(end(second, '1 3') ?? '', new RegExp(`^restart 2 \\(${cell.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\): query ${JSON.stringify(q2).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} failed on the server: `), timer);
    // The session's first statements, before any query ran.
    assert.match(end(1) ?? '', new RegExp(`could not be set up for the measured session, before any query ran: ${denied.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`), timer);
  }
});

const sessionSqlLines = (d: Design, timer: 'profiling' | 'performance_schema') => {
  const { files } = compiled(d);
  return files.find((f) => f.name === `session-${timer}.sql`)!.text.split('\n');
};

test("import: the run's end waits for the host's restore; a failure's text comes back whole from base64", () => {
  const d = small();
  const fold = new JournalFold();
  const error = "ERROR 1146 (42S02) at line 7: Table 'x.lineitem' doesn't exist\nR 1 1\nD 9 1";
  const start = ['R 1001 1', `E 1002 failed query 1 ${b64(error)}`];
  const a = importLines(start.join('\n') + '\n', ctx(d, fold));
  assert.equal(a.ended, false);
  assert.equal(a.consumed, 'R 1001 1\n'.length, 'E is read again with its H');
  assert.deepEqual(a.pending, { state: 'failed', message: "Table 'x.lineitem' doesn't exist\nR 1 1\nD 9 1" }, 'how it ended, for a look before its H');
  for (const r of a.records) fold.apply(r);
  const b = importLines(`${start[1]}\nH 1003 ok\n`, ctx(d, fold));
  assert.equal(b.ended, true);
  assert.deepEqual(endOf(b.records), { state: 'failed', message: "Table 'x.lineitem' doesn't exist\nR 1 1\nD 9 1" });
  const disc = b.records.find((r) => r.t === 'restart-discarded');
  assert.equal(disc?.t === 'restart-discarded' && disc.seq, 1);
  // A finished run whose host could not be put back is a failed one, and says why.
  const c = importLines(`E 5 finished\nH 6 fail ${b64('varlab: cannot restore /sys/x')}\n`, ctx(d, new JournalFold()));
  assert.equal(endOf(c.records)?.state, 'failed');
  assert.match(endOf(c.records)?.message ?? '', /the host may not be as it was found: varlab: cannot restore \/sys\/x/);
  // A runner that is gone after its E will never write H: the end is taken, and says so.
  const g = importLines('E 5 cancelled\n', ctx(d, new JournalFold()), { runnerGone: true });
  assert.equal(g.ended, true);
  assert.match(endOf(g.records)?.message ?? '', /cancelled; run again to resume; the runner ended before it put the host back/);
});

test('import: a start failure says why in one line, as an attached run does; setup and check failures name their statement and query', () => {
  const d = small();
  const reply = "@fail exited mysqld (pid 9) exited during start-up\n@log 2024-01-01 [ERROR] /usr/sbin/mariadbd: unknown variable 'x=1'\n";
  const e = importLines(`R 1 1\nE 2 failed start 1 1 ${b64(reply)} -\nH 3 ok\n`, ctx(d, new JournalFold()));
  assert.match(endOf(e.records)?.message ?? '', /^mysqld on ssh:\/\/db did not start: \/usr\/sbin\/mariadbd: unknown variable 'x=1'/);
  const s = importLines(`E 2 failed setup 3 ${b64('ERROR 1064 (42000) at line 9: You have an error')}\nH 3 ok\n`, ctx(d, new JournalFold()));
  assert.match(endOf(s.records)?.message ?? '', /^setup script, statement 4 of \d+ failed: You have an error\n {2}INSERT INTO seq /);
  const c = importLines(`E 2 failed check ${b64(`1 ${b64("ERROR 1054 (42S22) at line 3: Unknown column 'l_x'")}\n`)}\nH 3 ok\n`, ctx(d, new JournalFold()));
  assert.equal(endOf(c.records)?.message, `a query fails on the server, so nothing was measured: query "${d.workload.queries[0].name}": Unknown column 'l_x'`);
});

test('import: a query refused while a restart measured names the query the session had got to, and the restart', () => {
  const d = small();
  d.workload.queries = quickstart().workload.queries.slice(0, 3);
  d.workload.repetitions = 5;
  const names = d.workload.queries.map((q) => q.name);
  const cell = buildPlan(d)[1].cell;
  const err = b64("ERROR 1054 (42S22) at line 40: Unknown column 'x' in 'SELECT'");
  const end = (last: string) => endOf(importLines(`R 1 2\nE 2 failed query 2 ${err} ${last}\nH 3 ok\n`, ctx(d, new JournalFold())).records)?.message;
  // No batch yet: the first query; a batch ending inside a query: that query; at its last repetition: the next.
  for (const [last, name] of [['0 0', names[0]], ['2 3', names[1]], ['2 5', names[2]]] as const) {
    assert.equal(end(last), `restart 2 (${cell}): query ${JSON.stringify(name)} failed on the server: Unknown column 'x' in 'SELECT'. The run stopped there; the restarts measured before it are kept`, last);
  }
  // A runner of before it says no query: the server's words alone.
  assert.equal(end(''), "Unknown column 'x' in 'SELECT'");
});

test('the client batch output of SHOW GLOBAL VARIABLES is read back with its escapes', () => {
  assert.deepEqual(parseVariables('Innodb_X\tON\nsql_mode\tA\\tB\\\\C\n\nbroken'), { innodb_x: 'ON', sql_mode: 'A\tB\\C' });
});
