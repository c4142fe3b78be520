// Numbers in CSV files: decimal notation only, and exactly the double Number() gives for it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseCount, parseDecimal } from '../../src/common/csv/numbers.js';
import { seededRandom } from '../../src/common/plan.js';

test('decimal numbers read as Number() reads them; hex, octal, binary, +5, Infinity and blanks do not', () => {
  for (const s of ['0', '-0', '12', '-3.25', '.5', '5.', '1e-7', '2.5E+3', '1e21', '0.000123', '123456789012345678', '1.7976931348623157e308', '5e-324', '0.1', '330.7']) {
    assert.ok(Object.is(parseDecimal(s), Number(s)), s);
  }
  for (const s of ['0x10', '0o7', '0b11', '+5', 'Infinity', '-Infinity', 'NaN', '', ' ', ' 5', '5 ', '1e', 'e5', '.', '-', '1..2', '1.2.3', '1e400', '١٢', '5,0', '1_000']) {
    assert.ok(Number.isNaN(parseDecimal(s)), JSON.stringify(s));
  }
  assert.equal(parseCount('284'), 284);
  for (const s of ['0x1', '+1', '1.0', '', '1e3', '12345678901', ' 1']) assert.ok(Number.isNaN(parseCount(s)), s);
});

test('every double written by String() reads back as itself', () => {
  const random = seededRandom(15);
  const view = new DataView(new ArrayBuffer(8));
  for (let i = 0; i < 20000; i++) {
    // Timings (a few decimals), then arbitrary bit patterns.
    const x = i % 2 ? Math.round(random() * 10 ** (1 + (i % 9))) / 10 ** (i % 7) : (view.setUint32(0, (random() * 2 ** 32) >>> 0), view.setUint32(4, (random() * 2 ** 32) >>> 0), view.getFloat64(0));
    if (!Number.isFinite(x)) continue;
    assert.ok(Object.is(parseDecimal(String(x)), x), String(x));
    assert.ok(Object.is(parseDecimal(x.toFixed(6)), Number(x.toFixed(6))) || Math.abs(x) >= 1e21, x.toFixed(6));
  }
});
