// Open an authenticated, host-key-checked ssh2 connection to an endpoint, through its ProxyJump hops.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import ssh2, { type AuthHandlerMiddleware, type AuthenticationType, type ConnectConfig } from 'ssh2';
// ssh2 is CommonJS: its named exports exist only on the default object at run time.
const { Client, utils } = ssh2;
type Client = InstanceType<typeof Client>;
import { ApiError, type TargetAuth } from '../../common/api.js';
import { varlabHome } from '../files.js';
import type { Prompter } from '../host/types.js';
import { readSmallFile } from '../small-file.js';
import { addKnownHost, checkHostKey, fingerprint, hostKeyAlgorithms, hostToken, keyType, recordedKeys } from './knownhosts.js';
import type { SshEndpoint } from './target.js';

export interface ConnectOptions {
  auth?: TargetAuth;
  prompt: Prompter;
  /** How long set-up may wait on the server (HANDSHAKE_TIMEOUT_MS unless given). */
  handshakeTimeoutMs?: number;
}

/**
 * How long a connection's set-up may wait on the server (key exchange and authentication) before it
 * fails with "Timed out while waiting for handshake". Only the waits on the server count: not the time
 * varlab spends on its own side meanwhile (checking the host key, a question to the person, decrypting a
 * key file with its passphrase). Before, ssh2's readyTimeout counted all of it: a person slower than
 * 20 s to type a passphrase lost the connection, and so did a loaded machine, where decrypting an
 * ed25519 key (bcrypt, in JavaScript, 0.7 s of CPU) took seconds.
 */
export const HANDSHAKE_TIMEOUT_MS = 20000;

/** Seconds between SSH keepalives, and how many may go unanswered before the link counts as dropped. */
const KEEPALIVE_MS = 5000;
const KEEPALIVE_MAX = 3;

/** The files a host key is checked against: the user's, varlab's own, and an extra one if given. */
export function knownHostsFiles(auth?: TargetAuth): string[] {
  const files = [join(homedir(), '.ssh', 'known_hosts'), varlabKnownHosts()];
  if (auth?.knownHosts) files.push(auth.knownHosts);
  return files;
}

export function varlabKnownHosts(): string {
  return join(varlabHome(), 'known_hosts');
}

const DEFAULT_KEYS = ['id_ed25519', 'id_ecdsa', 'id_rsa'].map((k) => join(homedir(), '.ssh', k));

/** Connect to the last endpoint of the chain, hopping through each jump host first. */
export async function connectSsh(endpoint: SshEndpoint, opts: ConnectOptions): Promise<{ client: Client; hops: Client[] }> {
  const hops: Client[] = [];
  let sock: Duplex | undefined;
  try {
    for (const hop of [...endpoint.jumps, endpoint]) {
      if (hops.length) sock = await forward(hops[hops.length - 1], hop.host, hop.port);
      const recorded = await recordedKeys(knownHostsFiles(opts.auth), hop.host, hop.port);
      hops.push(await connectOne(hop, opts, sock, hop === endpoint, hostKeyAlgorithms(recorded.map((r) => r.type))));
    }
  } catch (e) {
    for (const c of hops.reverse()) c.end();
    throw e;
  }
  return { client: hops[hops.length - 1], hops: hops.slice(0, -1) };
}

function forward(via: Client, host: string, port: number): Promise<Duplex> {
  return new Promise((resolve, reject) =>
    via.forwardOut('127.0.0.1', 0, host, port, (err, stream) => (err ? reject(new ApiError('connection', `jump host cannot reach ${host}:${port}: ${err.message}`)) : resolve(stream))),
  );
}

