// Issue 22's fidelity bench, on a loopback sandbox (target `local`, a mariadbd varlab makes): does
// varlab measure what a careful engineer measures by hand? For a ~0.5 ms and a ~1 ms query, rounds
// alternate A B A B on the same server in the same window:
//   A  varlab: one restart of a run (RunEngine), the query REPS times, its server times;
//   B  by hand: the same restart (ServerControl), then the `mariadb` client fed the query REPS times
//      through stdin, back to back, and events_statements_history_long read after the loop.
// Each round's figure is the median of its executions after the first WARM; the ratio is varlab's
// median of round figures over the by-hand one (goal 1.00 ± 0.03).
//
// Then the overhead per restart beyond the server's own start, the idle time and the executions
// (goal ≤ 1.2× the by-hand driver's), locally and over SSH (the test sshd on 127.0.0.1): rounds A B A B,
//   A  varlab: a run (RunEngine) of RESTARTS restarts of the ~1 ms query REPS times, no idle time;
//   B  by hand: RESTARTS restarts, each one remote call of a sh script (lib/by-hand.ts: kill -TERM and
//      wait, nohup mariadbd with the same options, poll a client login, the `mariadb` client fed the
//      query REPS times, the history read after), over the same kind of session varlab uses.
// Overhead of restart k = the start of restart k+1 − the start of restart k − the server's start
// (varlab: launch → listening, the script's readyMs; by hand: launch → a login answers) − the
// executions' server time. Restarts 2 … RESTARTS−1 count (the first runs varlab's setup, the last has
// no next). Prints numbers only; asserts nothing about time.
//
// FIDELITY_PART=clients (not in the default run): the ~1 ms query sent each way between the by-hand
// loop and varlab, one step apart (serverTimeClients), to find what makes the two differ;
// FIDELITY_PIN=apart|same pins mysqld to CPU 0 and the clients to CPU 1 (apart) or 0 (same).
// FIDELITY_CLIENT_MS sets the clients part's query time (default 1). VARLAB_SERVER_FIRST=0 keeps varlab's
// process under the ordinary policy (host/server-first.ts), to see what yielding the CPU to mysqld changes.
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createConnection } from 'mysql2/promise';
import { join } from 'node:path';
import type { TargetAuth } from '../../src/common/api.js';
import type { RestartResult, ServerProfile } from '../../src/common/experiment/types.js';
import { createServerControl } from '../../src/node/host/index.js';
import { RunEngine } from '../../src/node/engine/run.js';
import { startSshd } from '../testenv/sshd.js';
import { byHandRestarts } from './lib/by-hand.js';
import { oneQuery, withSandbox } from './lib/sandbox.js';
import { localArgv, serverFirstMessage } from '../../src/node/host/server-first.js';
import { BATCH, detectTimer, historyMark, measureBatch } from '../../src/node/workloads/queries.js';

const ROUNDS = Number(process.env.FIDELITY_ROUNDS ?? 6);
const REPS = 15;
const WARM = 3;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const f = (x: number, d = 3) => x.toFixed(d);

/** The mariadb client, fed `input` on stdin; its stdout. */
function client(profile: ServerProfile, input: string, cpu?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    // Under the ordinary policy, as from a shell, while this process yields to the server (server-first.ts).
    const [file, ...pre] = localArgv([...(cpu ? ['taskset', '-c', cpu] : []), 'mariadb']);
    const p = spawn(file, [...pre, '--no-defaults', `--socket=${profile.socket}`, `--user=${profile.user}`, '-N', '-B', 'varlab_bench'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (err += d));
    p.on('error', reject);
    p.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`mariadb exited ${code}: ${err}`))));
    p.stdin.end(input);
  });
}

/** A BENCHMARK(n, MD5()) count that takes about `ms` of server time on this machine. */
async function calibrate(conn: Awaited<ReturnType<ReturnType<typeof createServerControl>['connect']>>, ms: number): Promise<string> {
  const timer = await detectTimer(conn);
  let n = 2000;
  for (let i = 0; i < 10; i++) {
    const b = await measureBatch(conn, `SELECT BENCHMARK(${n}, MD5('varlab'))`, 5, timer, await historyMark(conn, timer));
    const v = median(b.executions.filter((x) => x !== null).map((x) => x.value));
    if (Math.abs(v - ms) / ms < 0.1) break;
    n = Math.max(1, Math.round((n * ms) / Math.max(v, 0.01)));
  }
  return `SELECT BENCHMARK(${n}, MD5('varlab'))`;
}

