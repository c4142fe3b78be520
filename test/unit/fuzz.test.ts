// Property-based fuzzing (fast-check, with shrinking) of what reads untrusted files: the experiment
// loader (`varlab validate`, then `plan` and `analyze` on what it accepts) and the CSV reader
// (`varlab analyze FILE.csv`). For every input: no crash and no hang; exit 0, or exit 2 with every
// message naming its place (a JSON path, or the CSV's line); nothing accepted that `plan` cannot use;
// no raw control character reaches the terminal. The commands run in-process, as main() runs them.
//
// Short form here (VARLAB_FUZZ_RUNS cases per property, default 150); `npm run test:fuzz` runs the long
// form (10,000 per property) and prints what was accepted and refused. VARLAB_FUZZ_SEED reproduces a run.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { main } from '../../src/cli/main.js';
import { visible } from '../../src/common/printable.js';
import { editedText, edits, hostileCsv, quickstart, textEdited, textEdits } from '../fixtures/hostile.js';

const RUNS = Number(process.env.VARLAB_FUZZ_RUNS ?? 150);
const SEED = process.env.VARLAB_FUZZ_SEED ? Number(process.env.VARLAB_FUZZ_SEED) : undefined;
/** Far above any case's time (milliseconds): only a hang or a quadratic blow-up reaches it. */
const HANG_MS = 10_000;

const dir = mkdtempSync(join(tmpdir(), 'varlab-fuzz-'));
after(() => rmSync(dir, { recursive: true, force: true }));
process.env.VARLAB_HOME = join(dir, 'home');

/**
 * `varlab ARGS` in this process: exit code, how long it took, and stdout and stderr as the terminal
 * shows them: each printed string through visible() as processIO does, cut at its newlines.
 */
async function varlab(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const shown = (into: string[]) => (l: string) => into.push(...visible(l).split('\n'));
  const t0 = performance.now();
  const code = await main(args, { out: shown(out), err: shown(err), tty: false });
  return { code, out, err, ms: performance.now() - t0 };
}

/** A JSON path as messages write it (`design.factors[2].levels`, `["odd key"].x`), `(document)`, or a setting. */
const PLACE = String.raw`(?:\(document\)|VARLAB_\w+|(?:[A-Za-z_$][\w$]*|\[\d+\]|\["(?:[^"\\]|\\.)*"\])(?:\.[A-Za-z_$][\w$]*|\[\d+\]|\["(?:[^"\\]|\\.)*"\])*)`;
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** Control characters a terminal acts on (escape sequences, carriage returns…); a newline inside a line is one too. */
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

const tally = new Map<string, { accepted: number; refused: number }>();
function count(property: string, accepted: boolean) {
  const t = tally.get(property) ?? { accepted: 0, refused: 0 };
  if (accepted) t.accepted++;
  else t.refused++;
  tally.set(property, t);
}
after(() => {
  if (RUNS >= 1000) for (const [p, t] of tally) console.log(`fuzz ${p}: ${t.accepted + t.refused} cases, ${t.accepted} accepted, ${t.refused} refused with a place`);
});

function assertTerminalSafe(lines: string[], what: string) {
  for (const l of lines) assert.doesNotMatch(l, RAW_CONTROL, `${what} printed a raw control character: ${JSON.stringify(l)}`);
}

