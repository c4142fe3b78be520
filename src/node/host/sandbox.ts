// `varlab sandbox create`: a throwaway data directory and server profile on the target, so a first
// experiment needs no existing server. Everything lives in one directory; removing it removes all.
import { randomBytes } from 'node:crypto';
import { ApiError } from '../../common/api.js';
import { checkProfile, stopScript } from './commands.js';
import { registerProfile, type RegisteredProfile } from './profiles.js';
import { assertPath, shellQuote } from './shell.js';
import type { TargetSession } from './types.js';

export interface SandboxOptions {
  /** Parent directory on the target; a fresh `varlab-sandbox-XXXX` is made inside. */
  parent?: string;
  port?: number;
  /** mysqld/mariadbd binary; found on the target when not given. */
  mysqld?: string;
  extraArgs?: string[];
}

export interface SandboxPlan {
  profile: RegisteredProfile;
  commands: string[];
}

interface TargetFacts {
  uid: number;
  mysqldBinary: string;
  flavor: 'mariadb' | 'mysql';
  installDb: string | null;
  hasMysqlUser: boolean;
}

async function facts(session: TargetSession, mysqld?: string): Promise<TargetFacts> {
  const script = [
    'echo "uid=$(id -u)"',
    mysqld ? `echo "bin=${mysqld.replace(/["$`\\]/g, '')}"` : 'for b in $(command -v mariadbd mysqld 2>/dev/null) /usr/sbin/mariadbd /usr/sbin/mysqld /usr/local/mysql/bin/mysqld; do if [ -x "$b" ]; then echo "bin=$b"; break; fi; done',
    'for i in $(command -v mariadb-install-db mysql_install_db 2>/dev/null); do echo "installdb=$i"; break; done',
    'id mysql >/dev/null 2>&1 && echo "mysqluser=yes"',
  ].join('\n');
  const out = (await session.exec(script)).stdout;
  const get = (k: string) => new RegExp(`^${k}=(.*)$`, 'm').exec(out)?.[1]?.trim();
  const bin = mysqld ?? get('bin');
  if (!bin) throw new ApiError('not-found', `no mysqld or mariadbd found on ${session.target} (install mariadb-server or mysql-server, or pass --mysqld PATH)`);
  const version = (await session.exec(`${shellQuote(bin)} --version`)).stdout;
  return {
    uid: Number(get('uid') ?? -1),
    mysqldBinary: bin,
    flavor: /mariadb/i.test(version) ? 'mariadb' : 'mysql',
    installDb: get('installdb') ?? null,
    hasMysqlUser: get('mysqluser') === 'yes',
  };
}

/** What a sandbox would be and the commands that make it; nothing runs. */
export async function planSandbox(session: TargetSession, opts: SandboxOptions = {}): Promise<SandboxPlan> {
  const f = await facts(session, opts.mysqld);
  const parent = (opts.parent ?? '/var/tmp').replace(/\/$/, '');
  assertPath('--dir', parent);
  const dir = `${parent}/varlab-sandbox-${randomBytes(4).toString('hex')}`;
  const port = opts.port ?? 20000 + Math.floor(Math.random() * 20000);
  // As root, mysqld refuses to run as root: it runs as `mysql`, which must own the directory.
  const osUser = f.uid === 0 ? (f.hasMysqlUser ? 'mysql' : undefined) : undefined;
  if (f.uid === 0 && !osUser) throw new ApiError('unsupported', `${session.target}: logged in as root and there is no \`mysql\` user to run mysqld as`);
  const profile: RegisteredProfile = {
    kind: 'direct',
    mysqld: f.mysqldBinary,
    datadir: `${dir}/data`,
    socket: `${dir}/mysqld.sock`,
    port,
    osUser,
    user: 'root',
    errorLog: `${dir}/error.log`,
    pidFile: `${dir}/mysqld.pid`,
    // A temporary folder of its own: servers sharing /tmp have been seen to lose each other's
    // temporary tables during mariadb-install-db's bootstrap ("Could not remove temporary table").
    extraArgs: ['--bind-address=127.0.0.1', '--innodb-buffer-pool-size=128M', '--innodb-log-file-size=48M', `--tmpdir=${dir}/tmp`, ...(opts.extraArgs ?? [])],
    sudo: false,
    sandboxDir: dir,
    createdAt: Date.now(),
  };
  checkProfile(profile);
  const q = shellQuote;
  const userArg = osUser ? [`--user=${osUser}`] : [];
  const init =
    f.flavor === 'mariadb' && f.installDb
      ? [f.installDb, '--no-defaults', `--datadir=${profile.datadir}`, `--tmpdir=${dir}/tmp`, ...userArg, '--auth-root-authentication-method=normal', '--skip-test-db'].map(q)
      : [f.mysqldBinary, '--no-defaults', '--initialize-insecure', `--datadir=${profile.datadir}`, `--tmpdir=${dir}/tmp`, ...userArg].map(q);
  const commands = [
    `mkdir -p ${q(dir)} ${q(`${dir}/tmp`)}`,
    ...(osUser ? [`chown ${q(osUser)} ${q(dir)} ${q(`${dir}/tmp`)}`] : []),
    // On failure mariadb-install-db ends with pages of generic help: its [ERROR] lines come first.
    `${init.join(' ')} > ${q(`${dir}/init.log`)} 2>&1 || { { grep -E '\\[ERROR\\]|ERROR:' ${q(`${dir}/init.log`)} | head -n 10; tail -n 20 ${q(`${dir}/init.log`)}; } >&2; exit 3; }`,
    ...(osUser ? [`chown -R ${q(osUser)} ${q(dir)}`] : []),
  ];
  return { profile, commands };
}

/** Make the sandbox on the target and register its profile for the target. */
export async function createSandbox(session: TargetSession, opts: SandboxOptions = {}): Promise<RegisteredProfile> {
  const { profile, commands } = await planSandbox(session, opts);
  const r = await session.exec(commands.join(' && '), { timeoutMs: 180000 });
  if (r.code !== 0) throw new ApiError('internal', `creating the sandbox on ${session.target} failed (exit ${r.code}): ${r.stderr.trim() || r.stdout.trim()}`);
  await registerProfile(session.target, profile);
  return profile;
}

/** Stop the sandbox's mysqld (if running) and delete its directory. */
export async function removeSandbox(session: TargetSession, profile: RegisteredProfile): Promise<void> {
  if (!profile.sandboxDir || !/\/varlab-sandbox-[0-9a-f]{8}$/.test(profile.sandboxDir)) {
    throw new ApiError('invalid-argument', `the profile for ${session.target} is not a varlab sandbox; refusing to delete ${profile.datadir}`);
  }
  const stop = await session.exec(stopScript(profile, null, 120));
  if (stop.code !== 0) throw new ApiError('internal', `stopping the sandbox mysqld failed: ${stop.stderr.trim()}`);
  await session.exec(`rm -rf ${shellQuote(profile.sandboxDir)}`);
}
