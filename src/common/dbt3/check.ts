// What each query's result must be on freshly loaded data: its row count and a checksum of its
// rows. A wrong plan (an optimizer bug) or wrong data (a load that lost rows) changes one of them.
import { mix32 } from './rng.js';

export interface QueryExpectation {
  rows: number;
  checksum: string;
}

/** One value as the checksum sees it: numbers to 2 decimals (MySQL and MariaDB differ in trailing digits), text as is. */
function canonical(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'number' || typeof v === 'bigint') return Number(v).toFixed(2);
  const s = String(v);
  return /^-?\d+(\.\d+)?(e[-+]?\d+)?$/i.test(s) ? Number(s).toFixed(2) : s.trimEnd();
}

/**
 * A 64-bit checksum (two 32-bit FNV-1a lanes, finalised) of the rows, in sorted order so that rows
 * tied under ORDER BY may come in any order.
 */
export function resultChecksum(rows: unknown[][]): string {
  const lines = rows.map((r) => r.map(canonical).join('\t')).sort();
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ lines.length;
  for (const line of lines) {
    for (let i = 0; i < line.length; i++) {
      const c = line.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x5bd1e995);
    }
    a = Math.imul(a ^ 10, 0x01000193);
    b = Math.imul(b ^ 10, 0x5bd1e995);
  }
  return mix32(a).toString(16).padStart(8, '0') + mix32(b ^ a).toString(16).padStart(8, '0');
}
