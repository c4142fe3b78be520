// The Designer's run-order preview: a build comparison (one factor) reads by its levels, a design of
// several factors by the cells' numbers in the grid; three rounds, or a blocked plan's first restarts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';
import { orderPreview } from '../../src/browser/views/designer/order-preview.js';

const quickstart = () => (JSON.parse(readFileSync('examples/quickstart.varlab.json', 'utf8')) as ExperimentDoc).design;

test('one factor, interleaved: each restart named by its level, rotating each round', () => {
  const design = { ...quickstart(), factors: [{ tunable: 'build', levels: ['base', 'patched'] }], excludedCells: [], order: 'interleaved' as const, restartsPerCell: 5 };
  const { lines, byLevel } = orderPreview(design);
  assert.equal(byLevel, true);
  assert.deepEqual(lines.map((l) => `${l.label}: ${l.cells.join(' ')}`), ['round 1: base patched', 'round 2: patched base', 'round 3: base patched']);
});

test('several factors: cells numbered as in the grid; blocked: the first restarts as they run', () => {
  const design = quickstart();
  const cells = design.factors.reduce((n, f) => n * f.levels.length, 1) - design.excludedCells.length;
  const { lines, byLevel } = orderPreview({ ...design, order: 'interleaved' });
  assert.equal(byLevel, false);
  assert.equal(lines.length, 3);
  assert.ok(lines[0].cells.every((c) => /^\d+$/.test(c)), lines[0].cells.join(' '));
  assert.equal(lines[0].cells.length, Math.min(cells, 20));
  const blocked = orderPreview({ ...design, factors: [{ tunable: 'aslr', levels: ['on', 'off'] }], excludedCells: [], order: 'blocked', restartsPerCell: 3 });
  assert.deepEqual(blocked.lines, [{ label: 'first restarts', cells: ['on', 'on', 'on', 'off', 'off', 'off'], more: false }]);
});
