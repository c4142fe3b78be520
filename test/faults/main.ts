// `npm run test:faults`: the long form of the fault suite (suite.ts), at least VARLAB_FAULTS_EACH
// (default 20) injections of every fault. The seed is printed; VARLAB_FAULTS_SEED replays a run's
// random points, VARLAB_FAULTS_ONLY (comma-separated fault names) runs some faults only.
// Exit 0 when every injected fault was survived.
import { hostname, cpus } from 'node:os';
import { FAULTS, faultTable, runFaultSuite, type Fault } from './suite.js';

const seed = process.env.VARLAB_FAULTS_SEED ? Number(process.env.VARLAB_FAULTS_SEED) : Math.floor(Math.random() * 2 ** 31);
const each = Number(process.env.VARLAB_FAULTS_EACH ?? 20);
const only = process.env.VARLAB_FAULTS_ONLY?.split(',').map((s) => s.trim()) as Fault[] | undefined;
if (!Number.isInteger(seed) || !Number.isInteger(each) || each < 1) throw new Error('VARLAB_FAULTS_SEED and VARLAB_FAULTS_EACH must be whole numbers (EACH at least 1)');
const unknown = only?.filter((f) => !FAULTS.includes(f));
if (unknown?.length) throw new Error(`VARLAB_FAULTS_ONLY: unknown fault ${unknown.join(', ')}; the faults are ${FAULTS.join(', ')}`);

// Ctrl-C or a timeout: the suite's finally stops sshd and mysqld and unmounts its disk before leaving.
const stop = new AbortController();
for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => stop.abort());
const started = Date.now();
console.log(`fault suite: seed ${seed} (replay with VARLAB_FAULTS_SEED=${seed}), at least ${each} of each fault, on ${hostname()} (${cpus().length} CPUs)`);
const { rows, disk } = await runFaultSuite({ each, seed, faults: only ?? FAULTS, log: (l) => console.log(l), signal: stop.signal });
console.log(`\n${faultTable(rows)}`);
console.log(`\nseed ${seed}; journal disk: ${disk === 'none' ? 'none (not filled)' : disk}; ${((Date.now() - started) / 60000).toFixed(1)} min; ${new Date().toISOString()}`);
for (const r of rows) if (r.notInjected) console.log(`${r.fault}: not injected: ${r.notInjected}`);
const lost = rows.flatMap((r) => r.problems);
if (lost.length) console.log(`\nnot survived:\n${lost.map((p) => `  ${p}`).join('\n')}`);
process.exitCode = lost.length ? 1 : 0;
