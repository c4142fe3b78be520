// The matrix designer in headless Chromium against the real browser-mode backend: the quickstart
// opens as a 16-cell grid, cells are excluded, the run order changes the plan, undo and redo,
// custom levels are checked inline, and a backend prompt asks for a password.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { ok, type Backend, type Events, type Prompt, type PromptAnswer } from '../../src/common/api.js';
import { createBackend } from '../../src/node/backend.js';
import { startServer } from '../../src/node/transport/websocket-server.js';
import { appForTests, openApp, openFile, openQuickstart, pageProblems } from './support.js';
import { roundsExperiment } from '../fixtures/rounds-experiment.js';
import { recordsOfRestart } from '../../src/common/records.js';
import { headerRecord, journalPath, runJournals } from '../../src/node/engine/journal.js';
import { hostDesign } from '../../src/common/plan.js';

const env = appForTests();

const problems = pageProblems;

const cell = (page: Page, id: string) => page.locator(`[data-testid=cell][data-cell="${id}"]`);

/** The plan as the user sees it: one entry per row of the plan table. */
async function planRows(page: Page): Promise<{ cell: string; round: number }[]> {
  await page.getByTestId('nav-plan').click();
  await page.getByTestId('plan').waitFor();
  return page.getByTestId('plan-row').evaluateAll((rows) => rows.map((r) => ({ cell: r.getAttribute('data-cell') ?? '', round: Number(r.getAttribute('data-round')) })));
}

test('the quickstart opens as a 16-cell grid', async () => {
  const page = await env.open();
  await openQuickstart(page);
  assert.equal(await page.getByTestId('cell-count').innerText(), '16 cells');
  assert.equal(await page.getByTestId('cell').count(), 16);
  assert.equal(await page.getByTestId('factor').count(), 4);
  assert.equal(await cell(page, 'aslr=off,ahi=on,preload=off,numa=interleave').count(), 1);
  assert.match(await page.getByTestId('experiment-name').inputValue(), /Quickstart/);
  assert.deepEqual(problems(page), []);
  await page.close();
});

test('excluding a cell drops its restarts from the plan; undo and redo', async () => {
  const page = await env.open();
  await openQuickstart(page);
  assert.equal((await planRows(page)).length, 80);
  await page.getByTestId('nav-design').click();

  const id = 'aslr=on,ahi=on,preload=off,numa=default';
  await cell(page, id).click();
  assert.equal(await page.getByTestId('cell-count').innerText(), '16 cells, 1 excluded');
  assert.match(await page.getByTestId('planned-count').innerText(), /15 planned cells × 5 restarts = 75 restarts/);
  assert.equal(await cell(page, id).getAttribute('data-excluded'), 'true');
  assert.equal(await page.getByTestId('dirty').count(), 1);

  const rows = await planRows(page);
  assert.equal(rows.length, 75, 'the plan drops restartsPerCell restarts');
  assert.ok(!rows.some((r) => r.cell === id), 'the excluded cell is not planned');

  await page.getByTestId('undo').click();
  assert.equal((await planRows(page)).length, 80);
  await page.getByTestId('nav-design').click();
  assert.equal(await page.getByTestId('cell-count').innerText(), '16 cells');
  assert.equal(await page.getByTestId('dirty').count(), 0, 'undoing back to the opened version is clean');

  await page.getByTestId('redo').click();
  assert.equal(await page.getByTestId('cell-count').innerText(), '16 cells, 1 excluded');
  await page.close();
});

test('the interleaved plan rotates the cells each round', async () => {
  const page = await env.open();
  await openQuickstart(page);
  await page.getByTestId('order-random').check();
  await page.getByTestId('order-interleaved').check();
  // The designer previews the rotation with the cells numbered as in the grid.
  assert.match(await page.getByTestId('order-preview').innerText(), /round 1:\s+1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\s+round 2:\s+2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 1\b/);
  const rows = await planRows(page);
  const round1 = rows.filter((r) => r.round === 1).map((r) => r.cell);
  const round2 = rows.filter((r) => r.round === 2).map((r) => r.cell);
  assert.equal(round1.length, 16);
  assert.equal(new Set(round1).size, 16, 'every cell once per round');
  assert.equal(round2[0], round1[1], 'round 2 starts with the second cell of round 1');
  assert.deepEqual(round2, [...round1.slice(1), round1[0]]);
  assert.match(await page.getByTestId('plan-estimate').innerText(), /estimated 6 min 40 s/);
  await page.close();
});