function connectOne(ep: SshEndpoint, opts: ConnectOptions, sock: Duplex | undefined, isTarget: boolean, serverHostKey: string[]): Promise<Client> {
  const where = `${ep.user}@${ep.host}:${ep.port}`;
  return new Promise((resolve, reject) => {
    const client = new Client();
    // The first meaningful reason wins: a host key or auth problem explains the generic error that follows.
    let failure: Error | null = null;
    let settled = false;
    // The handshake clock: runs while set-up waits on the server, stopped while varlab works on its side (local).
    let left = opts.handshakeTimeoutMs ?? HANDSHAKE_TIMEOUT_MS;
    let since = 0;
    let timer: NodeJS.Timeout | undefined;
    let localWork = 0;
    const startClock = () => {
      if (settled || timer) return;
      since = Date.now();
      timer = setTimeout(() => done(new ApiError('connection', `${where}: Timed out while waiting for handshake`)), Math.max(0, left));
    };
    const stopClock = () => {
      if (!timer) return;
      clearTimeout(timer);
      timer = undefined;
      left -= Date.now() - since;
    };
    const local = async <T>(work: () => Promise<T>): Promise<T> => {
      localWork++;
      stopClock();
      try {
        return await work();
      } finally {
        if (--localWork === 0) startClock();
      }
    };
    const done = (err: Error | null) => {
      if (settled) return;
      settled = true;
      stopClock();
      if (err) {
        client.end();
        reject(err);
      } else resolve(client);
    };

    const hostVerifier = (key: Buffer, verify: (ok: boolean) => void) => {
      local(() => verifyHostKey(ep, key, opts))
        .then(() => verify(true))
        .catch((e: Error) => {
          failure = e;
          verify(false);
        });
    };

    const config: ConnectConfig = {
      host: ep.host,
      port: ep.port,
      username: ep.user,
      sock: sock as ConnectConfig['sock'],
      hostVerifier,
      algorithms: { serverHostKey: serverHostKey as NonNullable<ConnectConfig['algorithms']>['serverHostKey'] },
      keepaliveInterval: KEEPALIVE_MS,
      keepaliveCountMax: KEEPALIVE_MAX,
      // Our own clock instead (HANDSHAKE_TIMEOUT_MS): ssh2's counts the time spent on this side too.
      readyTimeout: 0,
      authHandler: makeAuthHandler(ep, opts, isTarget, (e) => (failure = e), local),
    };
    client.on('ready', () => done(null));
    client.on('error', (err: Error & { level?: string; code?: string }) => {
      if (failure) return done(failure);
      if (err.level === 'client-authentication') return done(new ApiError('auth', `${where}: authentication failed (tried: agent, key files, password). Pass --identity KEY or check the user name.`));
      done(new ApiError('connection', `${where}: ${setUpFailure(err, ep)}`));
    });
    client.on('close', () => done(failure ?? new ApiError('connection', `${where}: the connection closed during set-up`)));
    client.connect(config);
    startClock();
    // Nagle's algorithm off on the connection to sshd: each query and each reply of
    // a forwarded mysql connection is a small write, and Nagle held some back until an acknowledgement
    // (on the loopback sshd: a query's round trip 0.3 ms median and 2–4 ms at p90 with it, 0.14 and
    // 0.3 ms without; a new mysql connection 20 ms with, 1.4 ms without). Over SSH that wait was time
    // between two measured executions, and overhead in every restart. A jump host's channel has no
    // socket to set: the first hop's is set when it connects.
    client.setNoDelay(true);
  });
}

/** A socket's failure during set-up, in words (the system's code kept in brackets for a search). */
function setUpFailure(err: Error & { code?: string }, ep: SshEndpoint): string {
  switch (err.code) {
    case 'ECONNREFUSED':
      return `connection refused (is sshd running on port ${ep.port}?)`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `unknown host name ${ep.host}`;
    case 'ECONNRESET':
      return `the connection was reset by the other side before SSH was set up (${err.message}): is it an SSH server on port ${ep.port}, and does it let this machine in?`;
    case 'ETIMEDOUT':
      return `no answer from ${ep.host} on port ${ep.port} (${err.message}): is the host up, and the port open to this machine?`;
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `no route to ${ep.host} from this machine (${err.message})`;
    default:
      return err.message;
  }
}

async function verifyHostKey(ep: SshEndpoint, key: Buffer, opts: ConnectOptions): Promise<void> {
  const files = knownHostsFiles(opts.auth);
  const fp = fingerprint(key);
  const r = await checkHostKey(files, ep.host, ep.port, key);
  const name = hostToken(ep.host, ep.port);
  if (r.status === 'known') return;
  if (r.status === 'revoked') throw new ApiError('host-key-rejected', `the host key of ${name} (${fp}) is marked @revoked in ${r.file}:${r.line}`);
  if (r.status === 'changed') {
    const was = r.recorded.map((k) => `${k.type} key ${k.fingerprint} (${k.file}:${k.line})`).join(', ');
    throw new ApiError(
      'host-key-changed',
      `WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED! The host key of ${name} has CHANGED: it now presents the ${keyType(key)} key ${fp}, ` +
        `but known_hosts records ${was}. Someone may be intercepting the connection, or the host was reinstalled. Refusing to connect` +
        `${opts.auth?.acceptNewHostKey ? ' (--accept-new only adds hosts with no recorded key)' : ''}. ` +
        `If you know why the key changed, remove the old entry (ssh-keygen -R '${name}' -f ${r.file}) and connect again.`,
    );
  }
  if (!opts.auth?.acceptNewHostKey) {
    const a = await opts.prompt({
      kind: 'host-key',
      title: `Unknown host ${name}`,
      message: `The authenticity of host ${name} can't be established. Its key fingerprint is ${fp}. Trust it and connect?`,
      fingerprint: fp,
    });
    if (!a.accept) throw new ApiError('host-key-rejected', `the host key of ${name} (${fp}) was not accepted`);
    if (a.remember === false) return;
  }
  await addKnownHost(varlabKnownHosts(), ep.host, ep.port, key);
}