/** What every command must do with any experiment file text. */
async function loaderProperty(name: string, text: string) {
  const file = join(dir, `${name}.varlab.json`);
  writeFileSync(file, text);
  const v = await varlab(['validate', file]);
  assert.ok(v.ms < HANG_MS, `validate took ${Math.round(v.ms)} ms`);
  assert.ok(v.code === 0 || v.code === 2, `validate exited ${v.code}: ${v.err.join('\n')}`);
  assertTerminalSafe([...v.out, ...v.err], 'validate');
  count(name, v.code === 0);
  if (v.code === 2) {
    assert.ok(v.err.length > 0, 'exit 2 says why');
    const line = new RegExp(`^${escapeRe(file)}: ${PLACE}: \\S`);
    for (const l of v.err) assert.match(l, line, 'each problem, each line of it on the terminal, names its place');
    return;
  }
  // Accepted: then it is a usable experiment, whatever was in it.
  const p = await varlab(['plan', file]);
  assert.equal(p.code, 0, `plan refused what validate accepted: ${p.err.join('\n')}`);
  assert.doesNotMatch(p.out.join('\n'), /NaN|Infinity|undefined|\[object Object\]/);
  assertTerminalSafe(p.out, 'plan');
  const a = await varlab(['analyze', file]);
  assert.ok(a.code === 0 || a.code === 2, `analyze exited ${a.code}: ${a.err.join('\n')}`);
  assert.ok(a.ms < HANG_MS, `analyze took ${Math.round(a.ms)} ms`);
  assertTerminalSafe([...a.out, ...a.err], 'analyze');
}

const params = { numRuns: RUNS, seed: SEED, endOnFailure: false };

test('loader: any JSON document is refused with its place or accepted as a usable experiment', async () => {
  await fc.assert(fc.asyncProperty(fc.jsonValue({ maxDepth: 4 }), (v) => loaderProperty('json', JSON.stringify(v) ?? 'null')), params);
});

test('loader: an experiment with fields set to hostile values, deleted or added', async () => {
  await fc.assert(fc.asyncProperty(edits, (list) => loaderProperty('edited', editedText(list))), params);
});

test('loader: an experiment file damaged as text (inserted, deleted, replaced characters)', async () => {
  const text = JSON.stringify(quickstart(), null, 2);
  await fc.assert(fc.asyncProperty(textEdits, (list) => loaderProperty('damaged', textEdited(text, list))), params);
});

test('CSV reader: a tidy CSV with hostile fields is analysed or refused naming its line', async () => {
  await fc.assert(
    fc.asyncProperty(hostileCsv, async (csv) => {
      const file = join(dir, 'data.csv');
      writeFileSync(file, csv);
      const a = await varlab(['analyze', file]);
      assert.ok(a.ms < HANG_MS, `analyze took ${Math.round(a.ms)} ms`);
      assert.ok(a.code === 0 || a.code === 2, `analyze exited ${a.code}: ${a.err.join('\n')}`);
      assertTerminalSafe([...a.out, ...a.err], 'analyze');
      count('csv', a.code === 0);
      if (a.code === 2) {
        assert.ok(a.err.length > 0, 'exit 2 says why');
        // file:LINE: problem, or file: problem for the whole file (empty, no rows).
        for (const l of a.err) assert.match(l, new RegExp(`^${escapeRe(file)}:(\\d+:)? \\S`), 'each problem names the file and its line');
      }
    }),
    params,
  );
});

test('found by the fuzzer: a factor whose tunable is a line break is named on one line', async () => {
  const doc = quickstart();
  doc.design.factors[3].tunable = '\n';
  const file = join(dir, 'newline-tunable.varlab.json');
  writeFileSync(file, JSON.stringify(doc, null, 2));
  const v = await varlab(['validate', file]);
  assert.equal(v.code, 2);
  assert.ok(v.err.length > 0 && v.err.every((l) => l.startsWith(`${file}: design.factors[3]`)), v.err.join('\n'));
  assert.ok(v.err.some((l) => l.includes('unknown tunable "\\n"')), v.err.join('\n'));
});

test('found by the fuzzer: a control character where JSON expects a value is shown escaped, on one line, with its line and column', async () => {
  const file = join(dir, 'esc.varlab.json');
  writeFileSync(file, '\u001b' + JSON.stringify(quickstart(), null, 2));
  const v = await varlab(['validate', file]);
  assert.equal(v.code, 2);
  assert.deepEqual(v.err, [`${file}: (document): not valid JSON at line 1, column 1: Unexpected token '\\u001b' is not valid JSON`]);
});
