// The host layer's benchmark: one restart (stop, start through the tunables' wrapper, wait until it
// listens, verify) of the same sandbox mariadbd on `local` and over SSH (a loopback sshd), side by
// side: wall time, the server's own start time, what varlab adds, the SSH-minus-local difference and
// the ratio, and the remote calls a restart makes. Prints numbers only; asserts nothing about time.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSshd } from '../testenv/sshd.js';
import type { Factor } from '../../src/common/experiment/types.js';
import { createSandbox, createServerControl, openTarget, removeSandbox, type RegisteredProfile, type ServerControl, type TargetSession } from '../../src/node/host/index.js';

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const ms = (x: number) => `${x.toFixed(0)} ms`;

/** A session that counts its remote calls. */
function counting(s: TargetSession): TargetSession & { calls: number } {
  const c = Object.assign(Object.create(null), s, { calls: 0 }) as TargetSession & { calls: number };
  c.exec = (cmd, o) => {
    c.calls++;
    return s.exec(cmd, o);
  };
  return c;
}

export async function bench(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'varlab-bench-host-'));
  chmodSync(dir, 0o755);
  const savedHome = process.env.VARLAB_HOME;
  process.env.VARLAB_HOME = join(dir, 'home');
  const sshd = await startSshd();
  const local = await openTarget('local', { prompt: async () => ({ accept: false }) });
  const ssh = await openTarget(sshd.target, { auth: { identity: sshd.keyFile, knownHosts: sshd.knownHostsFile }, prompt: async () => ({ accept: false }) });
  let sandbox: RegisteredProfile | null = null;
  try {
    sandbox = (await createSandbox(local, { parent: dir })).profile;
    const factors: Factor[] = [
      { tunable: 'aslr', levels: [] },
      { tunable: 'ahi', levels: [] },
      { tunable: 'cpubind', levels: [] },
    ];
    const levels = { aslr: 'off', ahi: 'off', cpubind: '0' };
    const sides = [
      { name: 'local', session: counting(local) },
      { name: 'ssh', session: counting(ssh) },
    ].map((s) => ({ ...s, control: createServerControl(s.session, sandbox!) as ServerControl, total: [] as number[], ready: [] as number[], calls: [] as number[] }));
    // The probe and a first start, outside the figures.
    for (const s of sides) await s.control.restart(factors, levels);
    const rounds = 10;
    for (let i = 0; i < rounds; i++) {
      // Alternate which side goes first, so drift over time is shared.
      for (const s of i % 2 ? [...sides].reverse() : sides) {
        const before = s.session.calls;
        const t0 = performance.now();
        const started = await s.control.restart(factors, levels);
        s.total.push(performance.now() - t0);
        s.ready.push(started.readyMs);
        s.calls.push(s.session.calls - before);
        if (!started.checks.every((c) => c.ok)) throw new Error(`${s.name}: a verification failed: ${JSON.stringify(started.checks)}`);
      }
    }
    await sides[0].control.stop();
    console.log(`one restart (stop, start with ASLR off, AHI off, CPU 0, wait until ready, verify), ${rounds} per side, medians:`);
    for (const s of sides) {
      const added = s.total.map((t, i) => t - s.ready[i]);
      console.log(`    ${s.name.padEnd(5)}  restart ${ms(median(s.total))}  server start to listening ${ms(median(s.ready))}  the rest (stop the old one, connect, verify) ${ms(median(added))}  remote calls per restart ${median(s.calls)}`);
    }
    const [l, r] = sides;
    const diff = median(r.total) - median(l.total);
    const ownDiff = median(r.total.map((t, i) => t - r.ready[i])) - median(l.total.map((t, i) => t - l.ready[i]));
    console.log(`    ssh - local: ${ms(diff)} per restart (the rest: ${ms(ownDiff)}); ssh / local: ${(median(r.total) / median(l.total)).toFixed(2)}×; goal: at most 200 ms more over SSH`);
  } finally {
    if (sandbox) await removeSandbox(local, sandbox).catch((e) => console.error(`removing the sandbox: ${(e as Error).message}`));
    await ssh.close();
    await local.close();
    await sshd.stop();
    if (savedHome === undefined) delete process.env.VARLAB_HOME;
    else process.env.VARLAB_HOME = savedHome;
    rmSync(dir, { recursive: true, force: true });
  }
}
