// Stop when answered in the Run view (issue 21), in Chromium: a file with design.stopping offers "Stop
// when answered" already on, with its target effect and maximum ("at most N restarts"), says what is
// wrong with a bad number before anything runs; and the Run view of a run that stopped at a look shows
// why it stopped, at which round, and each comparison's two repeated intervals, each named with what it
// decides: the 95 % one leaves out 0 for "differs", the 90 % one lies inside the ±E band for "equivalent".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';
import { lookText, stopCheck } from '../../src/common/stats/replay.js';
import { equivalentExperiment, roundsExperiment } from '../fixtures/rounds-experiment.js';
import { appForTests, openFile, pageProblems } from './support.js';

const env = appForTests();
const shot = async (page: import('playwright-core').Page, name: string) => {
  if (process.env.VARLAB_SCREENSHOTS) await page.screenshot({ path: join(process.env.VARLAB_SCREENSHOTS, name), fullPage: true });
};

/** A two-cell run with a rule of at most 12 rounds, its results as the engine leaves them when the rule stops it. */
function stoppedRun(): { doc: ExperimentDoc; round: number } {
  const doc = roundsExperiment({ rounds: 12, between: 0.02, shared: 0.25, effectPct: 15 });
  doc.design.target = 'local';
  doc.design.stopping = { effect: 5, alpha: 0.05, power: 0.8, maxRestartsPerCell: 12 };
  const all = doc.results!.restarts;
  let n = 0;
  let check = stopCheck({ ...doc, results: { restarts: [] } });
  while (!check.stop) check = stopCheck({ ...doc, results: { restarts: all.slice(0, ++n) } });
  const round = check.result!.stopped_round!;
  // As the engine leaves it: the look's lines said (results.log) a few ms after the stop record was made.
  const at = all[n - 1].finishedAt;
  doc.results = { ...doc.results!, restarts: all.slice(0, n), stopped: [{ at, round, because: check.result!.stopped_because }], log: [{ at: at + 4, level: 'info', message: lookText(check.result!).join('\n') }] };
  return { doc, round };
}

test('the Run view of a run stopped when answered says at which look and why, with each interval against the ±E band', async () => {
  const { doc, round } = stoppedRun();
  assert.ok(round < 12);
  const file = join(env.app.dir, 'stopped.varlab.json');
  writeFileSync(file, JSON.stringify(doc, null, 2));
  const page = await env.open();
  await openFile(page, file);
  await page.getByTestId('nav-run').click();
  await page.getByTestId('run-finished-count').filter({ hasText: `Stopped when answered at round ${round}: ${2 * round} of at most 24 restarts` }).waitFor();
  const panel = page.getByTestId('run-stop');
  assert.match(await panel.innerText(), /Stop when answered: each cell against aslr=on in pairs within rounds, target ±5 %, α 0.05 over all looks/);
  assert.match(
    await page.getByTestId('run-stop-look').innerText(),
    new RegExp(`^Look at round ${round} of at most 12: a comparison differs when \\|Z\\| ≥ \\d+\\.\\d\\d, that is when its repeated 95 % interval \\(thin line\\) leaves out 0; it is equivalent when its repeated 90 % interval \\(thick line, the equivalence test's: two one-sided tests\\) lies inside the green band \\(±5 %\\)\\.$`),
  );
  const row = page.getByTestId('run-stop-row');
  assert.equal(await row.count(), 1);
  assert.equal(await row.getAttribute('data-verdict'), 'differs');
  assert.match(await row.innerText(), new RegExp(`aslr=off / Q1 pricing summary\\s+\\+1\\d\\.\\d\\d %\\s+90 % \\[\\+\\d+\\.\\d\\d %, \\+\\d+\\.\\d\\d %\\]; 95 % \\[\\+\\d+\\.\\d\\d %, \\+\\d+\\.\\d\\d %\\]\\s+\\d+\\.\\d\\d / \\d+\\.\\d\\d\\s+differs at round ${round}`));
  assert.equal(await page.getByTestId('run-stop-end').innerText(), `Stopped at round ${round}: every comparison decided at round ${round}: 1 differs. The intervals above are repeated confidence intervals, valid at the look the run stopped.`);
  // The log says the look, then the stop it made, as the live run said them; the look's lines stay lines.
  const log = await page.getByTestId('run-log').innerText();
  const look = log.indexOf(`look at round ${round} of at most 12`);
  assert.ok(look >= 0 && log.indexOf(`stopped when answered at round ${round}`) > look, log);
  assert.match(log, /: differs\n\s+stopping: every comparison decided/);
  await shot(page, 'run-stopped.png');
  assert.deepEqual(pageProblems(page), []);
  await page.close();
});

