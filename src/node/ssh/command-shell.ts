// One /bin/sh kept open per SSH connection, that runs varlab's commands one after another.
//
// Every SSH exec makes sshd start the login shell (`$SHELL -c …`), and a login shell can be slow:
// bash reads ~/.bashrc when sshd starts it, and rc files that set up pyenv, conda or a banner take
// seconds on some servers. A restart is one command, but it paid that start-up every time. Here the
// login shell starts once, execs /bin/sh, and each command runs as `sh -c COMMAND` inside it; what
// it prints is told apart by a marker line with a random id and the exit status.
import { randomBytes } from 'node:crypto';
import type { Client, ClientChannel } from 'ssh2';
import { ApiError } from '../../common/api.js';
import { CommandTimedOut } from '../host/command-timeout.js';
import { shellQuote } from '../host/shell.js';
import type { ExecResult } from '../host/types.js';

interface Pending {
  id: string;
  stdout: string;
  stderr: string;
  code: number | null;
  errDone: boolean;
  /** How much of stdout has been handed to onStdout already. */
  streamed: number;
  onStdout?: (chunk: string) => void;
  resolve(r: ExecResult): void;
  reject(e: Error): void;
  timer: NodeJS.Timeout | null;
  /** The shell it was written to. */
  ch?: ClientChannel;
}

const RS = '\x1e';

export class CommandShell {
  private channel: ClientChannel | null = null;
  private opening: Promise<ClientChannel> | null = null;
  private current: Pending | null = null;
  private queue: (() => void)[] = [];
  private closed = false;

  constructor(
    private readonly client: Client,
    private readonly target: string,
  ) {}

  /** Whether a command is running in the shell now (a caller may prefer a channel of its own). */
  get busy(): boolean {
    return this.current !== null || this.queue.length > 0;
  }

  /** Start the shell ahead of the first command, so its start-up overlaps other work. */
  warm(): void {
    this.open().catch(() => {});
  }

  private open(): Promise<ClientChannel> {
    if (this.channel) return Promise.resolve(this.channel);
    this.opening ??= new Promise<ClientChannel>((resolve, reject) => {
      // `exec` replaces the login shell, so nothing of it stays between varlab and the commands.
      this.client.exec('exec /bin/sh', (err, ch) => {
        this.opening = null;
        if (err) return reject(new ApiError('connection', `cannot start a shell on ${this.target}: ${err.message}`));
        ch.on('data', (d: Buffer) => this.onData(ch, 'out', d.toString('utf8')));
        ch.stderr.on('data', (d: Buffer) => this.onData(ch, 'err', d.toString('utf8')));
        ch.on('close', () => {
          if (this.channel === ch) this.channel = null;
          const p = this.current;
          if (p?.ch !== ch) return;
          this.current = null;
          if (p.timer) clearTimeout(p.timer);
          p.reject(new ApiError('connection', `the shell on ${this.target} ended while a command ran`));
          this.next();
        });
        this.channel = ch;
        resolve(ch);
      });
    });
    return this.opening;
  }

  run(command: string, o: { timeoutMs?: number; onStdout?: (chunk: string) => void } = {}): Promise<ExecResult> {
    if (this.closed) return Promise.reject(new ApiError('connection', `the connection to ${this.target} is closed`));
    return new Promise<ExecResult>((resolve, reject) => {
      const start = () => {
        const id = randomBytes(8).toString('hex');
        const p: Pending = { id, stdout: '', stderr: '', code: null, errDone: false, streamed: 0, onStdout: o.onStdout, resolve, reject, timer: null };
        this.current = p;
        if (o.timeoutMs) {
          p.timer = setTimeout(() => {
            // The command cannot be told apart from the shell any more: close both; the next command opens a new one.
            reject(new CommandTimedOut(`a command on ${this.target}`, o.timeoutMs!));
            this.current = null;
            const ch = this.channel;
            this.channel = null;
            ch?.close();
            this.next();
          }, o.timeoutMs);
        }
        this.open()
          .then((ch) => {
            if (this.current !== p) return;
            p.ch = ch;
            // A newline before each marker, so output without one still ends before it.
            ch.write(`sh -c ${shellQuote(command)} </dev/null; s=$?; printf '\\n${RS}VARLAB ${id} %s\\n' "$s"; printf '\\n${RS}VARLAB ${id}\\n' >&2\n`);
          })
          .catch((e: Error) => {
            if (p.timer) clearTimeout(p.timer);
            this.current = null;
            reject(e);
            this.next();
          });
      };
      if (this.current) this.queue.push(start);
      else start();
    });
  }

  private onData(ch: ClientChannel, which: 'out' | 'err', text: string): void {
    const p = this.current;
    // Late output of a shell given up on (a timeout) belongs to no one.
    if (!p || p.ch !== ch) return;
    if (which === 'out') {
      const from = Math.max(0, p.stdout.length - 40);
      p.stdout += text;
      const at = p.stdout.indexOf(`\n${RS}VARLAB ${p.id} `, from);
      const end = at < 0 ? -1 : p.stdout.indexOf('\n', at + 1);
      if (end > 0) {
        p.code = Number(p.stdout.slice(at + 2 + 'VARLAB '.length + p.id.length + 1, end));
        p.stdout = p.stdout.slice(0, at);
      }
      // Whole lines as they come (a marker starts with a newline, so it is never half-streamed).
      const upTo = p.code !== null ? p.stdout.length : p.stdout.lastIndexOf('\n');
      if (p.onStdout && upTo > p.streamed) {
        p.onStdout(p.stdout.slice(p.streamed, upTo));
        p.streamed = upTo;
      }
    } else {
      p.stderr += text;
      const marker = `\n${RS}VARLAB ${p.id}\n`;
      const i = p.stderr.indexOf(marker);
      if (i >= 0) {
        p.stderr = p.stderr.slice(0, i);
        p.errDone = true;
      }
    }
    if (p.code !== null && p.errDone) {
      if (p.timer) clearTimeout(p.timer);
      this.current = null;
      p.resolve({ code: p.code, stdout: p.stdout, stderr: p.stderr });
      this.next();
    }
  }

  private next(): void {
    const start = this.queue.shift();
    if (start) start();
  }

  close(): void {
    this.closed = true;
    this.channel?.end();
    this.channel = null;
  }
}
