// `varlab analyze` as a new user reads it: the same reasons in the text and the JSON, units beside
// the means, the workload's query order in the tables, warnings where the numbers cannot be trusted.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'varlab-analyze-ux-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

export function varlab(...args: string[]) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function write(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** 16 cells × 2 restarts × 3 repetitions of Q1 and Q3: too short for a warm-up to be found. */
function shortCsv(): string {
  const rows = ['cell,restart,query,rep,value'];
  for (let c = 1; c <= 16; c++) {
    for (let r = 1; r <= 2; r++) {
      for (const q of ['Q1', 'Q3']) for (let rep = 1; rep <= 3; rep++) rows.push(`cell${c},${r},${q},${rep},${100 + c + r * 3 + rep * 0.1}`);
    }
  }
  return rows.join('\n') + '\n';
}

test('warm-up: the text gives the JSON reason, said once, not a list of 16 cells', () => {
  const file = write('short.csv', shortCsv());
  const j = JSON.parse(varlab('analyze', file, '--json').out);
  const reason = j.warmup_suggestion.reason as string;
  assert.equal(j.warmup_suggestion.suggested, null);
  assert.match(reason, /fewer than 4 executions per restart/);
  assert.doesNotMatch(reason, /cell1/, 'every cell shares the reason: no cell is named');
  for (const q of j.warmup_suggestion.queries) {
    assert.equal(q.reason, 'fewer than 4 executions per restart (all 16 cells)');
  }
  const text = varlab('analyze', file).out;
  assert.ok(text.includes(`Warm-up from the data: no suggestion: ${reason}`), text);
  assert.doesNotMatch(text, /no steady state found/);
});
