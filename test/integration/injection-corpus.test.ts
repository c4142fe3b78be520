// The hostile corpus (issue 13.7): injection attempts in every field of an experiment file, a server
// profile, the command line and the host paths that reaches a shell, a server option or a query, run
// for real against the sandbox sshd and a mariadbd. Every payload would create a marker file (`hit-…`)
// if it got through; none may ever appear.
//
// - Refused before anything runs: one `varlab validate` over a file per (field, payload): exit 2, and
//   the field's JSON path named. Command-line options and a registered profile: exit 2 naming them.
// - Accepted, because the field may hold any text (the file's path and name, query names, SQL, the
//   command line the user consented to, host paths): run for real, attached (`varlab run`) and
//   detached (runner.sh on the target, with host paths full of shell syntax), and the dry run's
//   output is printed with control characters made visible.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Design, ExperimentDoc, ServerProfile } from '../../src/common/experiment/types.js';
import { buildPlan } from '../../src/common/plan.js';
import { headerRecord, journalPath } from '../../src/node/engine/journal.js';
import { JournalFold } from '../../src/common/records.js';
import { cleanupTargetRun, launchDetached, pullTargetJournal } from '../../src/node/detach/target.js';
import { createServerControl, openTarget, type TargetSession } from '../../src/node/host/index.js';
import { hostPaths, type HostPaths } from '../../src/node/host/script.js';
import { checkRunId } from '../../src/node/detach/runner.js';
import { unitName } from '../../src/node/detach/supervisor.js';
import { startSshd, type Sshd } from '../../scripts/testenv/sshd.js';
import { CLI } from '../fixtures/cli.js';

// A short marker folder: the sandbox's socket path (≤ 107 bytes) holds it twice.
const M = mkdtempSync('/tmp/v');
// mysqld (user mysql) could write here too: nothing may. Sticky, like /tmp: a folder that anyone may
// rename things in is refused as a place for a detached run's directory (run_dir_safe).
chmodSync(M, 0o1777);
const home = join(M, 'home');
mkdirSync(home);
let sshd: Sshd;
let profile: ServerProfile;
let authArgs: string[];

/** Every marker that appeared: must stay empty. */
function markers(): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      // Markers are named `hit-…`; a shell that ran a payload would create one (or an empty name after a cut).
      else if (e.name.startsWith('hit-')) out.push(join(d, e.name));
    }
  };
  walk(M);
  return out;
}

