// Browser mode: serves the UI from public/ and carries the API contract over a WebSocket (the
// counterpart of the Electron IPC adapter in electron/main.ts; started by scripts/start.ts).
// Bound to 127.0.0.1 only, on a random port, with a per-launch token; the Host header of every
// request and the Origin of the WebSocket are checked, so another site or a DNS-rebinding page
// in the same browser cannot drive the backend.
// Hostile input never ends the process (it may be running an experiment): a malformed URL gets a
// 400, every socket has an error handler, a message is at most MAX_MESSAGE_BYTES, and a handler
// that throws or a reply that cannot be encoded is answered as an `internal` failure.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { EVENTS, MAX_MESSAGE_BYTES, isMethod, type Backend, type Result } from '../../common/api.js';
import { createBackend } from '../backend.js';
import { publicDir as packagePublicDir } from '../export/static.js';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.woff2': 'font/woff2',
};

export interface BrowserModeServer {
  url: string;
  port: number;
  token: string;
  backend: Backend;
  /** Stop serving, then dispose of the backend (every run cancelled, every host restored): returns what that did. */
  close(): Promise<string>;
}

export interface ServerOptions {
  port?: number;
  publicDir?: string;
  backend?: Backend & { dispose?(): Promise<string | void>; clientGone?(clientId: string): void };
}

function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** A request's decoded path and query, or null when it is not a valid URL (`/%c0`): answered 400. */
function parseTarget(url: string | undefined): { path: string; query: URLSearchParams } | null {
  try {
    const u = new URL(url ?? '/', 'http://x');
    return { path: decodeURIComponent(u.pathname), query: u.searchParams };
  } catch {
    return null;
  }
}

function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function logError(where: string, e: unknown): void {
  console.error(`varlab browser mode: ${where}: ${errorMessage(e)}`);
}

export async function startServer(opts: ServerOptions = {}): Promise<BrowserModeServer> {
  const publicDir = resolve(opts.publicDir ?? packagePublicDir());
  const backend = opts.backend ?? createBackend({ transport: 'websocket' });
  const token = randomBytes(24).toString('base64url');
  let port = 0;
  const allowedHosts = () => [`127.0.0.1:${port}`, `localhost:${port}`];
  const hostOk = (req: IncomingMessage) => allowedHosts().includes(req.headers.host ?? '');

  async function serveFile(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!hostOk(req)) {
      res.writeHead(421, { 'content-type': 'text/plain' }).end('wrong host');
      return;
    }
    const target = parseTarget(req.url);
    if (!target) {
      res.writeHead(400, { 'content-type': 'text/plain' }).end('bad request');
      return;
    }
    const file = normalize(join(publicDir, target.path === '/' ? 'index.html' : target.path));
    if (!file.startsWith(publicDir + sep)) {
      res.writeHead(403).end();
      return;
    }
    try {
      const body = await readFile(file);
      res.writeHead(200, {
        'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
        'x-content-type-options': 'nosniff',
        'cache-control': 'no-store',
        'referrer-policy': 'no-referrer',
        // frame-ancestors only works as a header (a <meta> CSP ignores it): no other page may frame the app.
        'content-security-policy': "frame-ancestors 'none'",
        'x-frame-options': 'DENY',
      });
      res.end(body);
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    }
  }

  const http = createServer((req, res) => {
    serveFile(req, res).catch((e) => {
      logError('request', e);
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' }).end('internal error');
      else res.destroy();
    });
  });
  // After listen, an accept failure (EMFILE...) is reported on the server: log it, keep serving.
  http.on('error', (e) => logError('server', e));

  const wss = new WebSocketServer({
    noServer: true,
    // ws buffers a whole message before it is parsed: this bounds the memory one message can take.
    maxPayload: MAX_MESSAGE_BYTES,
  });
  const sockets = new Set<WebSocket>();
  const clients = new WeakMap<WebSocket, string>();

  http.on('upgrade', (req, socket, head) => {
    // Node removes its own error handler from an upgraded socket: without one, a reset kills the process.
    socket.on('error', () => socket.destroy());
    const target = parseTarget(req.url);
    const origin = req.headers.origin ?? '';
    const originOk = allowedHosts().some((h) => origin === `http://${h}`);
    if (target?.path !== '/api' || !hostOk(req) || !originOk || !sameToken(target.query.get('token') ?? '', token)) {
      socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      const clientId = randomUUID();
      sockets.add(ws);
      clients.set(ws, clientId);
      ws.on('close', () => {
        sockets.delete(ws);
        backend.clientGone?.(clientId);
      });
      // A bad frame (a reserved bit, an oversize message, invalid UTF-8) is an 'error' on the socket:
      // ws has already closed it with the right status; without this listener it would end the process.
      ws.on('error', (e) => logError('websocket', e));
      ws.on('message', (data) => {
        answer(ws, data, clientId).catch((e) => logError('websocket message', e));
      });
    });
  });

  async function answer(ws: WebSocket, data: RawData, clientId: string): Promise<void> {
    let msg: unknown;
    try {
      msg = JSON.parse(String(data));
    } catch {
      return;
    }
    if (!msg || typeof msg !== 'object') return;
    const { id, method, args } = msg as { id?: unknown; method?: unknown; args?: unknown };
    if (typeof id !== 'number') return;
    let result: Result<unknown>;
    if (!isMethod(method)) {
      result = { ok: false, code: 'invalid-argument', message: `unknown method ${String(JSON.stringify(method)).slice(0, 100)}` };
    } else {
      try {
        result = await backend.call(method, (args && typeof args === 'object' ? args : {}) as never, { clientId });
      } catch (e) {
        result = { ok: false, code: 'internal', message: errorMessage(e) };
      }
    }
    if (ws.readyState !== ws.OPEN) return;
    let text: string;
    try {
      text = JSON.stringify({ id, result });
    } catch (e) {
      text = JSON.stringify({ id, result: { ok: false, code: 'internal', message: `the answer could not be encoded: ${errorMessage(e)}` } });
    }
    ws.send(text);
  }

  const unsubscribe = EVENTS.map((event) =>
    backend.on(event, (payload, to) => {
      // Events are emitted from inside a run: a payload that cannot be sent must not stop the run.
      try {
        const text = JSON.stringify({ event, payload });
        // A question asked for one page's request goes to that page only.
        for (const ws of sockets) if (ws.readyState === ws.OPEN && (to === undefined || clients.get(ws) === to)) ws.send(text);
      } catch (e) {
        logError(`event ${event}`, e);
      }
    }),
  );

  await new Promise<void>((ok, fail) => {
    http.once('error', fail);
    http.listen(opts.port ?? 0, '127.0.0.1', () => ok());
  });
  const address = http.address();
  port = typeof address === 'object' && address ? address.port : 0;

  return {
    url: `http://127.0.0.1:${port}/#token=${token}`,
    port,
    token,
    backend,
    async close() {
      unsubscribe.forEach((u) => u());
      for (const ws of sockets) ws.terminate();
      wss.close();
      await new Promise<void>((ok) => http.close(() => ok()));
      const said = await (backend as { dispose?: () => Promise<string | void> }).dispose?.();
      return said ?? '';
    },
  };
}
