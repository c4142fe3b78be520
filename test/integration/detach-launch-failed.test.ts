// A detached run whose launch fails after its journal opened (here the target refuses a runs folder
// others can write, as it must): the journal ends with why, the file's log keeps it, and run.check
// says how the last attempt ended, as for an attached run that failed. Before, the journal had no end,
// the file said nothing and only the launching terminal had seen why. The real sandbox sshd.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';
import type { JournalRecord } from '../../src/common/records.js';
import { DocumentService } from '../../src/node/documents/service.js';
import { defaultHostLayer } from '../../src/node/engine/hostlayer.js';
import { journalPath } from '../../src/node/engine/journal.js';
import { profileDir } from '../../src/node/host/restore.js';
import { RunService } from '../../src/node/runs/service.js';
import { keepCells, quickstartCopy, runEnvForTests } from './run-env.js';

const env = runEnvForTests({ varlabHome: true });

test('a detached launch refused by the target after the journal opened: the journal ends failed with why, the file keeps it, run.check says it', { timeout: 300_000 }, async () => {
  const file = quickstartCopy(env, 'launch-refused', (d) => {
    keepCells(d, ['aslr=on,ahi=on,preload=off,numa=default']);
    d.design.target = env.sshd.target;
    d.design.restartsPerCell = 1;
    d.design.workload.queries = d.design.workload.queries.slice(0, 1);
    d.design.workload.repetitions = 2;
    d.design.workload.warmup = 1;
  });
  const doc = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
  const runs = `${profileDir(doc.design.serverProfile ?? env.profile, defaultHostLayer().paths!)}/runs`;
  mkdirSync(runs, { recursive: true });
  chmodSync(runs, 0o777);
  try {
    const service = new RunService({ documents: new DocumentService(), prompt: async () => ({ accept: false }) });
    await assert.rejects(service.detach({ file, auth: { identity: env.sshd.keyFile, knownHosts: env.sshd.knownHostsFile }, consent: async () => {} }), /refusing .*runs: it is not owned by uid \d+ or others can write it/);
    const records = readFileSync(journalPath(file), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as JournalRecord);
    const end = records[records.length - 1];
    assert.equal(end.t, 'run-finished', JSON.stringify(records.map((r) => r.t)));
    assert.equal(end.t === 'run-finished' && end.state, 'failed');
    assert.match(end.t === 'run-finished' ? (end.message ?? '') : '', /^launching the detached run failed: .*refusing/);
    const saved = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
    assert.match(saved.results?.log?.at(-1)?.message ?? '', /launching the detached run failed: .*refusing/, JSON.stringify(saved.results?.log));
    const check = await service.check(file);
    assert.ok(!check.finished && check.unfinished, JSON.stringify(check));
    assert.match(check.unfinished.ended ?? '', /launching the detached run failed: .*refusing/);
  } finally {
    rmSync(runs, { recursive: true, force: true });
  }
});
