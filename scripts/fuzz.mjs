// `npm run test:fuzz`: the long form of the property-based fuzzing in test/unit/fuzz.test.ts, 10,000
// cases per property (the short form runs inside `npm test`). Prints what was accepted and refused.
// VARLAB_FUZZ_RUNS and VARLAB_FUZZ_SEED override the count and fix the seed (to replay a failure).
import { spawnSync } from 'node:child_process';

const env = { ...process.env, VARLAB_FUZZ_RUNS: process.env.VARLAB_FUZZ_RUNS ?? '10000' };
const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', 'test/unit/fuzz.test.ts'], { stdio: 'inherit', env });
process.exit(r.status ?? 1);
