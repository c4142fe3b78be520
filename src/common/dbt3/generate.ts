// The DBT-3 / TPC-H data generator (TPC-H specification, Clause 4.2), written from the
// specification's rules: cardinalities at scale factor SF, key ranges (sparse order keys), value
// domains, dates, and comments from the grammar (text.ts). Rows come out as `.tbl` lines
// (`a|b|c|\n`, dbgen's format), so generated rows and a user's own .tbl files load the same way.
//
// Every row is a function of (seed, table, row index) alone, so any range of rows can be made on
// its own, in any order, with memory bounded by one batch of lines and the text pool.
import { Rng, streamSeed } from './rng.js';
import { COLORS, CONTAINERS, CURRENT_DAY, INSTRUCTIONS, LAST_ORDER_DAY, MODES, NATIONS, PRIORITIES, REGIONS, SEGMENTS, START_DATE, TYPES, VSTRING_CHARS, END_DAY } from './spec.js';
import { text, textPool, textPoolSize } from './text.js';
import { cardinalities, DEFAULT_SEED, sfProblem, type Dbt3Table } from './scale.js';

export { TABLES, MIN_SF, MAX_SF, DEFAULT_SEED, GENERATOR_VERSION, sfProblem, cardinalities, type Dbt3Table } from './scale.js';

/**
 * A table's rows come in units: one row each, except partsupp (4 rows per part) and lineitem
 * (1 to 7 rows per order). Chunks and resuming count units.
 */
export function units(table: Dbt3Table, sf: number): number {
  const c = cardinalities(sf);
  if (table === 'partsupp') return c.part;
  if (table === 'lineitem') return c.orders;
  return c[table];
}

/** O_ORDERKEY of the i-th order (from 0): only the first 8 keys of every 32 are used (4.2.3, sparse keys). */
export function orderKey(i: number): number {
  return Math.floor(i / 8) * 32 + (i % 8) + 1;
}

/** P_RETAILPRICE in cents (4.2.3). */
export function retailCents(partkey: number): number {
  return 90000 + (Math.floor(partkey / 10) % 20001) + 100 * (partkey % 1000);
}

/** The i-th (0 to 3) supplier of a part (4.2.3: PS_SUPPKEY, and L_SUPPKEY with i random). */
export function supplierOf(partkey: number, i: number, suppliers: number): number {
  return ((partkey + i * (Math.floor(suppliers / 4) + Math.floor((partkey - 1) / suppliers))) % suppliers) + 1;
}

const DATES: string[] = (() => {
  const base = Date.parse(`${START_DATE}T00:00:00Z`);
  const out: string[] = [];
  for (let d = 0; d <= END_DAY; d++) out.push(new Date(base + d * 86_400_000).toISOString().slice(0, 10));
  return out;
})();

export const dateOf = (day: number) => DATES[day];

export function money(cents: number): string {
  const a = Math.abs(cents);
  const c = a % 100;
  return `${cents < 0 ? '-' : ''}${(a - c) / 100}.${c < 10 ? '0' : ''}${c}`;
}

const pad9 = (n: number) => String(n).padStart(9, '0');
const hundredths = (n: number) => (n < 10 ? `0.0${n}` : `0.${n}`);

// Stream numbers: one per table, and a few for draws that are not a row's.
const S = { region: 0, nation: 1, part: 2, supplier: 3, partsupp: 4, customer: 5, orders: 6, line: 7, supplierComments: 8 } as const;

function vstring(rng: Rng, min: number, max: number): string {
  const n = rng.int(min, max);
  let s = '';
  for (let i = 0; i < n; i++) s += VSTRING_CHARS[Math.floor(rng.next() * 64)];
  return s;
}

/** What suppliers and customers both have, in this order: address, nation, phone (4.2.2.9: its country code is the nation's key + 10), balance. */
function contact(rng: Rng): string {
  const address = vstring(rng, 10, 40);
  const nation = rng.int(0, 24);
  const phone = `${nation + 10}-${rng.int(100, 999)}-${rng.int(100, 999)}-${rng.int(1000, 9999)}`;
  return `${address}|${nation}|${phone}|${money(rng.int(-99999, 999999))}`;
}

/** One line of an order: what the orders row needs (its price and status) and what the lineitem row prints. */
interface Line {
  partkey: number;
  suppkey: number;
  quantity: number;
  extended: number; // cents
  discount: number; // hundredths
  tax: number; // hundredths
  ship: number;
  commit: number;
  receipt: number;
  returnflag: string;
}