function varlab(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [...CLI, ...args], { env: { ...process.env, VARLAB_HOME: home }, maxBuffer: 64 << 20, timeout: 600_000 }, (e, stdout, stderr) => {
      resolve({ code: e ? ((e as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** The ways a value has been made to run a command: each creates marker `f` if a shell ran it. */
const PAYLOADS: { name: string; text: (f: string) => string; alone?: boolean }[] = [
  { name: 'semicolon', text: (f) => `;touch ${f}` },
  { name: 'command substitution', text: (f) => `$(touch ${f})` },
  { name: 'backticks', text: (f) => `\`touch ${f}\`` },
  { name: 'newline', text: (f) => `\ntouch ${f}\n` },
  { name: 'single quote broken', text: (f) => `';touch ${f};'` },
  { name: 'double quote broken', text: (f) => `";touch ${f};"` },
  { name: 'pipe and redirection', text: (f) => `|tee ${f}>${f}` },
  { name: 'and-list, no spaces', text: (f) => `&&touch\${IFS}${f}` },
  { name: 'NUL', text: (f) => `\u0000;touch ${f}` },
  { name: 'escape sequence and carriage return', text: (f) => `\u001b[2K\r;touch ${f}` },
  { name: 'unicode look-alikes (fullwidth ; $ ( ))', text: (f) => `；touch ${f}＄（touch ${f}）` },
  { name: 'option injection (mysqld)', text: (f) => `--init-file=${f}`, alone: true },
  { name: 'option injection (ssh)', text: (f) => `-oProxyCommand=touch ${f}`, alone: true },
];

const quickstart = (): ExperimentDoc => JSON.parse(readFileSync('examples/quickstart.varlab.json', 'utf8'));

const fileProfile = (): ServerProfile => ({
  target: 'local',
  kind: 'direct',
  mysqld: '/usr/sbin/mariadbd',
  datadir: '/var/lib/mysql',
  socket: '/run/mysqld/mysqld.sock',
  port: 3306,
  osUser: 'mysql',
  user: 'root',
  errorLog: '/var/log/mysql/error.log',
  pidFile: '/run/mysqld/mysqld.pid',
  defaultsFile: '/etc/mysql/my.cnf',
  extraArgs: ['--skip-log-bin'],
  sudo: false,
});

/** Fields a file holds that reach a shell, a server option or a query: where the value goes, and the path the refusal must name. */
const FIELDS: { path: string; base: string; set: (d: Design, v: string) => void; skip?: string[] }[] = [
  { path: 'design.target', base: 'local', set: (d, v) => (d.target = v) },
  { path: 'design.serverProfile.target', base: 'local', set: (d, v) => (d.serverProfile!.target = v) },
  { path: 'design.targets[1]', base: 'ssh://db2', set: (d, v) => (d.targets = [d.target, v]) },
  { path: 'design.factors[0].levels[2]', base: 'on', set: (d, v) => d.factors[0].levels.push(v) },
  { path: 'design.factors[3].levels[2]', base: 'bind:0', set: (d, v) => d.factors[3].levels.push(v) },
  { path: 'design.factors[4].levels[0]', base: '0-1', set: (d, v) => d.factors.push({ tunable: 'cpubind', levels: [v] }) },
  { path: 'design.factors[4].levels[0]', base: '128M', set: (d, v) => d.factors.push({ tunable: 'variable', name: 'innodb_buffer_pool_size', levels: [v] }) },
  { path: 'design.factors[4].name', base: 'innodb_old_blocks_time', set: (d, v) => d.factors.push({ tunable: 'variable', name: v, levels: ['1000'] }) },
  { path: 'design.factors[4].levels[0]', base: 'performance', set: (d, v) => d.factors.push({ tunable: 'governor', levels: [v] }) },
  { path: 'design.factors[4].levels[0]', base: 'never', set: (d, v) => d.factors.push({ tunable: 'thp', levels: [v] }) },
  { path: 'design.factors[4].levels[0]', base: 'jemalloc', set: (d, v) => d.factors.push({ tunable: 'allocator', levels: [v] }) },
  { path: 'design.factors[4].tunable', base: 'dropcaches', set: (d, v) => d.factors.push({ tunable: v, levels: ['on'] }) },
  { path: 'design.excludedCells[0]', base: 'aslr=on,ahi=on,preload=off,numa=default', set: (d, v) => d.excludedCells.push(v) },
  { path: 'design.workload.database', base: 'varlab_quickstart', set: (d, v) => (d.workload.database = v) },
  { path: 'design.workload.setupSkipIfTable', base: 'lineitem', set: (d, v) => (d.workload.setupSkipIfTable = v) },
  ...(['mysqld', 'datadir', 'socket', 'errorLog', 'pidFile', 'defaultsFile', 'osUser', 'user'] as const).map((k) => ({
    path: `design.serverProfile.${k}`,
    base: fileProfile()[k]!,
    set: (d: Design, v: string) => ((d.serverProfile as unknown as Record<string, string>)[k] = v),
  })),
  // A whole `--option` is a server option of the profile: allowed by the schema, listed for consent (issue 13.1), not refused here.
  { path: 'design.serverProfile.extraArgs[0]', base: '--skip-log-bin', set: (d, v) => (d.serverProfile!.extraArgs[0] = v), skip: ['option injection (mysqld)'] },
  {
    path: 'design.serverProfile.service',
    base: 'mariadb',
    set: (d, v) => {
      d.serverProfile!.kind = 'systemd';
      d.serverProfile!.service = v;
    },
  },
];

before(async () => {
  sshd = await startSshd();
  authArgs = ['--identity', sshd.keyFile, '--known-hosts', sshd.knownHostsFile];
});

after(async () => {
  if (profile?.pidFile && existsSync(profile.pidFile)) {
    const pid = Number(readFileSync(profile.pidFile, 'utf8').trim());
    try {
      if (pid > 0) process.kill(pid, 'SIGTERM');
    } catch {
      /* gone */
    }
    for (let i = 0; i < 300 && existsSync(profile.pidFile); i++) await new Promise((r) => setTimeout(r, 100));
  }
  await sshd?.stop();
  rmSync(M, { recursive: true, force: true });
});

test('every field that reaches a shell, an option or a query refuses every payload: one validate, exit 2, the field named', { timeout: 300_000 }, async () => {
  const dir = join(M, 'refused');
  mkdirSync(dir);
  const cases: { file: string; path: string; payload: string }[] = [];
  FIELDS.forEach((field, i) =>
    PAYLOADS.forEach((p, j) => {
      if (field.skip?.includes(p.name)) return;
      const doc = quickstart();
      doc.design.serverProfile = fileProfile();
      const text = p.text(join(M, `hit-${i}-${j}`));
      field.set(doc.design, p.alone ? text : field.base + text);
      const file = join(dir, `f${i}-${j}.varlab.json`);
      writeFileSync(file, JSON.stringify(doc));
      cases.push({ file, path: field.path, payload: p.name });
    }),
  );
  // Option injection through a valid name: a variable factor that would change who mysqld runs as, who
  // gets in or which files it reads or writes (init_file could run SQL that writes a marker).
  for (const name of ['init_file', 'plugin_load_add', 'user', 'skip_grant_tables', 'secure_file_priv', 'general_log_file', 'bind_address', 'port', 'socket', 'datadir']) {
    const doc = quickstart();
    doc.design.factors.push({ tunable: 'variable', name, levels: ['x'] });
    const file = join(dir, `v-${name}.varlab.json`);
    writeFileSync(file, JSON.stringify(doc));
    cases.push({ file, path: 'design.factors[4].name', payload: `variable ${name}` });
  }
  // The unchanged base is valid: each refusal below is the payload's doing.
  const base = quickstart();
  base.design.serverProfile = fileProfile();
  writeFileSync(join(dir, 'base.varlab.json'), JSON.stringify(base));

  const r = await varlab(['validate', join(dir, 'base.varlab.json'), ...cases.map((c) => c.file)]);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stdout, /base\.varlab\.json: valid/);
  const lines = r.stderr.split('\n');
  const missed = cases.filter((c) => !lines.some((l) => l.startsWith(`${c.file}: ${c.path}:`)));
  assert.deepEqual(
    missed.map((c) => `${c.path} accepted ${c.payload}`),
    [],
    r.stderr.slice(0, 4000),
  );
  // What validate prints is escaped: no payload's control characters reach the terminal.
  assert.doesNotMatch(r.stderr, /[\u0000\u001b\r]/);
  assert.ok(cases.length >= 250, `${cases.length} cases`);
  assert.deepEqual(markers(), []);
});

test('command-line options carrying payloads are refused before anything connects: exit 2 naming the option', { timeout: 300_000 }, async () => {
  const file = join(M, 'options.varlab.json');
  writeFileSync(file, JSON.stringify(quickstart()));
  const hit = (n: string) => join(M, `hit-opt-${n}`);
  const attempts: { args: string[]; names: RegExp }[] = [
    // Refused as host names, not looked up ("no server profile for local;touch …" once named it back in a hint).
    { args: ['run', file, '--target', `local;touch ${hit('a')}`], names: /^varlab run: --target: the host name "local;touch / },
    { args: ['run', file, '--target', `ssh://root@127.0.0.1:${sshd.port}$(touch ${hit('b')})`], names: /^varlab run: --target: expected \[user@\]host\[:port\]/ },
    { args: ['run', file, '--restarts', `1;touch ${hit('c')}`], names: /--restarts/ },
    { args: ['probe', '--', `-oProxyCommand=touch ${hit('d')}`], names: /target/ },
    { args: ['sandbox', 'create', 'local', '--set-option', `innodb_flush_method=O_DIRECT;touch ${hit('e')}`], names: /server option/ },
    { args: ['sandbox', 'create', 'local', '--set-option', `init_file$(touch ${hit('f')})=x`], names: /server option/ },
    { args: ['sandbox', 'create', 'local', '--buffer-pool', `1G\`touch ${hit('g')}\``], names: /--buffer-pool/ },
    { args: ['sandbox', 'create', 'local', '--dir', `tmp;touch ${hit('h')}`], names: /--dir/ },
    { args: ['sandbox', 'create', 'local', '--dir', `${M}/$(touch\${IFS}${hit('l')});'\`"`], names: /--dir: expected an absolute path of letters/ },
    { args: ['sandbox', 'start', 'local', '--set', 'aslr=on'], names: /server profile datadir: expected an absolute path of letters/ },
    { args: ['sandbox', 'create', 'local', '--mysqld', `/usr/sbin/mariadbd\ntouch ${hit('i')}`], names: /--mysqld/ },
    { args: ['sandbox', 'start', 'local', '--set', `numa=bind:0;touch ${hit('j')}`], names: /factor numa/ },
    { args: ['sandbox', 'start', 'local', '--set', `cpubind=0 --membind=0`], names: /factor cpubind/ },
    { args: ['sandbox', 'start', 'local', '--set', `innodb_io_capacity=200$(touch ${hit('k')})`], names: /factor innodb_io_capacity/ },
  ];
  // A registered profile edited by hand: its paths are held to the file's rules before any script is made.
  writeFileSync(join(home, 'profiles.json'), JSON.stringify({ local: { kind: 'direct', mysqld: '/usr/sbin/mariadbd', datadir: `/srv/$(touch ${hit('m')})`, socket: '/tmp/s.sock', port: 3399, user: 'root', extraArgs: [], sudo: false } }));
  for (const a of attempts) {
    const r = await varlab(a.args);
    assert.equal(r.code, 2, `${a.args.join(' ')}: exit ${r.code}\n${r.stderr}`);
    assert.match(r.stderr, a.names, `${a.args.join(' ')}: ${r.stderr}`);
  }
  assert.deepEqual(markers(), []);
});

test('run ids and host paths with payloads are refused before a script is made', () => {
  PAYLOADS.forEach((p, j) => {
    const text = p.text(join(M, `hit-id-${j}`));
    // A run id names the run's directory and its systemd unit (varlab-<id>).
    assert.throws(() => checkRunId(p.alone ? text : randomUUID() + text), /run id/, p.name);
    assert.throws(() => unitName(`${randomUUID()}${text}`), /run id/, p.name);
  });
  // Host paths may hold shell syntax (quoted, as the detached test below shows), never control characters or `..`.
  for (const bad of ['sys\n', '/sys\n/x', '/sys/\u0000', '/sys/../etc', 'relative/sys']) {
    assert.throws(() => hostPaths({ sys: bad }), /host path sys/, JSON.stringify(bad));
  }
  assert.deepEqual(markers(), []);
});

const cmdLine = `printf '%s\\n' 7 {socket} {port} {database} # \u001b[2K\r`;
let sessionFile: string;

test('the sandbox the runs below use, made for real over SSH', { timeout: 300_000 }, async () => {
  const r = await varlab(['sandbox', 'create', sshd.target, ...authArgs, '--dir', M, '--json']);
  assert.equal(r.code, 0, r.stderr);
  profile = JSON.parse(r.stdout) as ServerProfile;
  assert.deepEqual(markers(), []);
});

/** An experiment file in a folder and under a name that are shell syntax, with hostile names and SQL. */
function hostileFile(name: string, edit: (doc: ExperimentDoc) => void): string {
  const doc = quickstart();
  const h = (n: string) => `${M}/hit-${name}-${n}`;
  doc.name = `$(touch ${h('n1')}) \`touch ${h('n2')}\` ';touch ${h('n3')};' \u001b[2J\r`;
  doc.description = `"; touch ${h('d1')}; " \n touch ${h('d2')}`;
  doc.design.target = sshd.target;
  doc.design.factors = [{ tunable: 'aslr', levels: ['on', 'off'] }];
  doc.design.restartsPerCell = 1;
  doc.design.idleSeconds = 0;
  doc.design.workload.database = 'vl_inj';
  doc.design.workload.setupSkipIfTable = 't';
  doc.design.workload.setupSql = [
    `CREATE TABLE t (a INT PRIMARY KEY, b VARCHAR(200)) ENGINE=InnoDB;`,
    `INSERT INTO t VALUES (1, '$(touch ${h('s1')})'), (2, '\`touch ${h('s2')}\`'), (3, ';touch ${h('s3')}');`,
    `-- ;touch ${h('s4')}`,
    `/* \n\\! touch ${h('s5')}\n*/ INSERT INTO t VALUES (4, 'x');`,
  ].join('\n');
  doc.design.workload.queries = [
    { name: `q1 $(touch ${h('q1')})`, sql: `SELECT b FROM t WHERE b <> '$(touch ${h('q2')})' /* \`touch ${h('q3')}\` */` },
    { name: `q2 \`touch ${h('q4')}\`;touch ${h('q5')} \u001b[31m\r`, sql: `SELECT COUNT(*) FROM t -- ;touch ${h('q6')}\n` },
    { name: `q3 '";|&<>`, sql: `SELECT '\n\\! touch ${h('q7')}\nsystem touch ${h('q8')}\n' AS x` },
  ];
  doc.design.workload.repetitions = 2;
  doc.design.workload.warmup = 0;
  edit(doc);
  const folder = `${M}/e$(touch\${IFS}${h('p1')})\`touch ${h('p2')}\`'`;
  mkdirSync(folder, { recursive: true });
  const file = `${folder}/x;$(id)\`id\`'" |&.varlab.json`;
  writeFileSync(file, JSON.stringify(doc, null, 2));
  return file;
}

test('an experiment whose path, name, query names and SQL are payloads runs to the end on that sandbox: no marker', { timeout: 600_000 }, async () => {
  assert.ok(profile, 'the sandbox was made');
  sessionFile = hostileFile('run', () => {});
  const v = await varlab(['validate', sessionFile]);
  assert.equal(v.code, 0, v.stderr);
  const r = await varlab(['run', sessionFile, ...authArgs, '--trust']);
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /[\u001b\r]/, 'names from the file are printed escaped');
  const saved = JSON.parse(readFileSync(sessionFile, 'utf8')) as ExperimentDoc;
  assert.equal(saved.results?.restarts.length, 2);
  // The names came back as they were: measured, not run.
  assert.deepEqual([...new Set(saved.results!.restarts.flatMap((x) => x.queries.map((q) => q.query)))], saved.design.workload.queries.map((q) => q.name));
  assert.deepEqual(markers(), []);
});

test('a command workload whose line hides an escape sequence: the dry run and the consent show it escaped; it runs with {socket} quoted: no marker', { timeout: 600_000 }, async () => {
  assert.ok(profile, 'the sandbox was made');
  const file = hostileFile('cmd', (doc) => {
    doc.design.factors = [{ tunable: 'aslr', levels: ['on'] }];
    doc.design.workload.kind = 'command';
    doc.design.workload.queries = [];
    doc.design.workload.setupSql = '';
    doc.design.workload.command = { line: cmdLine, parser: 'regex', regex: '^(\\d+)$', metric: 'n', unit: 'n', higherIsBetter: true };
  });
  const dry = await varlab(['run', file, ...authArgs, '--dry-run']);
  assert.equal(dry.code, 0, dry.stderr);
  assert.doesNotMatch(dry.stdout, /[\u001b\r]/);
  assert.ok(dry.stdout.includes('\\u001b[2K\\u000d'), 'the command line is shown with its control characters made visible');
  const r = await varlab(['run', file, ...authArgs, '--trust']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /\\u001b\[2K\\u000d/, 'the consent lists the command with its control characters visible');
  const saved = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
  assert.deepEqual(saved.results?.restarts[0].queries[0].values, [7, 7]);
  assert.deepEqual(markers(), []);
});

/** Launch a detached run and read its journal until it ended; the run's end record. */
async function detached(session: TargetSession, design: Design, paths: HostPaths): Promise<{ state: string; message?: string }> {
  const control = createServerControl(session, profile, { paths });
  const host = await control.host();
  const plan = buildPlan(design);
  const launched = await launchDetached({ runId: randomUUID(), design, profile, session, control, paths, restarts: plan });
  const fold = new JournalFold();
  let offset = 0;
  for (const until = Date.now() + 300_000; Date.now() < until; await new Promise((res) => setTimeout(res, 300))) {
    const got = await pullTargetJournal(session, launched.dir, false, offset, { design, plan, profile, host, target: sshd.target, open: fold.state().interrupted.map((i) => i.seq), timer: fold.state().timer?.source });
    offset = got.offset;
    for (const rec of got.records) {
      fold.apply(rec);
      if (rec.t === 'run-finished') {
        await cleanupTargetRun(session, launched.dir, false);
        return { state: rec.state, message: rec.message };
      }
    }
    if (got.state !== 'running' && !got.records.length) throw new Error(`the runner ended without finishing: ${readFileSync(join(launched.dir, 'runner.log'), 'utf8')}`);
  }
  throw new Error('the detached run did not end in time');
}

test('the detached runner (runner.sh) with the same payloads, host paths that are shell syntax, and client commands in the setup: no marker', { timeout: 600_000 }, async () => {
  assert.ok(profile, 'the sandbox was made');
  const root = `${M}/h$(touch\${IFS}${M}/hit-hp1)\`touch ${M}/hit-hp2\`';[*]`;
  const paths: HostPaths = { sys: `${root}/sys`, procSys: `${root}/procsys`, records: `${root}/records` };
  mkdirSync(join(paths.sys, 'kernel/mm/transparent_hugepage'), { recursive: true });
  mkdirSync(join(paths.procSys, 'kernel'), { recursive: true });
  mkdirSync(paths.records, { mode: 0o755 });
  writeFileSync(join(paths.sys, 'kernel/mm/transparent_hugepage/enabled'), 'always [madvise] never\n');
  writeFileSync(join(paths.procSys, 'kernel/randomize_va_space'), '2\n');
  const session = await openTarget(sshd.target, { auth: { identity: sshd.keyFile, knownHosts: sshd.knownHostsFile }, prompt: async () => ({ accept: false }), paths });
  try {
    const doc = JSON.parse(readFileSync(sessionFile ?? hostileFile('det', () => {}), 'utf8')) as ExperimentDoc;
    const design = doc.design;
    design.factors = [
      { tunable: 'aslr', levels: ['on', 'off'] },
      { tunable: 'thp', levels: ['never'] },
    ];
    const ok = await detached(session, design, paths);
    assert.equal(ok.state, 'finished', ok.message);
    assert.equal(readFileSync(join(paths.sys, 'kernel/mm/transparent_hugepage/enabled'), 'utf8').trim(), 'madvise', 'the runner put THP back through the shell-syntax path');

    // The mysql client on the target reads the setup script: its own commands (\! and system run a
    // shell) are not obeyed (--binary-mode); the server refuses them as SQL and the run fails there.
    design.workload.setupSkipIfTable = undefined;
    design.workload.setupSql = `SELECT 1;\n\\! touch ${M}/hit-c1;\nsystem touch ${M}/hit-c2;\nSELECT 2;`;
    const bad = await detached(session, design, paths);
    assert.equal(bad.state, 'failed');
    assert.match(bad.message ?? '', /setup|SQL syntax/i);
  } finally {
    await session.close();
  }
  assert.deepEqual(markers(), []);
});

test("a journal shipped beside a file names another folder as its detached run's: attach, status, cancel and run refuse it, the folder stays", { timeout: 300_000 }, async () => {
  // The folder a hostile teammate would have removed: it even holds a runner.sh, as cleanup checks.
  const victim = join(M, 'victim');
  mkdirSync(victim);
  writeFileSync(join(victim, 'runner.sh'), '#!/bin/sh\n');
  writeFileSync(join(victim, 'journal'), '');
  const doc = quickstart();
  doc.design.target = sshd.target;
  doc.design.serverProfile = { ...fileProfile(), target: sshd.target };
  const file = join(M, 'shipped.varlab.json');
  writeFileSync(file, JSON.stringify(doc));
  const runId = randomUUID();
  const probed = await varlab(['probe', sshd.target, ...authArgs, '--json']);
  assert.equal(probed.code, 0, probed.stderr);
  const records = [
    headerRecord(doc.design),
    { t: 'host', at: Date.now(), host: JSON.parse(probed.stdout) },
    { t: 'detached', at: Date.now(), runId, target: sshd.target, auth: { identity: sshd.keyFile, knownHosts: sshd.knownHostsFile }, dir: victim, supervisor: 'setsid' },
  ];
  writeFileSync(journalPath(file), records.map((r) => JSON.stringify(r) + '\n').join(''));
  for (const command of ['attach', 'status', 'cancel', 'run']) {
    const r = await varlab([command, file]);
    assert.equal(r.code, 2, `${command}: exit ${r.code}\n${r.stderr}`);
    assert.match(r.stderr, /the detached run's directory ".*victim" is not one varlab makes/, `${command}: ${r.stderr}`);
  }
  assert.ok(existsSync(join(victim, 'runner.sh')), 'the folder is still there');
  assert.deepEqual(markers(), []);
});


test("a shipped journal whose run directory goes through a symlink and whose key and known_hosts are /dev/zero and a payload: status, attach and cancel refuse it, read nothing it names, run nothing there", { timeout: 300_000 }, async () => {
  // The run's directory is a planted folder's runs/RUN_ID, runs/ a link to a folder of runs whose
  // runner.sh would leave a marker if anything ran it (the end of a runner found gone runs it).
  const runId = randomUUID();
  const runs = join(M, 'linked-runs');
  mkdirSync(join(runs, runId), { recursive: true });
  writeFileSync(join(runs, runId, 'runner.sh'), `#!/bin/sh\ntouch ${M}/hit-runner-$1\ngone() {\n:\n}\n`);
  writeFileSync(join(runs, runId, 'journal'), 'V 1 x 0 1\n');
  writeFileSync(join(runs, runId, 'pid'), '1\n');
  const planted = join(M, 'planted', 'mysqld-3306-0123456789');
  mkdirSync(planted, { recursive: true });
  symlinkSync(runs, join(planted, 'runs'));
  const doc = quickstart();
  doc.design.target = sshd.target;
  doc.design.serverProfile = { ...fileProfile(), target: sshd.target };
  const file = join(M, 'linked.varlab.json');
  writeFileSync(file, JSON.stringify(doc));
  const probed = await varlab(['probe', sshd.target, ...authArgs, '--json']);
  assert.equal(probed.code, 0, probed.stderr);
  const records = [
    headerRecord(doc.design),
    { t: 'host', at: Date.now(), host: JSON.parse(probed.stdout) },
    { t: 'detached', at: Date.now(), runId, target: sshd.target, auth: { identity: '/dev/zero', knownHosts: `$(touch ${M}/hit-known-hosts)` }, dir: join(planted, 'runs', runId), supervisor: 'setsid' },
  ];
  writeFileSync(journalPath(file), records.map((r) => JSON.stringify(r) + '\n').join(''));
  for (const command of ['status', 'attach', 'cancel']) {
    const r = await varlab([command, file, ...authArgs]);
    assert.equal(r.code, 1, `${command}: exit ${r.code}\n${r.stderr}`);
    assert.match(r.stderr, /refusing .*linked-runs|refusing .*: its real path is .* \(a symbolic link on the way\)/, `${command}: ${r.stderr}`);
  }
  assert.ok(existsSync(join(runs, runId, 'runner.sh')), 'the folder is still there');
  assert.deepEqual(markers(), []);
});