export async function bench(): Promise<void> {
  if (!process.env.FIDELITY_PART || process.env.FIDELITY_PART === 'time') await serverTime();
  if (!process.env.FIDELITY_PART || process.env.FIDELITY_PART === 'overhead') await overheads();
  // Not in the default run: what of varlab's way makes its server time differ from the by-hand loop's.
  if (process.env.FIDELITY_PART === 'clients') await serverTimeClients();
}

async function serverTime(): Promise<void> {
  await withSandbox('fidelity', async ({ dir, session, profile }) => {
    const control = createServerControl(session, profile);

    // The database both sides use, and a BENCHMARK() count for each size.
    await control.restart([], {});
    const admin = await control.connect();
    await admin.query('CREATE DATABASE IF NOT EXISTS varlab_bench');
    const timer = await detectTimer(admin);
    const sizes: { label: string; sql: string }[] = [];
    for (const ms of [0.5, 1]) sizes.push({ label: `~${ms} ms`, sql: await calibrate(admin, ms) });
    await admin.end();
    console.log(`server first: ${serverFirstMessage()?.message ?? 'not connected'}`);
    console.log(`timer: ${timer.source}; ${ROUNDS} rounds of A (varlab) B (by hand) per size, ${REPS} executions each, the first ${WARM} left out; batch ${BATCH}`);

    let run = 0;
    for (const size of sizes) {
      const a: number[] = [];
      const b: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        // A: varlab, one restart of a run.
        const values: number[] = [];
        const engine = new RunEngine({
          path: join(dir, `a${++run}.varlab.json`),
          doc: oneQuery('fidelity bench', profile, size.sql, 1, REPS),
          prompt: async () => ({ accept: false }),
          onEvent: (e) => {
            if (e.type === 'execution') values.push(e.value);
          },
        });
        const out = await engine.run();
        if (out.state !== 'finished') throw new Error(`varlab run ${out.state}: ${out.message}`);
        a.push(median(values.slice(WARM)));
        // B: by hand, the same restart, then the mariadb client.
        await control.restart([], {});
        const read = `SELECT CONCAT('T ', TIMER_WAIT) FROM performance_schema.events_statements_history_long WHERE THREAD_ID = (SELECT THREAD_ID FROM performance_schema.threads WHERE PROCESSLIST_ID = CONNECTION_ID()) AND SQL_TEXT = '${size.sql.replace(/'/g, "''")}' ORDER BY EVENT_ID;`;
        const text = await client(profile, `${`${size.sql};\n`.repeat(REPS)}${read}\n`);
        const hand = text.split('\n').filter((l) => l.startsWith('T ')).map((l) => Number(l.slice(2)) / 1e9);
        if (hand.length !== REPS) throw new Error(`by hand: ${hand.length} of ${REPS} figures`);
        b.push(median(hand.slice(WARM)));
        await control.stop();
      }
      const ratio = median(a) / median(b);
      console.log(
        `${size.label.padEnd(8)} ${size.sql}\n` +
          `         varlab median ${f(median(a))} ms (rounds ${a.map((x) => f(x)).join(' ')})\n` +
          `         by hand median ${f(median(b))} ms (rounds ${b.map((x) => f(x)).join(' ')})\n` +
          `         ratio varlab / by hand ${f(ratio)} (goal 1.00 ± 0.03)`,
      );
    }
  });
}

const RESTARTS = Number(process.env.FIDELITY_RESTARTS ?? 12);
const OVERHEAD_ROUNDS = Number(process.env.FIDELITY_OVERHEAD_ROUNDS ?? 4);

