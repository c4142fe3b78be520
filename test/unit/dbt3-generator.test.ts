// The DBT-3 generator against the TPC-H specification's rules (Clause 4.2): cardinalities at SF,
// key ranges (sparse order keys), value domains, dates and the dependencies between tables, at SF
// 0.01 and 0.1; and the same seed gives the same data.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { cardinalities, Dbt3Generator, orderKey, retailCents, sfProblem, supplierOf, TABLES, type Dbt3Table } from '../../src/common/dbt3/generate.js';
import { sfFromText } from '../../src/common/dbt3/scale.js';
import { COLORS, CONTAINERS, INSTRUCTIONS, MODES, PRIORITIES, SEGMENTS, TYPES } from '../../src/common/dbt3/spec.js';

function rowsOf(g: Dbt3Generator, table: Dbt3Table): string[][] {
  const out: string[][] = [];
  for (const b of g.batches(table)) {
    for (const line of b.split('\n')) {
      if (!line) continue;
      assert.ok(line.endsWith('|'), `${table}: a line ends in |: ${line}`);
      out.push(line.slice(0, -1).split('|'));
    }
  }
  return out;
}

const cents = (s: string) => Math.round(Number(s) * 100);
const day = (s: string) => (Date.parse(`${s}T00:00:00Z`) - Date.parse('1992-01-01T00:00:00Z')) / 86_400_000;
const between = (x: number, lo: number, hi: number, what: string) => assert.ok(x >= lo && x <= hi, `${what} = ${x}, outside [${lo}, ${hi}]`);
const TEXT = /^[A-Za-z ,.;:?!-]*$/;

