// The target `local`: the same operations as over SSH, on the machine varlab runs on.
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { connect } from 'node:net';
import type { Duplex } from 'node:stream';
import { ApiError } from '../../common/api.js';
import type { ServerProfile } from '../../common/experiment/types.js';
import { processStart } from '../process.js';
import { CommandTimedOut } from './command-timeout.js';
import { holdServerFirst, localArgv } from './server-first.js';
import type { ExecResult, TargetSession } from './types.js';

/** The app's own processes besides this one (Electron's renderers, GPU process…): none unless the app says. */
let ownProcesses: () => number[] = () => [];

/**
 * The app says which processes are its own (electron/main.ts): a local command gets their pids as
 * VARLAB_OWN_PIDS, so that the host's noise sample counts them as varlab's, not as other processes'
 * (the live plots' drawing is varlab's own work, not noise on the host).
 */
export function setOwnProcesses(list: () => number[]): void {
  ownProcesses = list;
}

function commandEnv(): NodeJS.ProcessEnv | undefined {
  let pids: number[] = [];
  try {
    pids = ownProcesses().filter((p) => Number.isInteger(p) && p > 1 && p !== process.pid);
  } catch {
    /* the app is going away */
  }
  return pids.length ? { ...process.env, VARLAB_OWN_PIDS: pids.join(' ') } : undefined;
}

export function openLocalSession(): TargetSession {
  // From the first connection to the server until the session closes, varlab's processes yield the
  // CPU to the server (server-first.ts). A session that only runs commands (a probe) changes nothing.
  let release: (() => void) | null = null;
  return {
    target: 'local',
    isLocal: true,
    exec(command, o = {}) {
      return new Promise<ExecResult>((resolve, reject) => {
        // A new process group, so that a timeout can stop the whole command line.
        const [file, ...args] = localArgv(['/bin/sh', '-c', command]);
        const child = spawn(file, args, { stdio: ['pipe', 'pipe', 'pipe'], detached: true, env: commandEnv() });
        let stdout = '';
        let stderr = '';
        const timer = o.timeoutMs
          ? setTimeout(() => {
              try {
                process.kill(-child.pid!, 'SIGKILL');
              } catch {
                /* already gone */
              }
              reject(new CommandTimedOut('a local command', o.timeoutMs!));
            }, o.timeoutMs)
          : null;
        child.stdout.on('data', (d: Buffer) => {
          const text = d.toString('utf8');
          stdout += text;
          // Live output (sysbench --report-interval lines) for whoever wants it as it comes.
          o.onStdout?.(text);
        });
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
        child.on('error', (e) => reject(new ApiError('internal', `cannot run /bin/sh: ${e.message}`)));
        // 'close' waits for the pipes: a daemon started in the background must redirect its output.
        child.on('close', (code, signal) => {
          if (timer) clearTimeout(timer);
          resolve({ code: code ?? (signal ? 128 : -1), stdout, stderr });
        });
        child.stdin.end(o.input ?? undefined);
      });
    },
    connectStream(profile: ServerProfile) {
      release ??= holdServerFirst(() => ownProcesses());
      return new Promise<Duplex>((resolve, reject) => {
        const sock = profile.socket ? connect(profile.socket) : connect(profile.port, '127.0.0.1');
        sock.once('connect', () => resolve(sock));
        sock.once('error', (e) => reject(new ApiError('connection', `cannot reach mysqld at ${profile.socket || `127.0.0.1:${profile.port}`}: ${e.message}`)));
      });
    },
    async anchor() {
      // varlab itself runs on the target: its own process is what a lock names.
      const start = processStart(process.pid);
      const boot = await readFile('/proc/sys/kernel/random/boot_id', 'utf8').catch(() => '');
      return start === undefined || !boot.trim() ? null : `${process.pid} ${start} ${boot.trim()}`;
    },
    onDrop() {
      return () => {};
    },
    async close() {
      release?.();
    },
  };
}