/** The overhead per restart, locally and over the test sshd. */
async function overheads(): Promise<void> {
  console.log(`overhead per restart beyond the server's start, idle and executions: ${OVERHEAD_ROUNDS} rounds of A (varlab) B (by hand), ${RESTARTS} restarts each, restarts 2…${RESTARTS - 1} counted`);
  await overhead('local');
  // As a real host's sshd runs (parent pid 1): the noise sample then reads the processes a real host
  // has above varlab's shell, not this bench's node, npm and shells as well.
  const sshd = await startSshd({ parentless: true });
  try {
    await overhead(sshd.target, { identity: sshd.keyFile, knownHosts: sshd.knownHostsFile });
  } finally {
    await sshd.stop();
  }
}

/** Per restart k of a series: when it began (client clock), its server start and its executions' server time (ms). */
interface Series {
  begin: number[];
  serverStart: number[];
  executions: number[];
}

/** Overhead of restarts 2 … n−1 of a series. */
const overheadOf = (s: Series) => s.begin.slice(1, -1).map((b, i) => s.begin[i + 2] - b - s.serverStart[i + 1] - s.executions[i + 1]);

/** What the bench keeps of each varlab restart: its steps, its server start, its place in time. */
interface Kept {
  seq: number;
  steps: NonNullable<RestartResult['steps']>;
  readyMs: number;
  startedAt: number;
  finishedAt: number;
}

async function overhead(target: string, auth?: TargetAuth): Promise<void> {
  const where = target === 'local' ? 'local' : 'over SSH';
  await withSandbox(
    `overhead-${target === 'local' ? 'local' : 'ssh'}`,
    async ({ dir, session, profile }) => {
      const control = createServerControl(session, profile);
      await control.restart([], {});
      const admin = await control.connect();
      await admin.query('CREATE DATABASE IF NOT EXISTS varlab_bench');
      const sql = await calibrate(admin, 1);
      await admin.end();
      await control.stop();
      const a: number[][] = [];
      const b: number[][] = [];
      const kept: Kept[] = [];
      const splitB: Record<string, number[]> = {};
      for (let round = 0; round < OVERHEAD_ROUNDS; round++) {
        a.push(overheadOf(await varlabSeries(join(dir, `overhead-${round}.varlab.json`), profile, sql, target, auth, kept)));
        const runB = await byHandRestarts(session, profile, sql, REPS, RESTARTS, 'varlab_bench');
        b.push(overheadOf(runB));
        for (const [k, v] of Object.entries(runB.split)) (splitB[k] ??= []).push(...v.slice(1, -1));
        await control.stop();
      }
      const ratio = median(a.flat()) / median(b.flat());
      console.log(
        `${where.padEnd(9)} varlab median ${f(median(a.flat()), 0)} ms (rounds ${a.map((x) => f(median(x), 0)).join(' ')})   ` +
          `by hand median ${f(median(b.flat()), 0)} ms (rounds ${b.map((x) => f(median(x), 0)).join(' ')})   ratio ${f(ratio, 2)} (goal ≤ 1.2)`,
      );
      const counted = kept.filter((r) => r.seq > 1 && r.seq < RESTARTS);
      const names = [...new Set(counted.flatMap((r) => Object.keys(r.steps)))] as (keyof Kept['steps'])[];
      const gaps = kept.flatMap((r, i) => (r.seq > 1 && r.seq < RESTARTS && kept[i + 1]?.seq === r.seq + 1 ? [kept[i + 1].startedAt - r.finishedAt] : []));
      console.log(
        `          varlab (median ms): ${names.map((k) => `${k} ${f(median(counted.map((r) => r.steps[k] ?? 0)), 0)}`).join(' · ')} · of start the server's ${f(median(counted.map((r) => r.readyMs)), 0)} · between restarts ${f(median(gaps), 0)}`,
      );
      console.log(`          by hand (median ms): ${Object.entries(splitB).map(([k, v]) => `${k} ${f(median(v), 0)}`).join(' · ')}`);
    },
    { target, auth },
  );
}