test('a file with design.stopping offers "Stop when answered" on, with its effect and maximum, and refuses a bad number before anything runs', async () => {
  const { doc } = stoppedRun();
  delete doc.results;
  doc.design.restartsPerCell = 3;
  const file = join(env.app.dir, 'to-run.varlab.json');
  writeFileSync(file, JSON.stringify(doc, null, 2));
  const page = await env.open();
  await openFile(page, file);
  await page.getByTestId('nav-run').click();
  const on = page.getByTestId('run-until-answered');
  await on.waitFor();
  assert.equal(await on.isChecked(), true);
  assert.equal(await page.getByTestId('run-stop-effect').inputValue(), '5');
  assert.equal(await page.getByTestId('run-stop-max').inputValue(), '12');
  assert.match(await page.getByTestId('run-estimate').innerText(), /^at most 24 restarts/);
  // Detached too: the hint says who takes the looks, and that a run nobody follows goes on to its maximum.
  assert.equal(await page.getByTestId('run-detach').isDisabled(), false);
  assert.equal(await page.getByTestId('run-stop-detached').count(), 0);
  await page.getByTestId('run-detach').check();
  assert.equal(await on.isDisabled(), false);
  assert.match(await page.getByTestId('run-stop-detached').innerText(), /^Detached, this computer takes the looks while it follows the run and stops it there at the look that answers; while nobody follows it, it goes on towards its maximum/);
  assert.match((await page.getByTestId('run-detach').locator('..').getAttribute('title'))!, /this computer takes the looks/);
  await shot(page, 'run-stop-start.png');
  await page.getByTestId('run-detach').uncheck();
  await page.getByTestId('run-stop-max').fill('2');
  assert.match(await page.getByTestId('run-stop-problem').innerText(), /a whole number from 3 to 10000/);
  assert.equal(await page.getByTestId('run-start-button').isDisabled(), true);
  // Off: the file's fixed design (3 restarts per cell) is what would run.
  await on.uncheck();
  assert.match(await page.getByTestId('run-estimate').innerText(), /^6 restarts/);
  assert.equal(await page.getByTestId('run-detach').isDisabled(), false);
  assert.deepEqual(pageProblems(page), []);
  await page.close();
});

