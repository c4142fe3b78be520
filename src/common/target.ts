// The syntax of a target string, in one place for the validator (a file's design.target, checked
// before anything runs) and the SSH layer (which then resolves it through ~/.ssh/config). A target is
// `local`, `ssh://[user@]host[:port]` or `[user@]host[:port]` (an alias); host and user names are
// plain words, so a target can never carry shell text or an ssh option (`-oProxyCommand=…`).
import { ApiError } from './api.js';

const HOST = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9]([A-Za-z0-9._-]{0,252}))$/;
const USER = /^[A-Za-z0-9._][A-Za-z0-9._-]{0,63}$/;

export interface HostPart {
  user?: string;
  host: string;
  port?: number;
}

/** `[user@]host[:port]` as ProxyJump and ssh:// URLs write it; `where` names the field in the error. */
export function parseHostPart(text: string, where: string): HostPart {
  const m = /^(?:([^@]+)@)?(\[[^\]]+\]|[^:]+)(?::(\d{1,5}))?$/.exec(text);
  if (!m) throw new ApiError('invalid-argument', `${where}: expected [user@]host[:port], got ${JSON.stringify(text)}`);
  const [, user, host, port] = m;
  if (user !== undefined && !USER.test(user)) throw new ApiError('invalid-argument', `${where}: the user name ${JSON.stringify(user)} is not valid`);
  if (!HOST.test(host)) throw new ApiError('invalid-argument', `${where}: the host name ${JSON.stringify(host)} is not valid`);
  const p = port === undefined ? undefined : Number(port);
  if (p !== undefined && (p < 1 || p > 65535)) throw new ApiError('invalid-argument', `${where}: port ${port} is out of range`);
  return { user, host: host.replace(/^\[|\]$/g, ''), port: p };
}

export type TargetSyntax = { kind: 'local' } | { kind: 'ssh'; url: boolean; part: HostPart };

/** A target's syntax, or an ApiError naming `where`; nothing is resolved or connected. */
export function targetSyntax(target: string, where?: string): TargetSyntax {
  const t = target.trim();
  where ??= t ? `target ${t}` : 'target';
  if (t === 'local') return { kind: 'local' };
  if (t === '') throw new ApiError('invalid-argument', `${where}: expected \`local\`, \`ssh://[user@]host[:port]\` or an alias from ~/.ssh/config, got an empty string`);
  if (t.startsWith('ssh://')) return { kind: 'ssh', url: true, part: parseHostPart(t.slice('ssh://'.length).replace(/\/$/, ''), where) };
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(t)) throw new ApiError('invalid-argument', `${where}: only ssh:// targets and \`local\` are supported`);
  return { kind: 'ssh', url: false, part: parseHostPart(t, where) };
}

/** What is wrong with a target as a problem message (without the field's path), or null. */
export function targetProblem(target: string): string | null {
  try {
    targetSyntax(target, 'target');
    return null;
  } catch (e) {
    return (e as Error).message.replace(/^target: /, '') + '; expected local, ssh://[user@]host[:port] or an ssh config alias';
  }
}
