// A file whose run stopped before its first restart, reopened: the Run view says how that run ended
// (its journal's end, as the live log said it), beside the offer to resume it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';
import { headerRecord, journalPath } from '../../src/node/engine/journal.js';
import { appForTests, openFile, pageProblems } from './support.js';

const env = appForTests();

test('a reopened file whose run failed before its first restart says why, beside Resume', async () => {
  const doc = JSON.parse(readFileSync('examples/quickstart.varlab.json', 'utf8')) as ExperimentDoc;
  const file = join(env.app.dir, 'refused.varlab.json');
  const why = 'root@127.0.0.1:1: connection refused (is sshd running on port 1?)';
  const at = Date.now() - 60_000;
  doc.results = { startedAt: at, finishedAt: at + 500, restarts: [], log: [{ at: at + 500, level: 'error', message: `run failed: ${why}` }] };
  writeFileSync(file, JSON.stringify(doc, null, 2));
  writeFileSync(journalPath(file), [headerRecord(doc.design, at), { t: 'run-finished', at: at + 500, state: 'failed', message: why }].map((r) => JSON.stringify(r)).join('\n') + '\n');
  const page = await env.open();
  try {
    await openFile(page, file);
    await page.getByTestId('nav-run').click();
    const ended = page.getByTestId('run-unfinished-ended');
    await ended.waitFor();
    assert.equal(await ended.innerText(), `It failed: ${why}.`);
    assert.match(await page.getByTestId('run-unfinished').innerText(), /^An unfinished run of this file: 0 of 80 restarts done\. It failed: /);
    if (process.env.VARLAB_SHOTS) await page.screenshot({ path: join(process.env.VARLAB_SHOTS, 'run-ended-why.png') });
    assert.deepEqual(pageProblems(page), []);
  } finally {
    await page.close();
  }
});
