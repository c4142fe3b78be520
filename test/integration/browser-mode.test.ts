// The browser-mode bridge: the API over a WebSocket, and the checks that keep other pages out.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import { startServer, type BrowserModeServer } from '../../src/node/transport/websocket-server.js';

let server: BrowserModeServer;
let home: string;

before(async () => {
  home = mkdtempSync(join(tmpdir(), 'varlab-home-'));
  // varlab's own state in a folder of its own: the API never reads or writes files there.
  process.env.VARLAB_HOME = join(home, 'varlab');
  server = await startServer();
});
after(async () => {
  await server.close();
  rmSync(home, { recursive: true, force: true });
});

function connect(opts: { token?: string; origin?: string; host?: string }): Promise<WebSocket> {
  const ws = new WebSocket(`ws://127.0.0.1:${server.port}/api?token=${opts.token ?? server.token}`, {
    origin: opts.origin ?? `http://127.0.0.1:${server.port}`,
    headers: opts.host ? { host: opts.host } : {},
  });
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

function call(ws: WebSocket, method: string, args: unknown): Promise<{ ok: boolean; value?: unknown; code?: string; message?: string }> {
  const id = Math.floor(Math.random() * 1e9);
  return new Promise((resolve) => {
    const onMessage = (data: Buffer) => {
      const msg = JSON.parse(String(data));
      if (msg.id === id) {
        ws.off('message', onMessage);
        resolve(msg.result);
      }
    };
    ws.on('message', onMessage);
    ws.send(JSON.stringify({ id, method, args }));
  });
}

test('the API answers over the WebSocket with the right token and origin', async () => {
  const ws = await connect({});
  const info = await call(ws, 'app.info', {});
  assert.equal(info.ok, true);
  assert.equal((info.value as { transport: string }).transport, 'websocket');
  const example = await call(ws, 'experiment.example', { name: 'quickstart' });
  assert.equal(example.ok, true);
  assert.equal((example.value as { doc: { design: { factors: unknown[] } } }).doc.design.factors.length, 4);
  ws.close();
});

test('failures come back as values naming the problem, not as dropped connections', async () => {
  const ws = await connect({});
  const bad = await call(ws, 'experiment.parse', { name: 'broken.varlab.json', text: '{"format":"varlab-experiment","version":2}' });
  assert.equal(bad.ok, false);
  assert.equal(bad.code, 'invalid-file');
  assert.match(bad.message!, /name: required but missing/);
  const unknown = await call(ws, 'shell.exec', { cmd: 'id' });
  assert.deepEqual([unknown.ok, unknown.code], [false, 'invalid-argument']);
  ws.close();
});

test('every request\'s arguments are checked against the contract before anything runs, and the refusal names the field', async () => {
  const ws = await connect({});
  const cases: [string, unknown, RegExp][] = [
    ['run.start', { path: 42 }, /^run\.start: path: .*string/],
    // A misspelt flag is refused, not ignored: `detatch` would otherwise start an attached run.
    ['run.start', { path: join(home, 'x.varlab.json'), detatch: true }, /^run\.start: .*"detatch"/],
    ['run.start', { path: join(home, 'x.varlab.json'), auth: { identity: 7 } }, /^run\.start: auth\.identity: /],
    ['run.events', { runId: 'r', afterSeq: -1 }, /^run\.events: afterSeq: /],
    ['experiment.save', { path: join(home, 'y.varlab.json'), doc: 'not a document' }, /^experiment\.save: doc: expected an experiment document/],
    ['experiment.save', { path: join(home, 'y.varlab.json'), doc: {}, choice: 'shred' }, /^experiment\.save: choice: /],
    ['sandbox.create', { target: 'local', port: 70000 }, /^sandbox\.create: port: /],
    ['export.plots', { dir: home, format: 'gif' }, /^export\.plots: format: /],
    ['prompt.answer', { id: 'p' }, /^prompt\.answer: accept: /],
  ];
  for (const [method, args, message] of cases) {
    const r = await call(ws, method, args);
    assert.deepEqual([r.ok, r.code], [false, 'invalid-argument'], `${method} ${JSON.stringify(args)}`);
    assert.match(r.message!, message, `${method} ${JSON.stringify(args)}`);
  }
  // Nothing ran: no file was written where the refused save and run pointed.
  assert.equal(existsSync(join(home, 'y.varlab.json')), false);
  assert.equal(existsSync(join(home, 'x.varlab.json.journal.jsonl')), false);
  ws.close();
});

test('saving a document that holds a password is refused and nothing is written', async () => {
  const ws = await connect({});
  const example = await call(ws, 'experiment.example', { name: 'quickstart' });
  const doc = (example.value as { doc: Record<string, any> }).doc; // eslint-disable-line @typescript-eslint/no-explicit-any
  doc.design.serverProfile = { target: 'local', kind: 'direct', mysqld: '/usr/sbin/mariadbd', datadir: '/tmp/d', socket: '/tmp/s.sock', port: 3310, user: 'root', extraArgs: [], sudo: false, password: 'hunter2' };
  const path = join(home, 'with-password.varlab.json');
  const saved = await call(ws, 'experiment.save', { path, doc });
  assert.equal(saved.code, 'secret-in-file');
  assert.match(saved.message!, /design\.serverProfile\.password/);
  assert.equal(existsSync(path), false);
  delete doc.design.serverProfile.password;
  const ok = await call(ws, 'experiment.save', { path, doc });
  assert.equal(ok.ok, true);
  assert.equal(JSON.parse(readFileSync(path, 'utf8')).design.serverProfile.user, 'root');
  ws.close();
});

test('a wrong token, a foreign origin or a foreign Host header is refused', async () => {
  await assert.rejects(connect({ token: 'not-the-token' }), /403/);
  await assert.rejects(connect({ origin: 'http://evil.example' }), /403/);
  await assert.rejects(connect({ host: `rebind.example:${server.port}` }), /403/);
});

test('static files are served only under the expected Host', async () => {
  const status = (host: string) =>
    new Promise<number>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: server.port, path: '/index.html', headers: { host } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
  assert.equal(await status(`127.0.0.1:${server.port}`), 200);
  assert.equal(await status(`attacker.example:${server.port}`), 421);
});
