// Browser mode: serves the UI from public/ and carries the API contract over a WebSocket (the
// counterpart of the Electron IPC adapter in electron/main.ts; started by scripts/start.ts).
// Bound to 127.0.0.1 only, on a random port, with a per-launch token; the Host header of every
// request and the Origin of the WebSocket are checked, so another site or a DNS-rebinding page
// in the same browser cannot drive the backend.
import { createServer, type IncomingMessage } from 'node:http';
import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import { EVENTS, isMethod, type Backend } from '../../common/api.js';
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
  close(): Promise<void>;
}

export interface ServerOptions {
  port?: number;
  publicDir?: string;
  backend?: Backend & { dispose?(): Promise<void> };
}

function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export async function startServer(opts: ServerOptions = {}): Promise<BrowserModeServer> {
  const publicDir = resolve(opts.publicDir ?? packagePublicDir());
  const backend = opts.backend ?? createBackend({ transport: 'websocket' });
  const token = randomBytes(24).toString('base64url');
  let port = 0;
  const allowedHosts = () => [`127.0.0.1:${port}`, `localhost:${port}`];
  const hostOk = (req: IncomingMessage) => allowedHosts().includes(req.headers.host ?? '');

  const http = createServer(async (req, res) => {
    if (!hostOk(req)) {
      res.writeHead(421, { 'content-type': 'text/plain' }).end('wrong host');
      return;
    }
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    const file = normalize(join(publicDir, path === '/' ? 'index.html' : path));
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
  });

  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: 64 * 1024 * 1024,
  });
  const sockets = new Set<WebSocket>();

  http.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const origin = req.headers.origin ?? '';
    const originOk = allowedHosts().some((h) => origin === `http://${h}`);
    if (url.pathname !== '/api' || !hostOk(req) || !originOk || !sameToken(url.searchParams.get('token') ?? '', token)) {
      socket.write('HTTP/1.1 403 Forbidden\r\n\r\n');
      socket.destroy();
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      const clientId = randomUUID();
      sockets.add(ws);
      ws.on('close', () => sockets.delete(ws));
      ws.on('message', async (data) => {
        let msg: { id?: unknown; method?: unknown; args?: unknown };
        try {
          msg = JSON.parse(String(data));
        } catch {
          return;
        }
        if (typeof msg.id !== 'number') return;
        const reply = (result: unknown) => ws.readyState === ws.OPEN && ws.send(JSON.stringify({ id: msg.id, result }));
        if (!isMethod(msg.method)) {
          reply({ ok: false, code: 'invalid-argument', message: `unknown method ${JSON.stringify(msg.method)}` });
          return;
        }
        const args = msg.args && typeof msg.args === 'object' ? msg.args : {};
        reply(await backend.call(msg.method, args as never, { clientId }));
      });
    });
  });

  const unsubscribe = EVENTS.map((event) =>
    backend.on(event, (payload) => {
      const text = JSON.stringify({ event, payload });
      for (const ws of sockets) if (ws.readyState === ws.OPEN) ws.send(text);
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
      await opts.backend?.dispose?.();
      if (!opts.backend) await (backend as { dispose?: () => Promise<void> }).dispose?.();
    },
  };
}
