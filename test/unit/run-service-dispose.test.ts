// dispose() of the run service (issue 26): a run admitted while dispose began does not escape it (R5),
// and the runs of this process are cancelled at once, not after the detached runs it follows let go (R4).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DocumentService } from '../../src/node/documents/service.js';
import { RunService } from '../../src/node/runs/service.js';

const dir = mkdtempSync(join(tmpdir(), 'varlab-dispose-'));
process.env.VARLAB_HOME = join(dir, 'home');
after(() => rmSync(dir, { recursive: true, force: true }));

test('R5: a run whose consent was still being given when dispose began is refused, and runs nothing', async () => {
  const file = join(dir, 'q.varlab.json');
  const doc = JSON.parse(readFileSync(join(import.meta.dirname, '../../examples/quickstart.varlab.json'), 'utf8'));
  // A server that never starts: the run must not get as far as trying.
  doc.design.serverProfile = { target: 'local', kind: 'direct', mysqld: '/bin/false', datadir: join(dir, 'data'), socket: join(dir, 's.sock'), port: 3399, user: 'root', extraArgs: [], sudo: false };
  writeFileSync(file, JSON.stringify(doc));
  const service = new RunService({ documents: new DocumentService(), prompt: async () => ({ accept: false }) });
  let agree!: () => void;
  const consenting = new Promise<void>((r) => (agree = r));
  let asked!: () => void;
  const inConsent = new Promise<void>((r) => (asked = r));
  const starting = service.start({
    file,
    consent: async () => {
      asked();
      await consenting;
    },
  });
  await inConsent;
  assert.equal(await service.dispose(1_000), 'no run was going on');
  agree();
  await assert.rejects(starting, /varlab is shutting down: no new run starts/);
  assert.deepEqual(service.status(), [], 'no run is left behind');
  assert.equal(existsSync(`${file}.journal.jsonl`), false, 'no journal was opened');
});

test('R4: the runs of this process are cancelled at once, while a followed detached run is still being let go', async () => {
  const service = new RunService({ documents: new DocumentService(), prompt: async () => ({ accept: false }) });
  const internals = service as unknown as { runs: Map<string, unknown>; attachments: Map<string, unknown> };
  let cancelledAt = 0;
  let letGo!: () => void;
  const following = new Promise((r) => (letGo = () => r({ state: 'detached', planned: 1, done: 0, path: 'f', target: 't', cleanedUp: false, signalled: false })));
  internals.attachments.set('d', { runId: 'd', path: '/x/d.varlab.json', target: 'far', status: () => ({ state: 'running', detached: { target: 'far', following: true } }), detach: () => setTimeout(letGo, 2_000), done: following });
  let finish!: (o: unknown) => void;
  const done = new Promise((r) => (finish = r));
  internals.runs.set('a', {
    runId: 'a',
    path: '/x/a.varlab.json',
    target: 'near',
    engine: { cancel: () => ((cancelledAt = Date.now()), finish({ state: 'cancelled', planned: 4, done: 1 })), status: () => ({ state: 'running' }) },
    done,
  });
  const t0 = Date.now();
  const said = await service.dispose(10_000);
  assert.ok(cancelledAt > 0 && cancelledAt - t0 < 500, `the attached run was cancelled ${cancelledAt - t0} ms after dispose began, not after the follower let go`);
  assert.match(said, /a\.varlab\.json: cancelled after 1 of 4 restarts/);
  assert.match(said, /stopped following 1 detached run; it goes on on far/);
});
