// The run engine's benchmark, on a loopback sandbox (target `local`, a mariadbd varlab starts):
// (a) what varlab's path adds to a query's time: client round trip vs the server's own statement timer,
//     for a ~1 ms and a ~50 ms query, and the extra coefficient of variation;
// (b) time from "mysqld started" to "first measurement", beyond the server's own start time;
// (c) executions recorded per second with the journal on, for SELECT 1.
// Prints numbers only; asserts nothing about time.
import { join } from 'node:path';
import type { Connection } from 'mysql2/promise';
import type { ServerProfile } from '../../src/common/experiment/types.js';
import { createServerControl, type StartedServer } from '../../src/node/host/index.js';
import { oneQuery, withSandbox } from './lib/sandbox.js';
import { RunEngine } from '../../src/node/engine/run.js';
import { defaultHostLayer, type HostLayer } from '../../src/node/engine/hostlayer.js';
import { BATCH, detectTimer, historyMark, measureBatch, type Measurement, type ServerTimer } from '../../src/node/workloads/queries.js';

/** `n` executions as the query loop runs them: back to back in batches, the figures read after each. */
async function measureN(conn: Connection, sql: string, timer: ServerTimer, n: number): Promise<Measurement[]> {
  const out: Measurement[] = [];
  let after = await historyMark(conn, timer);
  while (out.length < n) {
    const b = await measureBatch(conn, sql, Math.min(BATCH, n - out.length), timer, after);
    after = b.last;
    for (const m of b.executions) if (m) out.push(m);
  }
  return out;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const sd = (xs: number[]) => {
  const m = mean(xs);
  return Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / (xs.length - 1));
};
const cv = (xs: number[]) => sd(xs) / mean(xs);
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const f = (x: number, d = 3) => x.toFixed(d);
const pct = (x: number) => `${(x * 100).toFixed(2)}%`;

const experiment = (profile: ServerProfile, sql: string, restarts: number, repetitions: number) => oneQuery('engine bench', profile, sql, restarts, repetitions);

/** A BENCHMARK() loop count that takes about `ms` on this machine. */
async function calibrate(conn: Connection, ms: number): Promise<number> {
  const timer = await detectTimer(conn);
  let n = 1000;
  for (let i = 0; i < 12; i++) {
    const [m] = await measureN(conn, `SELECT BENCHMARK(${n}, MD5('varlab'))`, timer, 1);
    if (m.value > ms * 0.8 && m.value < ms * 1.25) break;
    n = Math.max(1, Math.round((n * ms) / Math.max(m.value, 0.01)));
  }
  return n;
}

export async function bench(): Promise<void> {
  await withSandbox('engine', async ({ dir, session, profile }) => {
    // (a) varlab's path vs the server's own timer.
    const control = createServerControl(session, profile);
    await control.restart([], {});
    const conn = await control.connect();
    const timer = await detectTimer(conn);
    const n1 = await calibrate(conn, 1);
    console.log(`(a) server-side timer: ${timer.source}; the ~1 ms query is SELECT BENCHMARK(${n1}, MD5('varlab')), the ~50 ms query SELECT SLEEP(0.05)`);
    for (const [label, sql, runs] of [
      ['~1 ms', `SELECT BENCHMARK(${n1}, MD5('varlab'))`, 300],
      ['~50 ms', 'SELECT SLEEP(0.05)', 60],
    ] as const) {
      await measureN(conn, sql, timer, 5);
      const all = await measureN(conn, sql, timer, runs);
      const server = all.map((m) => m.value);
      const client = all.map((m) => m.client);
      const diff = client.map((c, i) => c - server[i]);
      console.log(
        `    ${label.padEnd(6)} n=${runs}  server mean ${f(mean(server))} ms  varlab round trip mean ${f(mean(client))} ms  ` +
          `difference mean ${f(mean(diff))} ms median ${f(median(diff))} ms  CV server ${pct(cv(server))}  CV varlab ${pct(cv(client))}  extra CV ${pct(cv(client) - cv(server))}`,
      );
    }
    await conn.end();
    await control.stop();

    // (b) "mysqld started" → first measurement, beyond the server's own start, through the whole engine.
    const starts: StartedServer[] = [];
    const firstMeasurement = new Map<number, number>();
    const base = defaultHostLayer();
    const host: HostLayer = {
      ...base,
      async createServerControl(s, p, o) {
        const c = await base.createServerControl(s, p, o);
        return {
          ...c,
          run: async (proc) => {
            const st = await c.run(proc);
            starts.push(st);
            return st;
          },
          stop: () => c.stop(),
          restore: () => c.restore(),
          connect: (db) => c.connect(db),
        };
      },
    };
    const restarts = 8;
    const engineB = new RunEngine({
      path: join(dir, 'b.varlab.json'),
      doc: experiment(profile, 'SELECT 1', restarts, 1),
      prompt: async () => ({ accept: false }),
      host,
      onEvent: (e) => {
        if (e.type === 'execution' && !firstMeasurement.has(e.seq)) firstMeasurement.set(e.seq, e.at - (e.client ?? 0));
      },
    });
    const outB = await engineB.run();
    if (outB.state !== 'finished') throw new Error(`(b) run ${outB.state}: ${outB.message}`);
    // The first restart also ran the setup script (and restarted again): leave it out.
    const last = starts.slice(-(restarts - 1));
    const overhead = last.map((st, i) => firstMeasurement.get(i + 2)! - (st.startedAt + st.readyMs));
    console.log(
      `(b) over ${last.length} restarts: server start to accepting connections median ${f(median(last.map((s) => s.readyMs)), 0)} ms; ` +
        `then to the first measurement (verify, connect, timer, journal) median ${f(median(overhead), 1)} ms, max ${f(Math.max(...overhead), 1)} ms`,
    );

    // (c) executions recorded per second with the journal on.
    const reps = 3000;
    const at: number[] = [];
    const engineC = new RunEngine({
      path: join(dir, 'c.varlab.json'),
      doc: experiment(profile, 'SELECT 1', 1, reps),
      prompt: async () => ({ accept: false }),
      onEvent: (e) => {
        if (e.type === 'execution') at.push(performance.now());
      },
    });
    const outC = await engineC.run();
    if (outC.state !== 'finished') throw new Error(`(c) run ${outC.state}: ${outC.message}`);
    const seconds = (at[at.length - 1] - at[0]) / 1000;
    console.log(`(c) SELECT 1 x ${reps} with the journal on: ${f((at.length - 1) / seconds, 0)} executions recorded per second`);
  });
}