/** Try, in order: ssh-agent, each key file (asking for a passphrase when one is encrypted), then a password. */
function makeAuthHandler(ep: SshEndpoint, opts: ConnectOptions, isTarget: boolean, fail: (e: Error) => void, local: <T>(work: () => Promise<T>) => Promise<T>): AuthHandlerMiddleware {
  const keyFiles = isTarget && opts.auth?.identity ? [opts.auth.identity] : ep.identityFiles.length ? ep.identityFiles : DEFAULT_KEYS.filter((f) => existsSync(f));
  const steps: (() => Promise<unknown>)[] = [];
  if (process.env.SSH_AUTH_SOCK) steps.push(async () => ({ type: 'agent', username: ep.user, agent: process.env.SSH_AUTH_SOCK }));
  for (const file of keyFiles) steps.push(() => keyMethod(file, ep, opts));
  let askedPassword = false;
  let triedNone = false;
  const askPassword = async (message: string) =>
    local(() => opts.prompt({ kind: 'password', title: `Password for ${ep.user}@${ep.host}`, message }).catch((e: Error) => {
      fail(e);
      return null;
    }));
  return (methodsLeft, _partial, next) => {
    const allowed = (m: AuthenticationType) => methodsLeft == null || methodsLeft.includes(m);
    const tryNext = async (): Promise<void> => {
      const step = steps.shift();
      if (step) {
        try {
          const m = (await local(step)) as { type: AuthenticationType } | null;
          if (m && allowed(m.type === 'agent' ? 'publickey' : m.type)) return next(m as never);
        } catch (e) {
          fail(e as Error);
          return next(false as never);
        }
        return tryNext();
      }
      // No key worked (or there were none): learn what the server accepts before asking a person.
      if (methodsLeft == null && !triedNone) {
        triedNone = true;
        return next({ type: 'none', username: ep.user } as never);
      }
      if (askedPassword || methodsLeft == null) return next(false as never);
      if (methodsLeft.includes('password')) {
        askedPassword = true;
        const a = await askPassword(`Password for ${ep.user}@${ep.host}:${ep.port}`);
        if (a?.accept && a.secret !== undefined) return next({ type: 'password', username: ep.user, password: a.secret } as never);
      } else if (methodsLeft.includes('keyboard-interactive')) {
        // PAM-style login: each question the server asks goes to the person (hidden input).
        askedPassword = true;
        return next({
          type: 'keyboard-interactive',
          username: ep.user,
          prompt: (_name: string, instructions: string, _lang: string, prompts: { prompt: string }[], finish: (answers: string[]) => void) => {
            void (async () => {
              const answers: string[] = [];
              for (const q of prompts) {
                const a = await askPassword(`${instructions ? instructions + ' ' : ''}${q.prompt.trim()} (${ep.user}@${ep.host}:${ep.port})`);
                answers.push(a?.accept && a.secret !== undefined ? a.secret : '');
              }
              finish(answers);
            })();
          },
        } as never);
      }
      return next(false as never);
    };
    void tryNext();
  };
}

async function keyMethod(file: string, ep: SshEndpoint, opts: ConnectOptions) {
  const data = await readSmallFile(file, 'the key file', 'auth');
  let parsed = utils.parseKey(data);
  if (parsed instanceof Error && /passphrase/i.test(parsed.message)) {
    const a = await opts.prompt({ kind: 'passphrase', title: `Passphrase for ${file}`, message: `The key ${file} is encrypted. Passphrase:` });
    if (!a.accept || a.secret === undefined) return null;
    parsed = utils.parseKey(data, a.secret);
    if (parsed instanceof Error) throw new ApiError('auth', `the passphrase for ${file} is wrong`);
    // The decrypted key itself: given the file and the passphrase, ssh2 decrypted it a second time.
    return { type: 'publickey', username: ep.user, key: parsed };
  }
  if (parsed instanceof Error) throw new ApiError('auth', `the key file ${file} is not a private key ssh2 can read: ${parsed.message}`);
  return { type: 'publickey', username: ep.user, key: data };
}
