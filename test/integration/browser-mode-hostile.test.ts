// The browser-mode server under hostile input, sent for real over raw TCP: a malformed URL, a reset
// connection, WebSocket frames with a reserved bit, an oversize length or invalid UTF-8, messages that
// are not requests, and a backend whose handlers throw. After each, the same server process must
// still answer: it may be running an experiment, and any web page can send the HTTP ones.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { connect as tcpConnect, type Socket } from 'node:net';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import { MAX_MESSAGE_BYTES, type Backend } from '../../src/common/api.js';
import { startServer } from '../../src/node/transport/websocket-server.js';

let child: ChildProcess;
let port = 0;
let token = '';
let home: string;
let stderr = '';

before(async () => {
  home = mkdtempSync(join(tmpdir(), 'varlab-home-'));
  // The real `npm run web` process, so "the process survives" means exactly that.
  child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts', '--web', '--no-build'], {
    env: { ...process.env, VARLAB_HOME: home },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /open (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${stderr}`)));
  });
  const u = new URL(url);
  port = Number(u.port);
  token = /token=([\w-]+)/.exec(u.hash)![1];
});

after(async () => {
  if (child.exitCode === null) {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
  rmSync(home, { recursive: true, force: true });
});

/** Send raw bytes, collect everything the server sends until it closes (or a short quiet time). */
function raw(bytes: string | Buffer, opts: { resetAfterWrite?: boolean } = {}): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const s = tcpConnect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    s.on('data', (d) => chunks.push(d));
    s.on('error', (e) => (opts.resetAfterWrite ? resolve(Buffer.concat(chunks)) : reject(e)));
    s.on('close', () => resolve(Buffer.concat(chunks)));
    s.setTimeout(3000, () => s.destroy());
    s.write(bytes, () => {
      if (opts.resetAfterWrite) s.resetAndDestroy();
    });
  });
}

const statusOf = (reply: Buffer) => Number(/^HTTP\/1\.1 (\d{3})/.exec(reply.toString('latin1'))?.[1] ?? 0);
const get = (path: string) => `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`;

/** A WebSocket opened by hand on a raw socket, so frames can be written that no client library would send. */
async function rawWebSocket(): Promise<{ socket: Socket; received: () => Buffer; closed: Promise<void> }> {
  const socket = tcpConnect(port, '127.0.0.1');
  const chunks: Buffer[] = [];
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  socket.on('error', () => {});
  socket.on('data', (d) => chunks.push(d));
  socket.write(
    `GET /api?token=${token} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nOrigin: http://127.0.0.1:${port}\r\n` +
      `Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
  );
  for (let i = 0; i < 100 && !Buffer.concat(chunks).includes('\r\n\r\n'); i++) await new Promise((r) => setTimeout(r, 20));
  const head = Buffer.concat(chunks);
  assert.equal(statusOf(head), 101, head.toString('latin1'));
  const bodyStart = head.indexOf('\r\n\r\n') + 4;
  return { socket, received: () => Buffer.concat(chunks).subarray(bodyStart), closed };
}

/** A client frame: FIN, the given first-byte flags and opcode, masked with a zero mask; `length` may lie. */
function frame(first: number, payload: Buffer, length = payload.length): Buffer {
  let header: Buffer;
  if (length < 126) header = Buffer.from([first, 0x80 | length]);
  else if (length < 65536) header = Buffer.from([first, 0x80 | 126, length >> 8, length & 255]);
  else {
    header = Buffer.alloc(10);
    header[0] = first;
    header[1] = 0x80 | 127;
    header.writeBigUInt64BE(BigInt(length), 2);
  }
  return Buffer.concat([header, Buffer.alloc(4), payload]);
}

/** The status code of the server's close frame (the first frame it sent). */
function closeCode(frames: Buffer): number {
  assert.equal(frames[0] & 0x0f, 0x8, `expected a close frame, got ${frames.toString('hex').slice(0, 40)}`);
  return frames.readUInt16BE(2);
}

function wsCall(ws: WebSocket, method: string, args: unknown): Promise<{ ok: boolean; value?: unknown; code?: string; message?: string }> {
  const id = Math.floor(Math.random() * 1e9);
  return new Promise((resolve) => {
    ws.on('message', function onMessage(data) {
      const msg = JSON.parse(String(data));
      if (msg.id !== id) return;
      ws.off('message', onMessage);
      resolve(msg.result);
    });
    ws.send(JSON.stringify({ id, method, args }));
  });
}

function openWs(p = port, t = token): Promise<WebSocket> {
  const ws = new WebSocket(`ws://127.0.0.1:${p}/api?token=${t}`, { origin: `http://127.0.0.1:${p}` });
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

/** The process is alive and both the page and the API answer. */
async function stillAnswers(): Promise<void> {
  assert.equal(child.exitCode, null, `the server process ended: ${stderr}`);
  assert.equal(statusOf(await raw(get('/index.html'))), 200);
  const ws = await openWs();
  const info = await wsCall(ws, 'app.info', {});
  assert.equal(info.ok, true);
  ws.close();
}

test('a malformed URL gets a 400 and the server keeps answering', async () => {
  assert.equal(statusOf(await raw(get('/%c0'))), 400);
  assert.equal(statusOf(await raw(get('/%'))), 400);
  assert.equal(statusOf(await raw(get('//%'))), 400);
  await stillAnswers();
});

test('a malformed URL on the WebSocket path is refused, not a crash', async () => {
  const reply = await raw(
    `GET /api%c0?token=${token} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nOrigin: http://127.0.0.1:${port}\r\n` +
      `Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
  );
  assert.equal(statusOf(reply), 403);
  await stillAnswers();
});

test('connections reset in the middle of a request or an upgrade do not end the process', async () => {
  await raw(`GET /index.html HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`, { resetAfterWrite: true });
  await raw(`GET /api?token=${token} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\n`, { resetAfterWrite: true });
  const { socket } = await rawWebSocket();
  socket.resetAndDestroy();
  await stillAnswers();
});

test('a WebSocket frame with a reserved bit set is closed with 1002 and the process keeps running', async () => {
  const ws = await rawWebSocket();
  ws.socket.write(frame(0x80 | 0x40 | 0x1, Buffer.from('{}'))); // FIN + RSV1 + text
  await ws.closed;
  assert.equal(closeCode(ws.received()), 1002);
  await stillAnswers();
});

test(`a message over the limit (${MAX_MESSAGE_BYTES / 1024 / 1024} MiB) is closed with 1009 before it is buffered, and the process keeps running`, async () => {
  for (const length of [MAX_MESSAGE_BYTES + 1, 64 * 1024 * 1024 + 1]) {
    const ws = await rawWebSocket();
    ws.socket.write(frame(0x81, Buffer.from('{"id":1,'), length));
    await ws.closed;
    assert.equal(closeCode(ws.received()), 1009);
  }
  // Fragments that add up to more than the limit are refused the same way.
  const ws = await rawWebSocket();
  const piece = Buffer.alloc(MAX_MESSAGE_BYTES / 2 + 1, 0x20);
  ws.socket.write(frame(0x01, piece)); // text, not FIN
  ws.socket.write(frame(0x00, piece)); // continuation, not FIN
  await ws.closed;
  assert.equal(closeCode(ws.received()), 1009);
  await stillAnswers();
});

test('a large request within the limit is still answered', async () => {
  const ws = await openWs();
  const text = JSON.stringify({ format: 'varlab-experiment', version: 2, name: 'big', description: 'x'.repeat(4 * 1024 * 1024) });
  const r = await wsCall(ws, 'experiment.parse', { name: 'big.varlab.json', text });
  assert.equal(r.ok, false);
  assert.equal(r.code, 'invalid-file');
  ws.close();
});

test('invalid UTF-8 and messages that are not requests are dropped or answered, never a crash', async () => {
  const bad = await rawWebSocket();
  bad.socket.write(frame(0x81, Buffer.from([0xc0, 0xaf])));
  await bad.closed;
  assert.equal(closeCode(bad.received()), 1007);

  const ws = await openWs();
  for (const text of ['null', '[]', '1', '"x"', '{"id":null}', '{"id":1}', '{"id":2,"method":{"a":1}}', '{"id":3,"method":"app.info","args":null}', '{"__proto__":{"id":4}}'])
    ws.send(text);
  const answers: { id: number; result: { ok: boolean; code?: string } }[] = [];
  await new Promise<void>((resolve) => {
    ws.on('message', (d) => {
      answers.push(JSON.parse(String(d)));
      if (answers.length === 3) resolve();
    });
  });
  answers.sort((a, b) => a.id - b.id);
  assert.deepEqual(
    answers.map((a) => [a.id, a.result.ok, a.result.code]),
    [
      [1, false, 'invalid-argument'],
      [2, false, 'invalid-argument'],
      [3, true, undefined],
    ],
  );
  ws.close();
  await stillAnswers();
});

test('a backend that throws, rejects or answers with something unencodable never ends the process', async () => {
  const listeners: ((p: unknown) => void)[] = [];
  const backend: Backend = {
    call(method) {
      if (method === 'app.info') throw new Error('thrown synchronously');
      if (method === 'experiment.recent') return Promise.reject('rejected with a string');
      if (method === 'run.status') return Promise.resolve({ ok: true, value: { size: 10n } } as never);
      if (method === 'local.readiness') {
        for (const l of listeners) l({ cyclic: 10n }); // an event that cannot be encoded
        return Promise.resolve({ ok: true, value: 'still here' } as never);
      }
      return Promise.resolve({ ok: false, code: 'unsupported', message: 'no' });
    },
    on(_event, listener) {
      listeners.push(listener as (p: unknown) => void);
      return () => {};
    },
  };
  const server = await startServer({ backend });
  try {
    const ws = await openWs(server.port, server.token);
    assert.deepEqual(await wsCall(ws, 'app.info', {}), { ok: false, code: 'internal', message: 'thrown synchronously' });
    assert.deepEqual(await wsCall(ws, 'experiment.recent', {}), { ok: false, code: 'internal', message: 'rejected with a string' });
    const unencodable = await wsCall(ws, 'run.status', {});
    assert.equal(unencodable.code, 'internal');
    assert.match(unencodable.message!, /could not be encoded.*BigInt/);
    assert.deepEqual(await wsCall(ws, 'local.readiness', {}), { ok: true, value: 'still here' });
    ws.close();
  } finally {
    await server.close();
  }
});
