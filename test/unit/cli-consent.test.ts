// What `varlab run` says when it agrees to a file's commands for the user: --trust, or a one-liner
// whose queries were typed on the command line itself (no --trust given: it must not say one was).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';
import { confirmConsent } from '../../src/cli/consent.js';

const dir = mkdtempSync(join(tmpdir(), 'varlab-cli-consent-'));
process.env.VARLAB_HOME = join(dir, 'home');
after(() => rmSync(dir, { recursive: true, force: true }));

function doc(sql: string): ExperimentDoc {
  const d = JSON.parse(readFileSync('examples/quickstart.varlab.json', 'utf8')) as ExperimentDoc;
  d.design.workload.setupSql = '';
  d.design.workload.queries = [{ name: 'Q1', sql }];
  return d;
}

async function said(trust: boolean | string, sql: string): Promise<string> {
  const lines: string[] = [];
  const io = { out: (l: string) => lines.push(l), err: (l: string) => lines.push(l), tty: false };
  const status = await confirmConsent({ file: 'x.varlab.json', doc: doc(sql), trust, io, prompt: async () => ({ accept: false }), interactive: false });
  assert.equal(status, null);
  return lines.join('\n');
}

test('--trust and a one-liner\'s typed queries each say why the commands were agreed to', async () => {
  assert.match(await said(true, 'SELECT 1 + 1'), /\n--trust: agreed to them for local; varlab will not ask again/);
  // A one-liner (varlab run --query SQL …) said "--trust: agreed to them" to a user who gave no --trust.
  const typed = await said('typed on this command line (--query)', 'SELECT 2 + 2');
  assert.match(typed, /\ntyped on this command line \(--query\): agreed to them for local; varlab will not ask again/);
  assert.doesNotMatch(typed, /--trust/);
});
