// Browser mode: the API over a WebSocket to the local bridge server (src/node/transport/websocket-server.ts).
// The per-launch token arrives in the URL fragment (never sent in an HTTP request, so never logged),
// is kept for this tab only, and is removed from the address bar.
import { MAX_MESSAGE_BYTES, type ArgsOf, type Client, type EventName, type Events, type Method, type Result, type ResultOf } from '../../common/api.js';

const TOKEN_KEY = 'varlab.token';

export function takeToken(): string | null {
  const m = /(?:^|[#&])token=([A-Za-z0-9_-]+)/.exec(location.hash);
  if (m) {
    sessionStorage.setItem(TOKEN_KEY, m[1]);
    history.replaceState(null, '', location.pathname + location.search);
    return m[1];
  }
  return sessionStorage.getItem(TOKEN_KEY);
}

type Pending = { resolve: (r: Result<unknown>) => void };

export function websocketClient(token: string): Client {
  const listeners = new Map<string, Set<(p: unknown) => void>>();
  const pending = new Map<number, Pending>();
  let nextId = 1;
  let socket: WebSocket | null = null;
  let opening: Promise<WebSocket> | null = null;
  let retry = 0;
  /** The connection was up and went away: keep trying until it is back. */
  let reconnecting = false;
  /** A connection was up once (a tab whose first connection fails is told so, and keeps trying). */
  let everOpen = false;
  /** Why the last attempt failed, as far as the page's own server says (whyNot). */
  let why: 'refused' | 'unreachable' | undefined;

  const url = () => `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/api?token=${encodeURIComponent(token)}`;

  function connect(): Promise<WebSocket> {
    if (socket && socket.readyState === WebSocket.OPEN) return Promise.resolve(socket);
    if (opening) return opening;
    opening = new Promise((resolve, reject) => {
      const ws = new WebSocket(url());
      ws.onopen = () => {
        everOpen = true;
        socket = ws;
        opening = null;
        retry = 0;
        if (reconnecting) emit('transport', { state: 'connected' });
        reconnecting = false;
        why = undefined;
        resolve(ws);
      };
      ws.onmessage = (ev) => {
        const msg = JSON.parse(String(ev.data));
        if (typeof msg.id === 'number') {
          pending.get(msg.id)?.resolve(msg.result);
          pending.delete(msg.id);
        } else if (typeof msg.event === 'string') {
          emit(msg.event, msg.payload);
        }
      };
      ws.onclose = () => {
        const wasOpen = socket === ws;
        socket = null;
        opening = null;
        // Calls in flight cannot be answered any more: fail them instead of hanging.
        for (const [id, p] of pending) {
          p.resolve({ ok: false, code: 'connection', message: 'lost the connection to the varlab backend' });
          pending.delete(id);
        }
        // Also when the first connection fails: a token of a former launch (kept for this tab) is
        // refused, and the page would otherwise look connected while nothing it asks is answered.
        // A tab that never connected is connecting, not reconnecting: nothing was lost.
        if (wasOpen || reconnecting || !everOpen) {
          reconnecting = true;
          const state = everOpen ? 'reconnecting' : 'connecting';
          const attempt = retry;
          // The last attempt's why, until this one's is known: the banner does not flicker between them.
          emit('transport', { state, attempt, ...(why ? { why } : {}) });
          // Asked only when an attempt to open failed: after a connection that was up closes, the
          // server answering says nothing of why (the next attempt may well connect).
          if (!wasOpen) {
            void whyNot().then((now) => {
              // Kept and told only while no later attempt has connected or been told: a late answer
              // must not become the why of a later, unrelated loss of the connection.
              if (!reconnecting || retry !== attempt + 1) return;
              const changed = now !== why;
              why = now;
              if (changed) emit('transport', { state, attempt, ...(why ? { why } : {}) });
            });
          }
          setTimeout(() => connect().catch(() => {}), Math.min(5000, 250 * 2 ** retry++));
        }
        if (!wasOpen) reject(new Error('cannot reach the varlab backend'));
      };
    });
    return opening;
  }

  /**
   * Why the WebSocket failed: the browser does not say (a refused upgrade and a server that is gone
   * both close it with 1006). The page's own server is asked for the page, without the token: an
   * answer means it is up and refused this tab's connection (the token of another launch).
   */
  async function whyNot(): Promise<'refused' | 'unreachable' | undefined> {
    try {
      const r = await fetch(`${location.origin}/`, { method: 'HEAD', cache: 'no-store' });
      return r.ok ? 'refused' : undefined;
    } catch {
      return 'unreachable';
    }
  }

  function emit(event: string, payload: unknown) {
    for (const l of listeners.get(event) ?? []) l(payload);
  }

  connect().catch(() => {});

  return {
    transport: 'websocket',
    async call<M extends Method>(method: M, args: ArgsOf<M>): Promise<Result<ResultOf<M>>> {
      let ws: WebSocket;
      try {
        ws = await connect();
      } catch (e) {
        return { ok: false, code: 'connection', message: (e as Error).message };
      }
      const id = nextId++;
      const text = JSON.stringify({ id, method, args });
      // The server closes the connection on a bigger message; say what happened instead.
      const bytes = new Blob([text]).size;
      if (bytes > MAX_MESSAGE_BYTES) {
        const mib = (n: number) => `${Math.ceil(n / 1024 / 1024)} MiB`;
        return { ok: false, code: 'invalid-argument', message: `${method}: the request is ${mib(bytes)}, more than browser mode carries (${mib(MAX_MESSAGE_BYTES)})` };
      }
      return new Promise((resolve) => {
        pending.set(id, { resolve: resolve as (r: Result<unknown>) => void });
        ws.send(text);
      });
    },
    on<E extends EventName>(event: E, listener: (payload: Events[E]) => void) {
      const set = listeners.get(event) ?? new Set();
      set.add(listener as (p: unknown) => void);
      listeners.set(event, set);
      return () => set.delete(listener as (p: unknown) => void);
    },
  };
}