async function varlabSeries(path: string, profile: ServerProfile, sql: string, target: string, auth: TargetAuth | undefined, kept: Kept[]): Promise<Series> {
  const s: Series = { begin: [], serverStart: [], executions: [] };
  const engine = new RunEngine({
    path,
    doc: oneQuery('fidelity overhead bench', profile, sql, RESTARTS, REPS, target),
    auth,
    prompt: async () => ({ accept: false }),
    onEvent: (e) => {
      const i = 'seq' in e ? e.seq - 1 : -1;
      if (e.type === 'restart-started') {
        s.begin[i] = e.at;
        s.executions[i] = 0;
      } else if (e.type === 'tunables-verified') s.serverStart[i] = e.readyMs ?? 0;
      else if (e.type === 'execution') s.executions[i] += e.value;
      else if (e.type === 'restart-finished') kept.push({ seq: e.seq, steps: e.steps ?? {}, readyMs: s.serverStart[i], startedAt: s.begin[i], finishedAt: e.at });
    },
  });
  const out = await engine.run();
  if (out.state !== 'finished') throw new Error(`varlab run ${out.state}: ${out.message}`);
  return s;
}

const CLIENT_ROUNDS = Number(process.env.FIDELITY_CLIENT_ROUNDS ?? 20);
/** FIDELITY_PIN=apart: mysqld on CPU 0, every client (this process, the mariadb client) on CPU 1; same: all on CPU 0. */
const PIN = process.env.FIDELITY_PIN === 'apart' || process.env.FIDELITY_PIN === 'same' ? process.env.FIDELITY_PIN : null;

/**
 * `FIDELITY_PART=clients`: the ~1 ms query's server time by each way of sending it, one step apart
 * from the by-hand loop to varlab, rounds rotated (each after a restart of the server):
 *   by hand         the mariadb client as root, fed the query through stdin (the server-time part's B)
 *   mysql2 root     varlab's query loop (measureBatch) on a login of its own as root
 *   mysql2 account  the same as a read-only account like varlab_measure
 *   mysql2 switched the same, the root login switched to the account by COM_CHANGE_USER (varlab's way)
 *   varlab          a RunEngine restart (the server-time part's A)
 * Per way: the median of round medians (executions after the first WARM) over the by-hand one, the
 * 10th percentile of all executions over the by-hand one (less touched by load), and the server's gap
 * between two executions (TIMER_START of one less TIMER_END of the one before, µs).
 */