test('blocked order shows a warning, and undo brings back the interleaved order', async () => {
  const page = await env.open();
  await openQuickstart(page);
  assert.equal(await page.getByTestId('blocked-warning').count(), 0);
  await page.getByTestId('order-blocked').check();
  assert.match(await page.getByTestId('blocked-warning').innerText(), /drift/i);
  const rows = await planRows(page);
  assert.deepEqual(
    rows.slice(0, 5).map((r) => r.cell),
    Array(5).fill(rows[0].cell),
    'all restarts of a cell in a row',
  );
  assert.equal(await page.getByTestId('blocked-warning').count(), 1, 'the plan warns too');

  await page.getByTestId('nav-design').click();
  await page.keyboard.press('Control+z');
  assert.equal(await page.getByTestId('blocked-warning').count(), 0);
  assert.equal(await page.getByTestId('order-interleaved').isChecked(), true);
  await page.keyboard.press('Control+Shift+z');
  assert.equal(await page.getByTestId('order-blocked').isChecked(), true);
  await page.keyboard.press('Control+z');
  assert.equal(await page.getByTestId('order-interleaved').isChecked(), true);
  assert.match((await page.getByTestId('undo').getAttribute('title')) ?? '', /Ctrl\+Z/);
  await page.close();
});

test('levels switch as chips, custom levels are checked inline, and factors come from the catalog', async () => {
  const page = await env.open();
  await openQuickstart(page);
  const numa = page.locator('[data-testid=factor][data-factor=numa]');
  await numa.locator('[data-testid=level-chip][data-level="bind:0"]').click();
  assert.equal(await page.getByTestId('cell-count').innerText(), '24 cells');

  const aslr = page.locator('[data-testid=factor][data-factor=aslr]');
  await aslr.getByTestId('custom-level').fill('on; touch /tmp/x');
  assert.match(await aslr.getByTestId('factor-problem').innerText(), /not valid for ASLR: expected on, off or off-host/);
  assert.equal(await aslr.getByTestId('add-level').isDisabled(), true);

  // The last level cannot be switched off: the factor would have no level.
  await page.locator('[data-testid=factor][data-factor=ahi] [data-testid=level-chip][data-level=off]').click();
  await page.locator('[data-testid=factor][data-factor=ahi] [data-testid=level-chip][data-level=on]').click();
  assert.match(await page.locator('[data-testid=factor][data-factor=ahi] [data-testid=factor-problem]').innerText(), /at least 1 level/);
  assert.equal(await page.getByTestId('cell-count').innerText(), '12 cells');

  await page.getByTestId('add-factor').selectOption('cpubind');
  const cpu = page.locator('[data-testid=factor][data-factor=cpubind]');
  await cpu.getByTestId('custom-level').fill('0-1');
  await cpu.getByTestId('add-level').click();
  assert.equal(await cpu.locator('[data-testid=level-chip][data-level="0-1"]').getAttribute('aria-pressed'), 'true');
  assert.equal(await page.getByTestId('cell-count').innerText(), '36 cells');

  await cpu.getByTestId('remove-factor').click();
  assert.equal(await page.getByTestId('cell-count').innerText(), '12 cells');
  assert.deepEqual(problems(page), []);
  await page.close();
});

test('workload fields are validated inline and feed the estimate', async () => {
  const page = await env.open();
  await openQuickstart(page);
  await page.getByTestId('warmup').fill('10');
  assert.match(await page.getByTestId('warmup-problem').innerText(), /leave none of 10 repetitions/);
  await page.getByTestId('repetitions').fill('abc');
  assert.match(await page.getByTestId('repetitions-problem').innerText(), /whole number/);
  await page.getByTestId('repetitions').fill('20');
  assert.equal(await page.getByTestId('warmup-problem').count(), 0);
  assert.match(await page.getByTestId('workload-estimate').innerText(), /100 executions per restart \(50 warm-up\)/);
  await page.getByTestId('add-query').click();
  assert.equal(await page.getByTestId('query').count(), 6);
  assert.match(await page.getByTestId('workload').innerText(), /the query is empty/);
  await page.close();
});

