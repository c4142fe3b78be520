// The by-hand driver the fidelity bench compares varlab's restarts with: what a careful engineer would
// script, as the floor. Each restart is one remote call of a POSIX sh script (over the same kind of
// session varlab uses, so the transport is the same on both sides): kill -TERM mysqld and wait until it
// is gone, nohup mysqld with the very options varlab starts it with, poll a `mariadb` client login until
// it answers, then one `mariadb` client fed the query `reps` times through stdin, back to back, and
// performance_schema's history read after the loop. Nothing is checked or journaled.
import type { ServerProfile } from '../../../src/common/experiment/types.js';
import { pidFileOf } from '../../../src/common/profile.js';
import { shellQuote, type TargetSession } from '../../../src/node/host/index.js';
import { mysqldArgs, mysqldUser } from '../../../src/node/host/script.js';

export interface ByHandSeries {
  /** Per restart: when its call began (client clock, epoch ms). */
  begin: number[];
  /** Per restart: mysqld launched → a client login answers (ms). */
  serverStart: number[];
  /** Per restart: the executions' server time (ms, TIMER_WAIT). */
  executions: number[];
  /** Per restart, where the rest went (ms): stop, the client beyond the executions, the call itself. */
  split: Record<'stop' | 'start+login' | 'client' | 'call', number[]>;
}

const q = shellQuote;

function script(profile: ServerProfile, sql: string, reps: number, database: string): string {
  const args = [profile.mysqld, ...mysqldArgs(profile, [], mysqldUser(profile, { user: 'root' }))];
  const client = ['mariadb', '--no-defaults', `--socket=${profile.socket}`, `--user=${profile.user}`].map(q).join(' ');
  const read = `SELECT CONCAT('T ', TIMER_WAIT) FROM performance_schema.events_statements_history_long WHERE THREAD_ID = (SELECT THREAD_ID FROM performance_schema.threads WHERE PROCESSLIST_ID = CONNECTION_ID()) AND SQL_TEXT = '${sql.replace(/'/g, "''")}' ORDER BY EVENT_ID;`;
  return [
    // Gone or a zombie, read without starting a process, as varlab's own script reads it.
    `alive() { l=; read -r l 2>/dev/null < "/proc/$1/stat"; case "\${l##*) }" in ''|Z*) return 1 ;; esac; }`,
    't0=$(date +%s%N)',
    `read -r pid 2>/dev/null < ${q(pidFileOf(profile))}`,
    // Looked at every 10 ms, as varlab looks: the floor is as quick to see the end as varlab is.
    'if [ -n "$pid" ] && alive "$pid"; then kill -TERM "$pid"; while alive "$pid"; do sleep 0.01; done; fi',
    't1=$(date +%s%N)',
    `cd / && nohup ${args.map(q).join(' ')} </dev/null >>${q(profile.errorLog ?? '/dev/null')} 2>&1 &`,
    `i=0; until ${client} -e '' 2>/dev/null; do i=$((i+1)); [ $i -gt 2400 ] && { echo "no login after 120 s: $(${client} -e '' 2>&1)" >&2; exit 1; }; sleep 0.05; done`,
    't2=$(date +%s%N)',
    `${client} -N -B ${q(database)} <<'VARLAB_EOF'`,
    `${`${sql};\n`.repeat(reps)}${read}`,
    'VARLAB_EOF',
    't3=$(date +%s%N)',
    'echo "@t $t0 $t1 $t2 $t3"',
  ].join('\n');
}

/** `restarts` restarts by hand on the profile's server (left running after the last). */
export async function byHandRestarts(session: TargetSession, profile: ServerProfile, sql: string, reps: number, restarts: number, database: string): Promise<ByHandSeries> {
  const text = script(profile, sql, reps, database);
  const out: ByHandSeries = { begin: [], serverStart: [], executions: [], split: { stop: [], 'start+login': [], client: [], call: [] } };
  for (let k = 0; k < restarts; k++) {
    const begin = Date.now();
    const r = await session.exec(text, { timeoutMs: 300_000 });
    const wall = Date.now() - begin;
    const t = /^@t (\d+) (\d+) (\d+) (\d+)$/m.exec(r.stdout);
    const figures = r.stdout.split('\n').filter((l) => l.startsWith('T ')).map((l) => Number(l.slice(2)) / 1e9);
    if (r.code !== 0 || !t || figures.length !== reps) throw new Error(`by hand, restart ${k + 1}: exit ${r.code}, ${figures.length} of ${reps} figures: ${r.stderr}`);
    const [t0, t1, t2, t3] = t.slice(1).map((x) => Number(x) / 1e6);
    const executions = figures.reduce((a, b) => a + b, 0);
    out.begin.push(begin);
    out.serverStart.push(t2 - t1);
    out.executions.push(executions);
    out.split.stop.push(t1 - t0);
    out.split['start+login'].push(t2 - t1);
    out.split.client.push(t3 - t2 - executions);
    out.split.call.push(wall - (t3 - t0));
  }
  return out;
}