async function serverTimeClients(): Promise<void> {
  const PW = 'fidelity-Bench-1';
  const clientCpu = PIN === 'apart' ? '1' : '0';
  if (PIN) execFileSync('taskset', ['-apc', clientCpu, String(process.pid)], { stdio: 'ignore' });
  await withSandbox('fidelity-clients', async ({ dir, session, profile }) => {
    const control = createServerControl(session, profile);
    await control.restart([], {});
    const admin = await control.connect();
    await admin.query('CREATE DATABASE IF NOT EXISTS varlab_bench');
    for (const h of ['localhost', '127.0.0.1']) {
      await admin.query(`CREATE USER IF NOT EXISTS 'fidelity'@'${h}' IDENTIFIED BY '${PW}'`);
      await admin.query(`GRANT SELECT ON varlab_bench.* TO 'fidelity'@'${h}'`);
      for (const t of ['events_statements_history', 'events_statements_history_long', 'threads', 'setup_consumers']) await admin.query(`GRANT SELECT ON performance_schema.${t} TO 'fidelity'@'${h}'`);
    }
    const sql = await calibrate(admin, Number(process.env.FIDELITY_CLIENT_MS ?? 1));
    await admin.end();
    const read = `SELECT CONCAT('T ', TIMER_WAIT, ' ', TIMER_START, ' ', TIMER_END) FROM performance_schema.events_statements_history_long WHERE THREAD_ID = (SELECT THREAD_ID FROM performance_schema.threads WHERE PROCESSLIST_ID = CONNECTION_ID()) AND SQL_TEXT = '${sql.replace(/'/g, "''")}' ORDER BY EVENT_ID`;
    const gaps: Record<string, number[]> = {};
    /** The figures of `T WAIT START END` lines (ms), the gaps between them kept under `way`. */
    const figures = (way: string, lines: string[]) => {
      const rows = lines.filter((l) => l.startsWith('T ')).map((l) => l.slice(2).split(' ').map(Number));
      for (let i = WARM + 1; i < rows.length; i++) (gaps[way] ??= []).push((rows[i][1] - rows[i - 1][2]) / 1e6);
      return rows.map((r) => r[0] / 1e9);
    };
    const mysql2Way = async (way: string, conn: Awaited<ReturnType<typeof control.connect>>) => {
      const timer = await detectTimer(conn);
      await measureBatch(conn, sql, REPS, timer, await historyMark(conn, timer));
      const [rows] = await conn.query(read);
      await conn.end();
      return figures(way, (rows as Record<string, string>[]).map((r) => String(Object.values(r)[0])));
    };
    const login = (user: string, password: string) => createConnection({ socketPath: profile.socket, user, password, database: 'varlab_bench' });
    let run = 0;
    const ways: Record<string, () => Promise<number[]>> = {
      'by hand': async () => figures('by hand', (await client(profile, `${`${sql};\n`.repeat(REPS)}${read};\n`, PIN ? clientCpu : undefined)).split('\n')),
      'mysql2 root': async () => mysql2Way('mysql2 root', await login(profile.user, '')),
      'mysql2 account': async () => mysql2Way('mysql2 account', await login('fidelity', PW)),
      'mysql2 switched': async () => {
        const conn = await login(profile.user, '');
        await conn.query("SHOW GLOBAL VARIABLES WHERE Variable_name IN ('performance_schema')");
        await conn.changeUser({ user: 'fidelity', password: PW, database: 'varlab_bench' });
        return mysql2Way('mysql2 switched', conn);
      },
      varlab: async () => {
        const values: number[] = [];
        await control.stop();
        const engine = new RunEngine({ path: join(dir, `c${++run}.varlab.json`), doc: oneQuery('fidelity clients', profile, sql, 1, REPS), prompt: async () => ({ accept: false }), onEvent: (e) => {
            if (e.type === 'execution') values.push(e.value);
            // Pinned once verified (the verify is before the measuring), as the other ways after their restart.
            else if (PIN && e.type === 'tunables-verified' && e.pid) execFileSync('taskset', ['-apc', '0', String(e.pid)], { stdio: 'ignore' });
          },
        });
        const out = await engine.run();
        if (out.state !== 'finished') throw new Error(`varlab run ${out.state}: ${out.message}`);
        return values;
      },
    };
    const names = Object.keys(ways);
    const rounds: Record<string, number[]> = {};
    const all: Record<string, number[]> = {};
    for (let r = 0; r < CLIENT_ROUNDS; r++) {
      for (const way of r % 2 ? [...names].reverse() : names) {
        if (way !== 'varlab') await control.restart([], {});
        // Each of mysqld's threads on CPU 0 (varlab's own restart pins its mysqld once it is verified).
        if (PIN && way !== 'varlab') execFileSync('taskset', ['-apc', '0', readFileSync(profile.pidFile ?? join(profile.datadir, 'mysqld.pid'), 'utf8').trim()], { stdio: 'ignore' });
        const v = await ways[way]();
        if (v.length !== REPS) throw new Error(`${way}: ${v.length} of ${REPS} figures`);
        (rounds[way] ??= []).push(median(v.slice(WARM)));
        (all[way] ??= []).push(...v.slice(WARM));
      }
    }
    await control.stop();
    const p10 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(0.1 * (xs.length - 1))];
    console.log(`server first: ${serverFirstMessage()?.message ?? 'not connected'}`);
    console.log(`${sql}: ${CLIENT_ROUNDS} rounds of each way, ${REPS} executions, the first ${WARM} left out`);
    for (const way of names) {
      console.log(
        `${way.padEnd(16)} median ${f(median(rounds[way]))} ms (×${f(median(rounds[way]) / median(rounds['by hand']))})   p10 ${f(p10(all[way]))} ms (×${f(p10(all[way]) / p10(all['by hand']))})` +
          `   gap between executions ${gaps[way] ? `${f(median(gaps[way]), 1)} µs` : '-'}`,
      );
    }
  });
}
