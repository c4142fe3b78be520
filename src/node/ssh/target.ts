// What a target string means: `local`, `ssh://[user@]host[:port]`, or an alias from ~/.ssh/config
// (HostName, User, Port, IdentityFile, ProxyJump), resolved with the ssh-config library.
import { readFileSync } from 'node:fs';
import { homedir, userInfo } from 'node:os';
import { join } from 'node:path';
import SSHConfig from 'ssh-config';
import { ApiError } from '../../common/api.js';
import { parseHostPart, targetSyntax } from '../../common/target.js';

export interface SshEndpoint {
  /** The name the user wrote (alias or host), for messages. */
  name: string;
  host: string;
  port: number;
  user: string;
  identityFiles: string[];
  /** Hops to go through first, outermost first (from ProxyJump). */
  jumps: SshEndpoint[];
}

export type TargetSpec = { kind: 'local' } | { kind: 'ssh'; endpoint: SshEndpoint };

function expandHome(p: string): string {
  return p.startsWith('~/') ? join(homedir(), p.slice(2)) : p;
}

function readSshConfig(path = join(homedir(), '.ssh', 'config')): SSHConfig | null {
  try {
    return SSHConfig.parse(readFileSync(path, 'utf8'));
  } catch {
    return null;
  }
}

function first(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/** Resolve a name through ~/.ssh/config; what the URL says explicitly wins over the config. */
function resolve(name: string, explicit: { user?: string; port?: number }, config: SSHConfig | null, depth: number): SshEndpoint {
  if (depth > 8) throw new ApiError('invalid-argument', `ProxyJump chain for ${name} is longer than 8 hops (a loop?)`);
  const c = config ? config.compute(name) : {};
  const host = first(c.HostName) ?? name;
  const port = explicit.port ?? (first(c.Port) ? Number(first(c.Port)) : 22);
  const user = explicit.user ?? first(c.User) ?? userInfo().username;
  const identityFiles = ([] as string[]).concat(c.IdentityFile ?? []).map(expandHome);
  const jumps: SshEndpoint[] = [];
  const pj = first(c.ProxyJump);
  if (pj && pj.toLowerCase() !== 'none') {
    for (const hop of pj.split(',')) {
      const h = parseHostPart(hop.trim().replace(/^ssh:\/\//, ''), `ProxyJump of ${name} in ~/.ssh/config`);
      const ep = resolve(h.host, h, config, depth + 1);
      jumps.push(...ep.jumps, { ...ep, jumps: [] });
    }
  }
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new ApiError('invalid-argument', `Port for ${name} in ~/.ssh/config is not a valid port`);
  return { name, host, port, user, identityFiles, jumps };
}

/** Parse a target; `configPath` lets tests point at their own ssh config. */
export function parseTarget(target: string, configPath?: string): TargetSpec {
  const syntax = targetSyntax(target);
  if (syntax.kind === 'local') return { kind: 'local' };
  const config = readSshConfig(configPath);
  return { kind: 'ssh', endpoint: resolve(syntax.part.host, syntax.part, config, 0) };
}
