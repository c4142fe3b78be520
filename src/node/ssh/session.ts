// A TargetSession over SSH: commands through exec channels, mysqld reached through a forwarded
// unix socket (or TCP port), and a dropped link reported at once.
import type { Duplex } from 'node:stream';
import type { ClientChannel } from 'ssh2';
import { ApiError } from '../../common/api.js';
import { CommandTimedOut } from '../host/command-timeout.js';
import { ANCHOR_PATTERN, ANCHOR_SCRIPT } from '../host/script.js';
import { shellQuote } from '../host/shell.js';
import type { ServerProfile } from '../../common/experiment/types.js';
import type { ExecResult, OpenTargetOptions, TargetSession } from '../host/types.js';
import { CommandShell } from './command-shell.js';
import { connectSsh } from './connect.js';
import type { SshEndpoint } from './target.js';

export async function openSshSession(target: string, endpoint: SshEndpoint, opts: OpenTargetOptions): Promise<TargetSession> {
  const { client, hops } = await connectSsh(endpoint, opts);
  const dropListeners = new Set<(err: Error) => void>();
  let closing = false;
  let dropped: Error | null = null;
  const onGone = (why: string) => {
    if (closing || dropped) return;
    dropped = new ApiError('connection', `the connection to ${target} dropped: ${why}`);
    for (const l of dropListeners) l(dropped);
  };
  client.on('error', (e: Error) => onGone(e.message));
  client.on('close', () => onGone('closed by the other side or the network (keepalives unanswered)'));
  for (const h of hops) h.on('close', () => onGone('a jump host closed the connection'));
  // Commands go to one shell kept open (the login shell's start-up is paid once, not per command).
  const shell = new CommandShell(client, target);
  shell.warm();
  let anchor: Promise<string | null> | null = null;

  return {
    target,
    isLocal: false,
    exec(command, o = {}) {
      if (dropped) return Promise.reject(dropped);
      // A second command while one runs (or one that needs stdin) gets a channel of its own.
      if (o.input === undefined && !shell.busy) return shell.run(command, o);
      return new Promise<ExecResult>((resolve, reject) => {
        // Through /bin/sh whatever the login shell is (zsh globbing and fish syntax differ), as locally.
        client.exec(`/bin/sh -c ${shellQuote(command)}`, (err, stream: ClientChannel) => {
          if (err) return reject(new ApiError('connection', `cannot run a command on ${target}: ${err.message}`));
          let stdout = '';
          let stderr = '';
          let code = -1;
          const timer = o.timeoutMs
            ? setTimeout(() => {
                stream.close();
                reject(new CommandTimedOut(`a command on ${target}`, o.timeoutMs!));
              }, o.timeoutMs)
            : null;
          stream.on('data', (d: Buffer) => {
            const text = d.toString('utf8');
            stdout += text;
            // Live output (sysbench --report-interval lines) for whoever wants it as it comes.
            o.onStdout?.(text);
          });
          stream.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
          stream.on('exit', (c: number | null, signal?: string) => (code = c ?? (signal ? 128 : -1)));
          stream.on('close', () => {
            if (timer) clearTimeout(timer);
            resolve({ code, stdout, stderr });
          });
          stream.end(o.input ?? undefined);
        });
      });
    },
    connectStream(profile: ServerProfile) {
      return new Promise<Duplex>((resolve, reject) => {
        if (dropped) return reject(dropped);
        const cb = (err: Error | undefined, stream: ClientChannel) => {
          if (err) return reject(new ApiError('connection', `cannot reach mysqld on ${target} at ${profile.socket || `port ${profile.port}`}: ${err.message}`));
          // mysqld gone (killed, crashed): sshd only half-closes the channel, and a client that waits
          // for the close (mysql2 does) would wait forever in the middle of a query. Close our side too.
          stream.once('end', () => stream.destroy());
          resolve(stream);
        };
        if (profile.socket) client.openssh_forwardOutStreamLocal(profile.socket, cb);
        else client.forwardOut('127.0.0.1', 0, '127.0.0.1', profile.port, cb);
      });
    },
    anchor() {
      // One per session, opened on first use and left open until the connection ends; never an error.
      anchor ??= new Promise<string | null>((resolve) => {
        if (dropped) return resolve(null);
        client.exec(`exec /bin/sh -c ${shellQuote(ANCHOR_SCRIPT)}`, (err, ch: ClientChannel) => {
          if (err) return resolve(null);
          let out = '';
          const timer = setTimeout(() => resolve(null), 10_000);
          ch.on('data', (d: Buffer) => {
            out += d.toString('utf8');
            const nl = out.indexOf('\n');
            if (nl < 0) return;
            clearTimeout(timer);
            const line = out.slice(0, nl).trim();
            resolve(ANCHOR_PATTERN.test(line) ? line : null);
          });
          ch.stderr.on('data', () => {});
          ch.on('close', () => {
            clearTimeout(timer);
            resolve(null);
          });
        });
      });
      return anchor;
    },
    onDrop(listener) {
      dropListeners.add(listener);
      return () => dropListeners.delete(listener);
    },
    async close() {
      closing = true;
      shell.close();
      client.end();
      for (const h of hops.reverse()) h.end();
    },
  };
}