export class Dbt3Generator {
  readonly counts: Record<Dbt3Table, number>;
  private readonly pool: string;
  private readonly rng = new Rng();
  private readonly lineRng = new Rng();
  /** Rows of supplier whose comments carry "Customer…Complaints" (value 1) or "Customer…Recommends" (2). */
  private readonly bbb = new Map<number, number>();

  constructor(
    readonly sf: number,
    readonly seed: number = DEFAULT_SEED,
  ) {
    const problem = sfProblem(sf);
    if (problem) throw new Error(problem);
    if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) throw new Error(`the seed must be an integer from 0 to 4294967295, not ${seed}`);
    this.counts = cardinalities(sf);
    this.pool = textPool(seed, textPoolSize(sf));
    // SF*5 suppliers of each kind (4.2.3), one of each in every stretch of rows, at a random place in its half of it.
    const k = Math.round(this.sf * 5);
    const n = this.counts.supplier;
    const r = new Rng();
    for (let j = 0; j < k; j++) {
      r.reset(streamSeed(seed, S.supplierComments, j));
      this.bbb.set(Math.floor(((j + r.next() * 0.5) * n) / k), 1);
      this.bbb.set(Math.floor(((j + 0.5 + r.next() * 0.5) * n) / k), 2);
    }
  }

  units(table: Dbt3Table): number {
    return units(table, this.sf);
  }

  /** The `.tbl` lines of units [from, to) of a table, in key order, in strings of about `batchChars`. */
  *batches(table: Dbt3Table, from = 0, to = this.units(table), batchChars = 1 << 16): Generator<string> {
    let buf: string[] = [];
    let len = 0;
    for (let i = from; i < to; i++) {
      const rows = this.unit(table, i);
      buf.push(rows);
      len += rows.length;
      if (len >= batchChars) {
        yield buf.join('');
        buf = [];
        len = 0;
      }
    }
    if (buf.length) yield buf.join('');
  }

  /** The row (or rows, for partsupp and lineitem) of unit i of a table, each ending in `|\n`. */
  unit(table: Dbt3Table, i: number): string {
    switch (table) {
      case 'region':
        return this.region(i);
      case 'nation':
        return this.nation(i);
      case 'part':
        return this.part(i);
      case 'supplier':
        return this.supplier(i);
      case 'partsupp':
        return this.partsupp(i);
      case 'customer':
        return this.customer(i);
      case 'orders':
        return this.order(i);
      case 'lineitem':
        return this.lineitems(i);
    }
  }

  private row(table: number, i: number): Rng {
    return this.rng.reset(streamSeed(this.seed, table, i));
  }

  private region(i: number): string {
    const rng = this.row(S.region, i);
    return `${i}|${REGIONS[i]}|${text(rng, this.pool, 31, 115)}|\n`;
  }

  private nation(i: number): string {
    const rng = this.row(S.nation, i);
    const [name, region] = NATIONS[i];
    return `${i}|${name}|${region}|${text(rng, this.pool, 31, 114)}|\n`;
  }

  private part(i: number): string {
    const rng = this.row(S.part, i);
    const key = i + 1;
    // Five different colours (4.2.3: P_NAME).
    const picked: number[] = [];
    while (picked.length < 5) {
      const c = Math.floor(rng.next() * COLORS.length);
      if (!picked.includes(c)) picked.push(c);
    }
    const m = rng.int(1, 5);
    const n = rng.int(1, 5);
    const type = TYPES[Math.floor(rng.next() * TYPES.length)];
    const size = rng.int(1, 50);
    const container = CONTAINERS[Math.floor(rng.next() * CONTAINERS.length)];
    const comment = text(rng, this.pool, 5, 22);
    return `${key}|${picked.map((c) => COLORS[c]).join(' ')}|Manufacturer#${m}|Brand#${m}${n}|${type}|${size}|${container}|${money(retailCents(key))}|${comment}|\n`;
  }

  private supplier(i: number): string {
    const rng = this.row(S.supplier, i);
    const key = i + 1;
    const who = contact(rng);
    let comment = text(rng, this.pool, 25, 100);
    const kind = this.bbb.get(i);
    if (kind) {
      // "Customer", any characters, then "Complaints" or "Recommends", at a random place (4.2.3: S_COMMENT); same length.
      const gap = rng.int(0, comment.length - 18);
      const at = rng.int(0, comment.length - 18 - gap);
      comment = `${comment.slice(0, at)}Customer${comment.slice(at + 8, at + 8 + gap)}${kind === 1 ? 'Complaints' : 'Recommends'}${comment.slice(at + 18 + gap)}`;
    }
    return `${key}|Supplier#${pad9(key)}|${who}|${comment}|\n`;
  }

  private partsupp(i: number): string {
    const rng = this.row(S.partsupp, i);
    const key = i + 1;
    let out = '';
    for (let j = 0; j < 4; j++) {
      const qty = rng.int(1, 9999);
      const cost = rng.int(100, 100000);
      out += `${key}|${supplierOf(key, j, this.counts.supplier)}|${qty}|${money(cost)}|${text(rng, this.pool, 49, 198)}|\n`;
    }
    return out;
  }

  private customer(i: number): string {
    const rng = this.row(S.customer, i);
    const key = i + 1;
    const who = contact(rng);
    const segment = SEGMENTS[rng.int(0, 4)];
    return `${key}|Customer#${pad9(key)}|${who}|${segment}|${text(rng, this.pool, 29, 116)}|\n`;
  }

  /** The fields of order i that its lines need, drawn first from the order's stream. */
  private orderHead(i: number) {
    const rng = this.row(S.orders, i);
    // O_CUSTKEY is never a multiple of 3 (4.2.3): draw the j-th such key.
    const valid = this.counts.customer - Math.floor(this.counts.customer / 3);
    const j = rng.int(0, valid - 1);
    const custkey = j + Math.floor(j / 2) + 1;
    const date = rng.int(0, LAST_ORDER_DAY);
    const lines = rng.int(1, 7);
    return { rng, custkey, date, lines };
  }

  /** Line j (from 0) of order i, from its own stream; the comment is drawn last, so the orders pass can leave it out. */
  private line(i: number, j: number, orderDate: number): Line {
    const rng = this.lineRng.reset(streamSeed(this.seed, S.line, i * 8 + j));
    const partkey = rng.int(1, this.counts.part);
    const suppkey = supplierOf(partkey, rng.int(0, 3), this.counts.supplier);
    const quantity = rng.int(1, 50);
    const discount = rng.int(0, 10);
    const tax = rng.int(0, 8);
    const ship = orderDate + rng.int(1, 121);
    const commit = orderDate + rng.int(30, 90);
    const receipt = ship + rng.int(1, 30);
    const returnflag = receipt <= CURRENT_DAY ? (rng.next() < 0.5 ? 'R' : 'A') : 'N';
    return { partkey, suppkey, quantity, extended: quantity * retailCents(partkey), discount, tax, ship, commit, receipt, returnflag };
  }

  private order(i: number): string {
    const { rng, custkey, date, lines } = this.orderHead(i);
    const priority = PRIORITIES[rng.int(0, 4)];
    const clerk = rng.int(1, Math.max(1, Math.floor(this.sf * 1000 + 1e-9)));
    const comment = text(rng, this.pool, 19, 78);
    // O_TOTALPRICE = sum(L_EXTENDEDPRICE * (1 + L_TAX) * (1 - L_DISCOUNT)), kept exact (in cents × 10^4) and rounded once.
    let total = 0;
    let shipped = 0;
    for (let j = 0; j < lines; j++) {
      const l = this.line(i, j, date);
      total += l.extended * (100 + l.tax) * (100 - l.discount);
      if (l.ship <= CURRENT_DAY) shipped++;
    }
    const status = shipped === lines ? 'F' : shipped === 0 ? 'O' : 'P';
    return `${orderKey(i)}|${custkey}|${status}|${money(Math.round(total / 10000))}|${DATES[date]}|${priority}|Clerk#${pad9(clerk)}|0|${comment}|\n`;
  }

  private lineitems(i: number): string {
    const { date, lines } = this.orderHead(i);
    const key = orderKey(i);
    let out = '';
    for (let j = 0; j < lines; j++) {
      const l = this.line(i, j, date);
      const rng = this.lineRng;
      const instruct = INSTRUCTIONS[rng.int(0, 3)];
      const mode = MODES[rng.int(0, 6)];
      const comment = text(rng, this.pool, 10, 43);
      out += `${key}|${l.partkey}|${l.suppkey}|${j + 1}|${l.quantity}|${money(l.extended)}|${hundredths(l.discount)}|${hundredths(l.tax)}|${l.returnflag}|${l.ship > CURRENT_DAY ? 'O' : 'F'}|${DATES[l.ship]}|${DATES[l.commit]}|${DATES[l.receipt]}|${instruct}|${mode}|${comment}|\n`;
    }
    return out;
  }
}
