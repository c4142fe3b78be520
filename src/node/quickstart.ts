// A first run with nothing but the laptop (issue 4, point 8): is a mysqld or mariadbd installed here,
// and if not, what exactly to install for this operating system; then a sandbox on `local` and a
// short copy of the quickstart (2 restarts per cell) saved where the user can find it again.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApiError, type LocalReadiness, type QuickstartPrepared } from '../common/api.js';
import { journalPath } from './engine/journal.js';
import { readExperimentFile, saveExperimentFile, varlabHome } from './files.js';
import { createSandbox, shellQuote, type RegisteredProfile } from './host/index.js';
import { openLocalSession } from './host/local.js';
import type { TargetSession } from './host/types.js';

/**
 * What to install so that a sandbox can start, from the platform and /etc/os-release (Linux).
 * ID and ID_LIKE are both read, so derivatives (Ubuntu, Mint, Rocky, Manjaro…) get their family's command.
 */
export function installHint(platform: string, osRelease: string | null): string {
  if (platform === 'darwin') return 'Install MariaDB with Homebrew: brew install mariadb';
  if (platform === 'win32') return 'varlab drives mysqld on Linux: run it inside WSL or point it at a Linux host over SSH.';
  const field = (k: string) => (new RegExp(`^${k}=(.*)$`, 'm').exec(osRelease ?? '')?.[1] ?? '').replace(/^["']|["']$/g, '').toLowerCase();
  const ids = [field('ID'), ...field('ID_LIKE').split(/\s+/)].filter(Boolean);
  const name = field('NAME') || 'this system';
  const is = (...family: string[]) => ids.some((id) => family.includes(id));
  if (is('debian', 'ubuntu')) return 'Install MariaDB with: sudo apt-get install mariadb-server';
  if (is('fedora', 'rhel', 'centos', 'rocky', 'almalinux')) return 'Install MariaDB with: sudo dnf install mariadb-server';
  if (is('arch', 'manjaro')) return 'Install MariaDB with: sudo pacman -S mariadb';
  if (is('opensuse', 'suse', 'opensuse-leap', 'opensuse-tumbleweed')) return 'Install MariaDB with: sudo zypper install mariadb';
  if (is('alpine')) return 'Install MariaDB with: sudo apk add mariadb';
  return `No mysqld or mariadbd was found. Install the MariaDB server (or MySQL server) package for ${name} with its package manager, so that mariadbd or mysqld is on the PATH or in /usr/sbin.`;
}

async function osRelease(): Promise<string | null> {
  for (const f of ['/etc/os-release', '/usr/lib/os-release']) {
    try {
      return await readFile(f, 'utf8');
    } catch {
      /* try the next */
    }
  }
  return null;
}

/** The same search `varlab sandbox create` makes, plus Homebrew's prefixes. */
const FIND_SERVER =
  'for b in $(command -v mariadbd mysqld 2>/dev/null) /usr/sbin/mariadbd /usr/sbin/mysqld /usr/local/mysql/bin/mysqld /opt/homebrew/bin/mariadbd /usr/local/bin/mariadbd; do if [ -x "$b" ]; then echo "$b"; break; fi; done';

export async function localReadiness(session: TargetSession = openLocalSession()): Promise<LocalReadiness> {
  const bin = (await session.exec(FIND_SERVER, { timeoutMs: 15000 })).stdout.trim().split('\n')[0] || null;
  if (!bin) return { mysqld: null, flavor: null, version: null, installHint: installHint(process.platform, await osRelease()) };
  const version = (await session.exec(`${shellQuote(bin)} --version`, { timeoutMs: 15000 })).stdout.trim().split('\n')[0] || null;
  return { mysqld: bin, flavor: /mariadb/i.test(version ?? bin) ? 'mariadb' : 'mysql', version, installHint: null };
}

/**
 * Where the quickstart copy goes when the user chose no folder: ~/varlab, where a newcomer finds it
 * again; inside VARLAB_HOME when that is set (a test, a portable setup), so nothing lands outside it.
 */
export function defaultQuickstartDir(): string {
  return process.env.VARLAB_HOME ? join(varlabHome(), 'experiments') : join(homedir(), 'varlab');
}

/** quickstart.varlab.json, or quickstart-2.varlab.json… when that exists: never overwrite a file. */
export function freeName(dir: string, stem: string): string {
  for (let i = 1; ; i++) {
    const p = join(dir, `${stem}${i === 1 ? '' : `-${i}`}.varlab.json`);
    if (!existsSync(p) && !existsSync(journalPath(p))) return p;
  }
}

export function examplesDir(): string {
  if (process.env.VARLAB_EXAMPLES) return process.env.VARLAB_EXAMPLES;
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'examples')) && dirname(dir) !== dir) dir = dirname(dir);
  return join(dir, 'examples');
}

/** The sandbox registered for `local` when it is still there (and on the port asked for); else a new one. */
async function localSandbox(session: TargetSession, port?: number): Promise<{ profile: RegisteredProfile; created: boolean }> {
  const r = await createSandbox(session, { port, chooseFolder: 'make the sandbox in the Hosts view with another "Folder on the target"' });
  return { profile: r.profile, created: !r.reused };
}

/** Make (or reuse) the local sandbox and save a short copy of the quickstart for it. Starts nothing. */
export async function prepareLocalQuickstart(opts: { dir?: string; port?: number } = {}): Promise<QuickstartPrepared> {
  const session = openLocalSession();
  const ready = await localReadiness(session);
  if (!ready.mysqld) throw new ApiError('not-found', `no mysqld or mariadbd is installed on this machine. ${ready.installHint}`);
  const example = join(examplesDir(), 'quickstart.varlab.json');
  const r = await readExperimentFile(example);
  if (!r.doc) throw new ApiError('internal', `${example}: ${r.problems.join('; ')}`);
  const doc = structuredClone(r.doc);
  doc.design.target = 'local';
  doc.design.restartsPerCell = 2; // the short version: enough to see between-restart spread
  delete doc.results;
  const { profile, created } = await localSandbox(session, opts.port);
  const path = freeName(resolve(opts.dir ?? defaultQuickstartDir()), 'quickstart');
  await saveExperimentFile(path, doc);
  return { path, sandboxDir: profile.sandboxDir ?? null, createdSandbox: created };
}