test("'Skip the setup when this table exists' is proposed from the setup script, says so, stays editable, and a file that sets it opens unchanged", async () => {
  const page = await env.open();
  await page.getByTestId('new-experiment').click();
  const skip = page.getByTestId('setup-skip');
  const from = page.getByTestId('setup-skip-from');
  await skip.waitFor();
  assert.equal(await skip.inputValue(), '', 'a new experiment has no setup script');
  assert.equal(await from.count(), 0);
  // Typed in the setup script: its last table is proposed, and the field says where it came from.
  await page.getByTestId('setup-sql').fill('CREATE TABLE t (n INT PRIMARY KEY);\nINSERT INTO t VALUES (1), (2);\nCREATE TABLE t2 (n INT);\nINSERT INTO t2 SELECT n FROM t;');
  assert.equal(await skip.inputValue(), 't2');
  assert.equal(await from.innerText(), 'the last table the setup script creates: a later run on the same server keeps the data');
  if (process.env.VARLAB_SCREENSHOTS) await page.getByTestId('workload').screenshot({ path: join(process.env.VARLAB_SCREENSHOTS, 'designer-setup-skip.png') });
  // A name of the user's own stays when the script changes, and is not said to come from it.
  await skip.fill('t');
  assert.equal(await from.count(), 0);
  await page.getByTestId('setup-sql').fill('CREATE TABLE t (n INT PRIMARY KEY);\nCREATE TABLE t3 (n INT);');
  assert.equal(await skip.inputValue(), 't');
  // Emptied: the setup runs every run; editing the script proposes nothing by itself, one click does.
  // The choice is the file's (''), not the view's: it holds after another view and back (a remount).
  await skip.fill('');
  await page.getByTestId('nav-plan').click();
  await page.getByTestId('nav-design').click();
  await page.getByTestId('setup-sql').fill('CREATE TABLE t (n INT PRIMARY KEY);\nCREATE TABLE t4 (n INT);');
  assert.equal(await skip.inputValue(), '');
  assert.match(await from.innerText(), /^empty: the script runs in every run, and fails once its tables exist\. Use t4 \(the last table it creates\)$/);
  if (process.env.VARLAB_SCREENSHOTS) await page.getByTestId('workload').screenshot({ path: join(process.env.VARLAB_SCREENSHOTS, 'designer-setup-skip-empty.png') });
  await page.getByTestId('setup-skip-use').click();
  assert.equal(await skip.inputValue(), 't4');
  // A script that makes its table anew each run: nothing proposed.
  await skip.fill('');
  await page.getByTestId('setup-sql').fill('DROP TABLE IF EXISTS t;\nCREATE TABLE t (n INT);');
  assert.equal(await from.count(), 0);
  assert.deepEqual(problems(page), []);
  await page.close();

  // The quickstart sets it (lineitem, the last table its script keeps): shown as is, said to come from the script, nothing edited.
  const quick = await env.open();
  await openQuickstart(quick);
  assert.equal(await quick.getByTestId('setup-skip').inputValue(), 'lineitem');
  assert.match(await quick.getByTestId('setup-skip-from').innerText(), /^the last table the setup script creates/);
  assert.equal(await quick.getByTestId('dirty').count(), 0);
  await quick.close();
});

