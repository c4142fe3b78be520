// The layer rules of ARCHITECTURE.md are executable: a wrong import is a lint error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ESLint } from 'eslint';

const eslint = new ESLint();

async function layerErrors(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return result.messages.filter((m) => m.ruleId === 'layers/imports').map((m) => m.message);
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
  // (src/common may no longer import csv-stringify, the package this test first used: src/node may import ws.)
  assert.deepEqual(await layerErrors('src/node/x.ts', "import WebSocket from 'ws/browser.js';\nexport const s = WebSocket;\n"), []);
});

// Each folder names what it may import: a package or folder nobody thought to forbid is refused too.
// The first nine passed the deny-list this rule replaced; no dynamic, re-exported or type-only import was checked.
const PLANTED: [file: string, from: string][] = [
  ['src/common/x.ts', 'ws'],
  ['src/common/x.ts', 'zlib'],
  ['src/common/stats/x.ts', 'playwright-core'],
  ['src/common/x.ts', 'buffer'],
  ['src/browser/x.ts', 'ssh-config'],
  ['src/browser/views/x.ts', 'ws'],
  ['src/browser/x.ts', 'zlib'],
  ['electron/x.ts', '../src/browser/main.js'],
  ['scripts/x.ts', '../src/browser/store/index.js'],
  ['scripts/bench/x.ts', '../../src/browser/views/run/RunView.js'],
  ['src/cli/commands/x.ts', 'ssh2'],
  ['src/cli/x.ts', 'mysql2/promise'],
  ['electron/x.ts', 'react'],
  ['src/node/x.ts', 'zustand'],
  ['src/node/x.ts', '../cli/main.js'],
];

for (const [file, from] of PLANTED) {
  test(`lint refuses ${from} in ${file}`, async () => {
    // A static import, a re-export, a dynamic import and a type-only import are each an import.
    for (const code of [`import x from '${from}';\nexport const y = x;\n`, `export * from '${from}';\n`, `export const y = () => import('${from}');\n`, `export type Y = typeof import('${from}');\n`]) {
      const errors = await layerErrors(file, code);
      assert.equal(errors.length, 1, `${file}: ${code}`);
      // The message names the folder, what it imported and what it may import.
      assert.match(errors[0], new RegExp(`^${file.split('/').slice(0, file.startsWith('src/') ? 2 : 1).join('/')}/ may import`));
      assert.ok(errors[0].includes(`'${from}'`) || errors[0].includes(`'${from.split('/')[0]}'`), errors[0]);
    }
  });
}

test('what each folder does import passes', async () => {
  const allowed: [file: string, from: string][] = [
    ['src/common/stats/x.ts', '../plan.js'],
    ['src/common/stats/x.ts', 'simple-statistics'],
    ['src/common/stats/x.ts', '@stdlib/stats-base-dists-t-cdf'],
    ['src/common/experiment/x.ts', 'ajv'],
    ['src/browser/x.ts', 'react-dom/client'],
    ['src/browser/plot/x.ts', 'plotly.js/lib/core'],
    ['src/browser/store/x.ts', 'zustand'],
    ['src/browser/views/x.ts', '../../common/api.js'],
    ['src/node/x.ts', 'node:fs'],
    ['src/node/ssh/x.ts', 'ssh-config'],
    ['src/node/x.ts', '../common/api.js'],
    ['src/cli/commands/x.ts', '../../node/files.js'],
    ['src/cli/x.ts', 'node:readline'],
    ['electron/x.ts', '../src/node/backend.js'],
    ['scripts/x.ts', 'esbuild'],
    ['scripts/bench/x.ts', '../../test/e2e/support.js'],
    ['test/unit/x.ts', '../../src/browser/store/index.js'],
  ];
  for (const [file, from] of allowed) assert.deepEqual(await layerErrors(file, `import x from '${from}';\nexport const y = x;\n`), [], `${from} in ${file}`);
});
