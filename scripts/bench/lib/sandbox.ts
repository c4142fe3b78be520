// A loopback sandbox for the benchmarks that need a real mariadbd (target `local`): made in a
// temporary folder with its own VARLAB_HOME, handed to the bench as a server profile, and removed
// with everything else whatever happens; and the one-query experiment those benchmarks run on it.
// `target` may be an SSH target (the test sshd on 127.0.0.1, scripts/testenv/sshd.ts), with its `auth`;
// `options.builds` registers server builds (NAME=PATH), each with its own data directory.
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TargetAuth } from '../../../src/common/api.js';
import type { ExperimentDoc, ServerProfile } from '../../../src/common/experiment/types.js';
import { createSandbox, openTarget, removeSandbox, type TargetSession } from '../../../src/node/host/index.js';
import type { SandboxOptions } from '../../../src/node/host/sandbox.js';
import type { RegisteredProfile } from '../../../src/node/host/profiles.js';

export async function withSandbox(
  name: string,
  body: (s: { dir: string; session: TargetSession; profile: ServerProfile }) => Promise<void>,
  where: { target: string; auth?: TargetAuth } = { target: 'local' },
  options: Pick<SandboxOptions, 'builds'> = {},
): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), `varlab-bench-${name}-`));
  chmodSync(dir, 0o755);
  const savedHome = process.env.VARLAB_HOME;
  process.env.VARLAB_HOME = join(dir, 'home');
  const session = await openTarget(where.target, { auth: where.auth, prompt: async () => ({ accept: false }) });
  let sandbox: RegisteredProfile | null = null;
  try {
    sandbox = (await createSandbox(session, { ...options, parent: dir })).profile;
    const profile: ServerProfile = { ...sandbox, target: where.target };
    delete (profile as Partial<RegisteredProfile>).sandboxDir;
    delete (profile as Partial<RegisteredProfile>).createdAt;
    await body({ dir, session, profile });
  } finally {
    if (sandbox) await removeSandbox(session, sandbox).catch((e) => console.error(`removing the sandbox: ${(e as Error).message}`));
    await session.close();
    if (savedHome === undefined) delete process.env.VARLAB_HOME;
    else process.env.VARLAB_HOME = savedHome;
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One query, `repetitions` times per restart, no warm-up dropped, no idle time, on the sandbox. */
export function oneQuery(name: string, profile: ServerProfile, sql: string, restarts: number, repetitions: number, target = 'local'): ExperimentDoc {
  return {
    format: 'varlab-experiment',
    version: 3,
    name,
    design: {
      factors: [],
      excludedCells: [],
      restartsPerCell: restarts,
      workload: { kind: 'queries', database: 'varlab_bench', setupSql: 'CREATE TABLE IF NOT EXISTS t (n INT PRIMARY KEY)', setupSkipIfTable: 't', queries: [{ name: 'q', sql }], repetitions, warmup: 0 },
      order: 'interleaved',
      seed: 1,
      idleSeconds: 0,
      estimates: { restartSeconds: 2, executionMs: 1 },
      target,
      serverProfile: { ...profile, target },
    },
  };
}

/**
 * Copies of `mariadbd` at paths of their own (DIR/NAME/mariadbd), one per build name, for withSandbox's
 * `builds` (`NAME=PATH` each): byte for byte the same binary, an A/A pair. Removed after `body`.
 */
export async function withBuildCopies(mariadbd: string, names: string[], body: (builds: string[]) => Promise<void>): Promise<void> {
  const bins = mkdtempSync(join(tmpdir(), 'varlab-bench-builds-'));
  chmodSync(bins, 0o755);
  try {
    const builds = names.map((b) => {
      mkdirSync(join(bins, b), { mode: 0o755 });
      copyFileSync(mariadbd, join(bins, b, 'mariadbd'));
      chmodSync(join(bins, b, 'mariadbd'), 0o755);
      return `${b}=${join(bins, b, 'mariadbd')}`;
    });
    await body(builds);
  } finally {
    rmSync(bins, { recursive: true, force: true });
  }
}
