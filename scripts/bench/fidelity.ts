// Issue 22's fidelity bench, on a loopback sandbox (target `local`, a mariadbd varlab makes): does
// varlab measure what a careful engineer measures by hand? For a ~0.5 ms and a ~1 ms query, rounds
// alternate A B A B on the same server in the same window:
//   A  varlab: one restart of a run (RunEngine), the query REPS times, its server times;
//   B  by hand: the same restart (ServerControl), then the `mariadb` client fed the query REPS times
//      through stdin, back to back, and events_statements_history_long read after the loop.
// Each round's figure is the median of its executions after the first WARM; the ratio is varlab's
// median of round figures over the by-hand one (goal 1.00 ± 0.03). Prints numbers only.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { ServerProfile } from '../../src/common/experiment/types.js';
import { createServerControl } from '../../src/node/host/index.js';
import { RunEngine } from '../../src/node/engine/run.js';
import { oneQuery, withSandbox } from './lib/sandbox.js';
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
function client(profile: ServerProfile, input: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const p = spawn('mariadb', ['--no-defaults', `--socket=${profile.socket}`, `--user=${profile.user}`, '-N', '-B', 'varlab_bench'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (err += d));
    p.on('error', reject);
    p.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`mariadb exited ${code}: ${err}`))));
    p.stdin.end(input);
  });
}

export async function bench(): Promise<void> {
  await withSandbox('fidelity', async ({ dir, session, profile }) => {
    const control = createServerControl(session, profile);

    // The database both sides use, and a BENCHMARK() count for each size.
    await control.restart([], {});
    const admin = await control.connect();
    await admin.query('CREATE DATABASE IF NOT EXISTS varlab_bench');
    const timer = await detectTimer(admin);
    const sizes: { label: string; sql: string }[] = [];
    for (const ms of [0.5, 1]) {
      let n = 2000;
      for (let i = 0; i < 10; i++) {
        const b = await measureBatch(admin, `SELECT BENCHMARK(${n}, MD5('varlab'))`, 5, timer, await historyMark(admin, timer));
        const v = median(b.executions.filter((x) => x !== null).map((x) => x.value));
        if (Math.abs(v - ms) / ms < 0.1) break;
        n = Math.max(1, Math.round((n * ms) / Math.max(v, 0.01)));
      }
      sizes.push({ label: `~${ms} ms`, sql: `SELECT BENCHMARK(${n}, MD5('varlab'))` });
    }
    await admin.end();
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
