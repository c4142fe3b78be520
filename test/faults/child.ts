// One varlab run for the fault suite, as a process of its own (so it can be SIGKILLed and started
// again): the same run service as `varlab run`, with the host layer pointed at the suite's own host
// files (VARLAB_FAULTS_PATHS, JSON) instead of /sys. Every event is one JSON line on stdout, then
// one `outcome` line; exit 0 finished, 1 failed, 130 cancelled, 2 refused before it ran.
//   node --import tsx test/faults/child.ts FILE TARGET IDENTITY KNOWN_HOSTS
import { ApiError } from '../../src/common/api.js';
import { DocumentService } from '../../src/node/documents/service.js';
import { defaultHostLayer } from '../../src/node/engine/hostlayer.js';
import { RunService } from '../../src/node/runs/service.js';

const [file, target, identity, knownHosts] = process.argv.slice(2);
const paths = JSON.parse(process.env.VARLAB_FAULTS_PATHS ?? '{}');
const say = (o: object) => process.stdout.write(JSON.stringify(o) + '\n');
// Nobody answers: a restore record found on connecting is left to the run's own restore.
const prompt = async () => ({ accept: false });
const service = new RunService({ documents: new DocumentService(), prompt, host: defaultHostLayer(paths) });
const keepAlive = setInterval(() => {}, 60_000);
try {
  const started = await service.start({ file, target, auth: { identity, knownHosts }, consent: async () => {}, onEvent: say, reconnect: { firstDelayMs: 200, maxDelayMs: 2_000 } });
  for (const line of started.said) say({ type: 'said', message: line });
  const o = await started.done;
  say({ type: 'outcome', state: o.state, message: o.message, transient: o.transient, done: o.done, planned: o.planned });
  process.exitCode = o.state === 'finished' ? 0 : o.state === 'cancelled' ? 130 : 1;
} catch (e) {
  say({ type: 'outcome', state: 'refused', code: e instanceof ApiError ? e.code : 'internal', message: (e as Error).message });
  process.exitCode = 2;
} finally {
  clearInterval(keepAlive);
}
