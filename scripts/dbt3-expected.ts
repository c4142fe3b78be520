// Makes the table of expected query results in src/common/dbt3/expected.ts: loads the generator's
// data at an SF into a throwaway local sandbox mariadbd, runs the 22 queries and prints each one's
// row count and checksum. Usage: tsx scripts/dbt3-expected.ts [SF] [SEED]
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_SEED, GENERATOR_VERSION } from '../src/common/dbt3/generate.js';

const sf = Number(process.argv[2] ?? 0.01);
const seed = Number(process.argv[3] ?? DEFAULT_SEED);
const dir = mkdtempSync(join(tmpdir(), 'varlab-dbt3-expected-'));
chmodSync(dir, 0o755);
process.env.VARLAB_HOME = join(dir, 'varlab');
const { createSandbox, createServerControl, openTarget, removeSandbox } = await import('../src/node/host/index.js');
const { loadDbt3, checkDbt3Queries } = await import('../src/node/workloads/dbt3.js');

const session = await openTarget('local', { prompt: async () => ({ accept: false }) });
const { profile } = await createSandbox(session, { parent: dir, bufferPool: '256M' });
const control = createServerControl(session, profile, { paths: { records: join(dir, 'records') } });
try {
  await control.restart([], {});
  const conn = await control.connect();
  const out = await loadDbt3(conn, 'dbt3', { sf, seed }, { skipCheck: true });
  const checks = await checkDbt3Queries(conn, { sf, seed });
  await conn.end();
  console.error(`loaded ${JSON.stringify(out.rows)} in ${out.ms} ms`);
  const body = checks.map((c) => `    ${c.query}: { rows: ${c.rows}, checksum: '${c.checksum}' },`).join('\n');
  console.log(`  '${sf}:${seed}:${GENERATOR_VERSION}': {\n${body}\n  },`);
} finally {
  await control.stop().catch(() => {});
  await removeSandbox(session, profile).catch(() => {});
  await session.close();
  rmSync(dir, { recursive: true, force: true });
}