test('a file with a run: the Designer and the workload give the time at the costs measured there, "from the run of DATE"', async () => {
  // 20 restarts of 9 s each (2 s of it idle), where the design's own estimates say about a second each;
  // the run ended 1 s after its last restart (mysqld stopped, the host restored), counted once.
  const doc = roundsExperiment({ rounds: 10, between: 0.03, shared: 0.5, effectPct: 0 });
  doc.design.estimates = { restartSeconds: 1, executionMs: 1 };
  const file = join(env.app.dir, 'measured.varlab.json');
  writeFileSync(file, JSON.stringify(doc, null, 2));
  const page = await env.open();
  await openFile(page, file);
  await page.getByTestId('design-summary').waitFor();
  assert.equal(await page.getByTestId('design-summary').innerText(), '20 restarts · 100 executions · about 3 min 01 s (costs from the run of 2026-11-26 10:00 UTC)');
  assert.match(await page.getByTestId('workload-estimate').innerText(), / · about 9 s per restart with the idle time \(costs from the run of 2026-11-26 10:00 UTC\)$/);
  if (process.env.VARLAB_SCREENSHOTS) await page.screenshot({ path: join(process.env.VARLAB_SCREENSHOTS, 'designer-learned.png'), fullPage: true });
  assert.deepEqual(problems(page), []);
  await page.close();
  // The quickstart (no run): the design's estimates, nothing said about a run.
  const fresh = await env.open();
  await openQuickstart(fresh);
  assert.match(await fresh.getByTestId('design-summary').innerText(), /^80 restarts · \d[\d,]* executions · about [^(]+$/);
  await fresh.close();
});

test('a design with "Stop when answered": the Designer says its restarts are at most and names the rule, as the Plan and Run views do', async () => {
  // The walk's A/A file, reopened: the Designer said "12 restarts" where the Plan view said "at most 12" and the
  // run stopped at 6; nothing in it said the design holds a rule.
  const doc = roundsExperiment({ rounds: 10, between: 0.03, shared: 0.5, effectPct: 0 });
  doc.design.estimates = { restartSeconds: 1, executionMs: 1 };
  doc.design.stopping = { effect: 1, alpha: 0.05, power: 0.8, maxRestartsPerCell: 10 };
  const file = join(env.app.dir, 'ruled.varlab.json');
  writeFileSync(file, JSON.stringify(doc, null, 2));
  const page = await env.open();
  await openFile(page, file);
  await page.getByTestId('design-summary').waitFor();
  assert.equal(
    await page.getByTestId('design-summary').innerText(),
    'at most 20 restarts · 100 executions · about 3 min 01 s (costs from the run of 2026-11-26 10:00 UTC) · stop when answered: target ±1 %, α 0.05, at most 10 restarts per cell (the Run view sets it)',
  );
  await page.getByTestId('nav-plan').click();
  assert.equal(await page.getByTestId('plan-count').innerText(), 'at most 20 restarts');
  assert.deepEqual(problems(page), []);
  await page.close();
});

test('a file whose run measured part of its design: the Designer, and the Run view\'s offer to run what is missing or all again, give the time at the costs measured there, "from the run of DATE"', async () => {
  // Ten rounds measured (9 s a restart, 2 s of it idle; the run ended 1 s after its last restart), the
  // design since grown to 12 restarts per cell; no journal beside it. The design's own estimates say about a second a restart.
  const doc = roundsExperiment({ rounds: 10, between: 0.03, shared: 0.5, effectPct: 0 });
  doc.design.restartsPerCell = 12;
  doc.design.estimates = { restartSeconds: 1, executionMs: 1 };
  const file = join(env.app.dir, 'grown-rounds.varlab.json');
  writeFileSync(file, JSON.stringify(doc, null, 2));
  const page = await env.open();
  await openFile(page, file);
  const basis = '(costs from the run of 2026-11-26 10:00 UTC)';
  // The whole design: 24 restarts × 9 s + 1 s once.
  await page.getByTestId('design-summary').waitFor();
  assert.equal(await page.getByTestId('design-summary').innerText(), `24 restarts · 120 executions · about 3 min 37 s ${basis}`);
  // A file with results is a finished run in the Run view (no start panel): what is missing, 4 × 9 s + 1 s.
  await page.getByTestId('nav-run').click();
  await page.getByTestId('run-finished-count').filter({ hasText: 'Finished: 20 of 24 restarts' }).waitFor();
  assert.equal(await page.getByTestId('run-start').count(), 0);
  assert.equal(await page.getByTestId('run-missing-note').innerText(), `The design grew since: 2 cells need 4 restarts in all, about 37 s ${basis}. The old cells are not measured again.`);
  await page.getByTestId('run-missing').waitFor();
  if (process.env.VARLAB_SCREENSHOTS) await page.screenshot({ path: join(process.env.VARLAB_SCREENSHOTS, 'run-learned.png'), fullPage: false });
  // Running it all again says its time before it is confirmed; Cancel changes nothing.
  await page.getByTestId('run-again').click();
  const dialog = page.getByTestId('confirm-dialog');
  await dialog.waitFor();
  assert.match(await dialog.innerText(), new RegExp(`will be run again from its first restart \\(24 restarts, about 3 min 37 s \\(costs from the run of 2026-11-26 10:00 UTC\\)\\) and its results replaced`));
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  assert.equal(await dialog.count(), 0);
  assert.deepEqual(problems(page), []);
  await page.close();
});

test("an unfinished run: the Run view says what resuming it, or starting over, takes at the costs its restarts so far measured", async () => {
  // Ten rounds planned (20 restarts); the run was cut after its sixth restart (9 s each, as measured):
  // its journal beside the file, and the file saved with those six, as an interrupted run leaves them.
  const doc = roundsExperiment({ rounds: 10, between: 0.03, shared: 0.5, effectPct: 0 });
  doc.design.estimates = { restartSeconds: 1, executionMs: 1 };
  const done = doc.results!.restarts.slice(0, 6);
  doc.results = { startedAt: doc.results!.startedAt, restarts: done };
  const file = join(env.app.dir, 'unfinished-rounds.varlab.json');
  writeFileSync(file, JSON.stringify(doc, null, 2));
  const records = [headerRecord(doc.design, doc.results.startedAt), ...done.flatMap((r) => recordsOfRestart(r, doc.design.workload.warmup))];
  writeFileSync(journalPath(file), records.map((r) => JSON.stringify(r) + '\n').join(''));
  const page = await env.open();
  await openFile(page, file);
  await page.getByTestId('nav-run').click();
  const basis = '(costs from the run of 2026-11-26 10:00 UTC)';
  await page.getByTestId('run-unfinished').filter({ hasText: 'An unfinished run of this file: 6 of 20 restarts done.' }).waitFor();
  // The 14 left at 9 s each, where the design's estimates say about a second each.
  assert.equal(await page.getByTestId('run-unfinished-about').innerText(), `Resuming it takes about 2 min 06 s ${basis} for the 14 left.`);
  if (process.env.VARLAB_SCREENSHOTS) await page.getByTestId('run-start').screenshot({ path: join(process.env.VARLAB_SCREENSHOTS, 'run-unfinished.png') });
  // Start over: all 20.
  await page.getByText('start over').click();
  assert.equal(await page.getByTestId('run-unfinished-about').innerText(), `Starting over takes about 3 min 00 s ${basis}.`);
  assert.deepEqual(problems(page), []);
  await page.close();
});

test("an unfinished run on several hosts: resuming takes what the host with the most left takes, at its own costs", async () => {
  // Two hosts, ten rounds each (20 restarts a host); the run was cut when A had done 6 and B 16 (9 s a
  // restart on both, as measured): each host's journal beside the file, the file saved with those 22.
  const doc = roundsExperiment({ rounds: 10, between: 0.03, shared: 0.5, effectPct: 0 });
  doc.design.estimates = { restartSeconds: 1, executionMs: 1 };
  const [A, B] = [doc.design.target, 'ssh://varlab@b.example'];
  doc.design.targets = [A, B];
  const all = doc.results!.restarts;
  const onA = all.slice(0, 6).map((r) => ({ ...r, host: A }));
  const onB = all.slice(0, 16).map((r) => ({ ...r, host: B }));
  doc.results = { startedAt: doc.results!.startedAt, restarts: [...onA, ...onB] };
  const file = join(env.app.dir, 'unfinished-hosts.varlab.json');
  writeFileSync(file, JSON.stringify(doc, null, 2));
  for (const [host, done] of [[A, onA], [B, onB]] as const) {
    const records = [headerRecord(hostDesign(doc.design, host), doc.results.startedAt), ...done.flatMap((r) => recordsOfRestart(r, doc.design.workload.warmup))];
    writeFileSync(runJournals(file, doc.design).find((j) => j.host === host)!.path, records.map((r) => JSON.stringify(r) + '\n').join(''));
  }
  const page = await env.open();
  await openFile(page, file);
  await page.getByTestId('nav-run').click();
  await page.getByTestId('run-unfinished').filter({ hasText: 'An unfinished run of this file: 22 of 40 restarts done.' }).waitFor();
  // A's 14 left at 9 s each; before, nothing was said for several hosts.
  assert.equal(await page.getByTestId('run-unfinished-about').innerText(), `Resuming it takes about 2 min 06 s (costs from the run of 2026-11-26 10:00 UTC) for the 18 left on 2 hosts (the slowest, ${A}, has 14 left).`);
  if (process.env.VARLAB_SCREENSHOTS) await page.getByTestId('run-start').screenshot({ path: join(process.env.VARLAB_SCREENSHOTS, 'run-unfinished-hosts.png') });
  assert.deepEqual(problems(page), []);
  await page.close();
});

test('a backend prompt asks for a password in a password field and sends it only in the answer', async () => {
  // The real backend, with the prompt event and its answer observed by the test.
  const home = mkdtempSync(join(tmpdir(), 'varlab-home-'));
  process.env.VARLAB_HOME = home;
  const real = createBackend({ transport: 'websocket' });
  const promptListeners = new Set<(p: Prompt) => void>();
  const answers: PromptAnswer[] = [];
  const backend: Backend & { dispose(): Promise<string> } = {
    call: async (method, args, origin) => {
      if (method === 'prompt.answer') {
        answers.push(args as PromptAnswer);
        return ok(null) as never;
      }
      return real.call(method, args, origin);
    },
    on: (event, listener) => {
      if (event !== 'prompt') return real.on(event, listener);
      const l = listener as (p: Events['prompt']) => void;
      promptListeners.add(l);
      return () => promptListeners.delete(l);
    },
    dispose: () => real.dispose(),
  };
  const server = await startServer({ backend });
  try {
    const page = await openApp(env.browser, { ...env.app, url: server.url });
    await page.getByTestId('welcome').waitFor();
    for (const l of promptListeners) l({ id: 'p1', kind: 'password', title: 'MySQL password', message: 'Password for root@127.0.0.1:3307' });
    const secret = page.getByTestId('prompt-secret');
    await secret.waitFor();
    assert.equal(await secret.getAttribute('type'), 'password');
    await secret.fill('s3cret-value');
    await page.getByTestId('prompt-accept').click();
    await page.getByTestId('prompt-dialog').waitFor({ state: 'detached' });
    assert.deepEqual(answers, [{ id: 'p1', accept: true, secret: 's3cret-value' }]);
    assert.doesNotMatch(await page.content(), /s3cret-value/);

    for (const l of promptListeners) l({ id: 'p2', kind: 'host-key', title: 'Unknown host key', message: 'bench1 is not known', fingerprint: 'SHA256:abcdef' });
    assert.equal(await page.getByTestId('prompt-fingerprint').innerText(), 'SHA256:abcdef');
    await page.getByTestId('prompt-reject').click();
    await page.getByTestId('prompt-dialog').waitFor({ state: 'detached' });
    assert.deepEqual(answers[1], { id: 'p2', accept: false });
    await page.close();
  } finally {
    await server.close();
    rmSync(home, { recursive: true, force: true });
    process.env.VARLAB_HOME = env.app.home;
  }
});

test('fewer than 3 restarts per cell: the design says Analysis will show no minimum detectable effect, and why', async () => {
  const page = await env.open();
  await openQuickstart(page);
  const restarts = page.getByTestId('restarts-per-cell');
  await restarts.fill('2');
  await restarts.press('Tab');
  assert.match(await page.getByTestId('few-restarts-warning').innerText(), /^With 2 restarts per cell, Analysis shows the spread but no minimum detectable effect, .* 3 restarts per cell or more\.$/s);
  await restarts.fill('3');
  await restarts.press('Tab');
  assert.equal(await page.getByTestId('few-restarts-warning').count(), 0);
  assert.deepEqual(pageProblems(page), []);
  await page.close();
});