function checkAll(sf: number) {
  const g = new Dbt3Generator(sf);
  const c = cardinalities(sf);
  const t: Record<string, string[][]> = {};
  for (const table of TABLES) t[table] = rowsOf(g, table);

  assert.equal(t.region.length, 5);
  assert.equal(t.nation.length, 25);
  assert.equal(t.part.length, Math.floor(sf * 200_000));
  assert.equal(t.supplier.length, Math.floor(sf * 10_000));
  assert.equal(t.partsupp.length, Math.floor(sf * 800_000));
  assert.equal(t.customer.length, Math.floor(sf * 150_000));
  assert.equal(t.orders.length, Math.floor(sf * 1_500_000));
  // 1 to 7 lines per order, 4 on average.
  between(t.lineitem.length / t.orders.length, 3.9, 4.1, 'lines per order');

  for (const [i, r] of t.nation.entries()) {
    assert.equal(Number(r[0]), i);
    between(Number(r[2]), 0, 4, 'n_regionkey');
    between(r[3].length, 31, 114, 'n_comment length');
  }

  t.part.forEach((r, i) => {
    const key = i + 1;
    assert.equal(Number(r[0]), key, 'p_partkey is dense from 1');
    const words = r[1].split(' ');
    assert.equal(new Set(words).size, 5, 'p_name: five different colours');
    for (const w of words) assert.ok(COLORS.includes(w), w);
    const m = /^Manufacturer#([1-5])$/.exec(r[2]);
    assert.ok(m, r[2]);
    assert.match(r[3], new RegExp(`^Brand#${m[1]}[1-5]$`));
    assert.ok(TYPES.includes(r[4]), r[4]);
    between(Number(r[5]), 1, 50, 'p_size');
    assert.ok(CONTAINERS.includes(r[6]), r[6]);
    assert.equal(cents(r[7]), retailCents(key));
    between(r[8].length, 5, 22, 'p_comment length');
    assert.match(r[8], TEXT);
  });

  const phone = (p: string, nation: number) => assert.match(p, new RegExp(`^${nation + 10}-[1-9]\\d\\d-[1-9]\\d\\d-[1-9]\\d{3}$`));
  let complaints = 0;
  let recommends = 0;
  t.supplier.forEach((r, i) => {
    assert.equal(Number(r[0]), i + 1);
    assert.equal(r[1], `Supplier#${String(i + 1).padStart(9, '0')}`);
    between(r[2].length, 10, 40, 's_address length');
    between(Number(r[3]), 0, 24, 's_nationkey');
    phone(r[4], Number(r[3]));
    between(cents(r[5]), -99999, 999999, 's_acctbal');
    between(r[6].length, 25, 100, 's_comment length');
    if (/Customer.*Complaints/.test(r[6])) complaints++;
    if (/Customer.*Recommends/.test(r[6])) recommends++;
  });
  assert.equal(complaints, Math.round(sf * 5), 'SF*5 suppliers with Customer…Complaints');
  assert.equal(recommends, Math.round(sf * 5));

  const suppliersOf = new Map<number, Set<number>>();
  t.partsupp.forEach((r, i) => {
    const part = Math.floor(i / 4) + 1;
    assert.equal(Number(r[0]), part);
    assert.equal(Number(r[1]), supplierOf(part, i % 4, c.supplier));
    between(Number(r[1]), 1, c.supplier, 'ps_suppkey');
    between(Number(r[2]), 1, 9999, 'ps_availqty');
    between(cents(r[3]), 100, 100000, 'ps_supplycost');
    between(r[4].length, 49, 198, 'ps_comment length');
    (suppliersOf.get(part) ?? suppliersOf.set(part, new Set()).get(part)!).add(Number(r[1]));
  });
  for (const s of suppliersOf.values()) assert.equal(s.size, 4, 'four different suppliers per part');

  t.customer.forEach((r, i) => {
    assert.equal(r[1], `Customer#${String(i + 1).padStart(9, '0')}`);
    phone(r[4], Number(r[3]));
    between(cents(r[5]), -99999, 999999, 'c_acctbal');
    assert.ok(SEGMENTS.includes(r[6]), r[6]);
    between(r[7].length, 29, 116, 'c_comment length');
  });

  // Lines by order key, to check each order against its lines.
  const lines = new Map<number, string[][]>();
  for (const l of t.lineitem) (lines.get(Number(l[0])) ?? lines.set(Number(l[0]), []).get(Number(l[0]))!).push(l);
  const current = day('1995-06-17');
  t.orders.forEach((o, i) => {
    const key = Number(o[0]);
    assert.equal(key, orderKey(i));
    between(((key - 1) % 32) + 1, 1, 8, 'o_orderkey: the first 8 keys of every 32');
    const cust = Number(o[1]);
    between(cust, 1, c.customer, 'o_custkey');
    assert.notEqual(cust % 3, 0, 'o_custkey is not a multiple of 3');
    const od = day(o[4]);
    between(od, 0, day('1998-08-02'), 'o_orderdate');
    assert.ok(PRIORITIES.includes(o[5]), o[5]);
    between(Number(/^Clerk#(\d{9})$/.exec(o[6])![1]), 1, Math.max(1, Math.floor(sf * 1000)), 'o_clerk');
    assert.equal(o[7], '0');
    between(o[8].length, 19, 78, 'o_comment length');

    const ls = lines.get(key)!;
    between(ls.length, 1, 7, 'lines of an order');
    let total = 0;
    ls.forEach((l, j) => {
      assert.equal(Number(l[3]), j + 1, 'l_linenumber');
      const part = Number(l[1]);
      between(part, 1, c.part, 'l_partkey');
      assert.ok([0, 1, 2, 3].some((s) => supplierOf(part, s, c.supplier) === Number(l[2])), 'l_suppkey is one of the part’s suppliers');
      const qty = Number(l[4]);
      between(qty, 1, 50, 'l_quantity');
      assert.equal(cents(l[5]), qty * retailCents(part), 'l_extendedprice');
      between(cents(l[6]), 0, 10, 'l_discount');
      between(cents(l[7]), 0, 8, 'l_tax');
      const ship = day(l[10]);
      const commit = day(l[11]);
      const receipt = day(l[12]);
      between(ship - od, 1, 121, 'l_shipdate - o_orderdate');
      between(commit - od, 30, 90, 'l_commitdate - o_orderdate');
      between(receipt - ship, 1, 30, 'l_receiptdate - l_shipdate');
      assert.equal(l[9], ship > current ? 'O' : 'F', 'l_linestatus');
      if (receipt <= current) assert.ok(['R', 'A'].includes(l[8]));
      else assert.equal(l[8], 'N');
      assert.ok(INSTRUCTIONS.includes(l[13]) && MODES.includes(l[14]));
      between(l[15].length, 10, 43, 'l_comment length');
      total += cents(l[5]) * (100 + cents(l[7])) * (100 - cents(l[6]));
    });
    assert.equal(cents(o[3]), Math.round(total / 10000), 'o_totalprice = sum of its lines');
    const f = ls.filter((l) => l[9] === 'F').length;
    assert.equal(o[2], f === ls.length ? 'F' : f === 0 ? 'O' : 'P', 'o_orderstatus');
  });
  // Every status and return flag occurs, and orders span the whole date range.
  assert.deepEqual(new Set(t.orders.map((o) => o[2])), new Set(['F', 'O', 'P']));
  assert.deepEqual(new Set(t.lineitem.map((l) => l[8])), new Set(['R', 'A', 'N']));
}

test('SF 0.01: cardinalities, key ranges, value domains and the rules between tables', () => checkAll(0.01));

test('SF 0.1: cardinalities, key ranges, value domains and the rules between tables', () => checkAll(0.1));

test('the same seed gives the same data; another seed other data; any chunk is the same made alone', () => {
  const digest = (g: Dbt3Generator) => {
    const h = createHash('sha256');
    for (const table of TABLES) for (const b of g.batches(table)) h.update(b);
    return h.digest('hex');
  };
  const a = new Dbt3Generator(0.01, 7);
  assert.equal(digest(a), digest(new Dbt3Generator(0.01, 7)));
  assert.notEqual(digest(a), digest(new Dbt3Generator(0.01, 8)));
  const whole = [...a.batches('lineitem')].join('');
  const pieces = [...a.batches('lineitem', 0, 5000), ...a.batches('lineitem', 5000, 15000)].join('');
  assert.equal(pieces, whole);
});

test('scale factors outside 0.01 to 10 are refused with the reason', () => {
  assert.match(sfProblem(0.001) ?? '', /outside 0.01 to 10/);
  assert.match(sfProblem(11) ?? '', /outside/);
  assert.match(sfProblem(Number.NaN) ?? '', /must be a number/);
  assert.equal(sfProblem(1), null);
  assert.throws(() => new Dbt3Generator(20), /outside/);
  assert.equal(cardinalities(1).lineitem, 6_000_000);
  // As typed (varlab new --sf, the welcome screen's field): the same refusals, and what was typed when it is no number.
  assert.deepEqual(sfFromText(' 0.02 '), { sf: 0.02 });
  assert.deepEqual(sfFromText('20'), { problem: 'the scale factor 20 is outside 0.01 to 10' });
  assert.deepEqual(sfFromText('abc'), { problem: 'the scale factor must be a number from 0.01 to 10, got "abc"' });
  assert.deepEqual(sfFromText(''), { problem: 'the scale factor must be a number from 0.01 to 10, got ""' });
  assert.match(sfFromText('0.015').problem ?? '', /more than two decimals/);
  assert.equal(cardinalities(10).orders, 15_000_000);
});

test('comments are text of the grammar: every word from its word lists, sentences ending in its terminators', async () => {
  const { textPool } = await import('../../src/common/dbt3/text.js');
  const spec = await import('../../src/common/dbt3/spec.js');
  const vocabulary = new Set(['the']);
  for (const list of [spec.NOUNS, spec.VERBS, spec.ADJECTIVES, spec.ADVERBS, spec.PREPOSITIONS, spec.AUXILIARIES]) for (const item of list.items) for (const w of item.split(' ')) vocabulary.add(w);
  const sample = textPool(1, 1 << 22).slice(0, 200_000);
  const words = sample.split(/[\s,.;:?!]+|--/).filter(Boolean).slice(1, -1); // the ends may be cut words
  const unknown = words.filter((w) => !vocabulary.has(w));
  assert.deepEqual([...new Set(unknown)], []);
  // The specification's weights: "the" comes in every prepositional phrase; '.' ends about 50 of 55 sentences.
  const ends = sample.match(/[.;:?!]|--/g)!;
  between(ends.filter((e) => e === '.').length / ends.length, 0.85, 0.96, 'share of sentences ending in .');
  for (const w of ['special', 'requests']) assert.ok(words.includes(w), `${w}: a word Q13 looks for`);
});