test('Analysis shows the pairing within rounds beside Welch with the variance ratio, and the rule\'s verdict at the look the run stopped', async () => {
  const { doc, round } = stoppedRun();
  const file = join(env.app.dir, 'stopped-analysis.varlab.json');
  writeFileSync(file, JSON.stringify(doc, null, 2));
  const page = await env.open();
  await openFile(page, file);
  await page.getByTestId('nav-analysis').click();
  await page.getByTestId('section-comparisons').waitFor();
  // The target effect is the one the rule asked about (±5 %), not the default 1 %: the fixed-sample verdicts and the planning table speak of it too.
  assert.equal(await page.getByTestId('analysis-target').inputValue(), '5');
  assert.match(await page.getByTestId('section-planning').innerText(), /restarts needed for 5%/);
  assert.match(await page.getByTestId('comparison-pairing').innerText(), /^Paired within rounds: .*variance paired\/unpaired: median \d\.\d\d over 1 comparison\.$/);
  const row = page.locator('[data-testid=comparisons-table] tbody tr');
  // effect, interval, p, adjusted p, the fixed-sample verdict, the rule's, then pairing, the unpaired (Welch) interval and the variance ratio.
  assert.match(await row.innerText(), new RegExp(`aslr=off\\s+Q1 pricing summary\\s+\\+1\\d\\.\\d\\d %\\s+\\[.*\\] %\\s+.*differs\\s+differs \\(round ${round}\\)\\s+paired\\s+\\[[+−]\\d+\\.\\d\\d, \\+\\d+\\.\\d\\d\\] %\\s+\\d\\.\\d\\d$`));
  // The fixed-sample numbers are flagged: the run took the rule's looks.
  assert.match(await page.getByTestId('comparison-looks').innerText(), new RegExp(`^Not valid under the stopping rule: the run looked at its results as they came \\(stop when answered, and stopped at round ${round}\\), and this table's intervals, p-values and verdicts are fixed-sample ones`));
  assert.match(await page.locator('[data-testid=comparisons-table] thead').innerText(), /fixed-sample verdict \(not valid under the rule\)\s+the rule's verdict/);
  await page.getByTestId('section-sequential').waitFor();
  assert.equal(
    await page.getByTestId('sequential-stop').innerText(),
    `The run stopped at round ${round}: every comparison decided at round ${round}: 1 differs. A comparison differs when the repeated 95 % interval leaves out 0 (|Z| at or past the boundary); equivalent within ±5 % when the repeated 90 % interval lies inside ±5 % (two one-sided tests, the equivalence test's interval). Both are repeated confidence intervals, valid at whatever look the run stopped.`,
  );
  const seq = page.locator('[data-testid=sequential-table] tbody tr');
  assert.equal(await seq.getAttribute('data-verdict'), 'differs');
  assert.match(await seq.innerText(), new RegExp(`aslr=off\\s+Q1 pricing summary\\s+differs\\s+${round}\\s+\\+1\\d\\.\\d\\d %\\s+\\[\\+\\d+\\.\\d\\d, \\+\\d+\\.\\d\\d\\] %\\s+\\[\\+\\d+\\.\\d\\d, \\+\\d+\\.\\d\\d\\] %\\s+\\|Z\\| = \\d\\.\\d\\d crossed the boundary \\d\\.\\d\\d at round ${round}: the repeated 95 % interval`));
  await page.getByTestId('section-sequential').scrollIntoViewIfNeeded();
  await shot(page, 'analysis-stopped.png');
  assert.equal(await page.getByTestId('sequential-baseline').count(), 0, 'against the run\'s own baseline, nothing to say');

  // The other cell as the baseline: the rule replayed against it, and said so; the run's stop stays the run's.
  await page.getByTestId('analysis-baseline').selectOption('aslr=off');
  await page.getByTestId('sequential-baseline').waitFor();
  assert.match(await page.getByTestId('section-sequential').innerText(), /^Stop when answered: the rule's verdicts against aslr=off/);
  assert.equal(await page.getByTestId('sequential-baseline').innerText(), 'Against aslr=off, the baseline chosen above: the rule replayed on these results. The run took its looks against aslr=on, its first cell; where it stopped is the run\'s.');
  assert.match(await page.getByTestId('sequential-stop').innerText(), new RegExp(`^The run stopped at round ${round}: every comparison decided at round ${round}: 1 differs\\. Against aslr=off: the rule would have stopped at round ${round}: every comparison decided at round ${round}: 1 differs\\.`));
  assert.match(await seq.innerText(), new RegExp(`^aslr=on\\s+Q1 pricing summary\\s+differs\\s+${round}\\s+−1\\d\\.\\d\\d %`));
  assert.match(await row.innerText(), new RegExp(`^aslr=on\\s+Q1 pricing summary\\s+−1\\d\\.\\d\\d %.*differs\\s+differs \\(round ${round}\\)`));
  await page.getByTestId('section-comparisons').scrollIntoViewIfNeeded();
  await shot(page, 'analysis-stopped-baseline.png');
  // The rule's maximum is a maximum wherever the plan's size is said: the Plan view and running it again.
  await page.getByTestId('nav-plan').click();
  assert.equal(await page.getByTestId('plan-count').innerText(), 'at most 24 restarts');
  await page.getByTestId('nav-run').click();
  await page.getByTestId('run-again').click();
  const dialog = page.getByTestId('confirm-dialog');
  assert.match(await dialog.innerText(), /will be run again from its first restart \(at most 24 restarts, about /);
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  assert.deepEqual(pageProblems(page), []);
  await page.close();
});

test('a run stopped "equivalent" shows, in the Run view and Analysis, the 90 % interval the verdict was read from, inside the ±E band', async () => {
  // The restart means of a run whose 95 % interval reaches past +50 % while its 90 % one lies inside ±50 %.
  const doc = equivalentExperiment();
  doc.design.target = 'local';
  const check = stopCheck({ ...doc, results: { restarts: doc.results!.restarts.slice(0, 6) } });
  assert.equal(check.result?.stopped_round, 3);
  doc.results = { ...doc.results!, restarts: doc.results!.restarts.slice(0, 6), stopped: [{ at: doc.results!.restarts[5].finishedAt, round: 3, because: check.result!.stopped_because }] };
  const file = join(env.app.dir, 'equivalent.varlab.json');
  writeFileSync(file, JSON.stringify(doc, null, 2));
  const page = await env.open();
  await openFile(page, file);
  await page.getByTestId('nav-run').click();
  const row = page.getByTestId('run-stop-row');
  await row.waitFor();
  assert.equal(await row.getAttribute('data-verdict'), 'equivalent');
  assert.equal(await row.getByTestId('run-stop-eq').innerText(), '90 % [+9.59 %, +49.43 %]');
  assert.equal(await row.getByTestId('run-stop-rci').innerText(), '95 % [−5.03 %, +72.43 %]');
  assert.match(await row.innerText(), /equivalent within ±50 % at round 3$/);
  await shot(page, 'run-stopped-equivalent.png');
  await page.getByTestId('nav-analysis').click();
  await page.getByTestId('section-sequential').waitFor();
  const seq = page.locator('[data-testid=sequential-table] tbody tr');
  assert.equal(await seq.getAttribute('data-verdict'), 'equivalent');
  assert.match(await seq.innerText(), /equivalent within ±50 %\s+3\s+\+27\.97 %\s+\[−5\.03, \+72\.43\] %\s+\[\+9\.59, \+49\.43\] %\s+the repeated 90 % interval \[\+9\.59, \+49\.43\] % lies inside ±50 % at round 3/);
  // The fixed-sample table says "differs" (its interval does not allow for the look); beside it, the rule's verdict.
  const fixed = page.locator('[data-testid=comparisons-table] tbody tr');
  assert.match(await fixed.getByTestId('comparison-fixed-verdict').innerText(), /^differs/);
  assert.equal(await fixed.getByTestId('comparison-rule-verdict').innerText(), 'equivalent within ±50 % (round 3)');
  await page.getByTestId('section-sequential').scrollIntoViewIfNeeded();
  await shot(page, 'analysis-stopped-equivalent.png');
  assert.deepEqual(pageProblems(page), []);
  await page.close();
});
