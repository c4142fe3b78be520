// The setup script: run once before the first restart to create and fill the workload's data,
// skipped when its data is already there.
import type { Connection } from 'mysql2/promise';
import { isConnectionLoss } from '../engine/connection.js';

/**
 * Split a script into statements on `;` outside quotes and comments. Done here rather than with
 * the driver's multipleStatements so that a failure names the statement that failed, and so that
 * no connection ever has multi-statement mode on.
 */
export function splitStatements(script: string): string[] {
  const out: string[] = [];
  let cur = '';
  let i = 0;
  const n = script.length;
  while (i < n) {
    const c = script[i];
    const next = script[i + 1];
    if (c === '-' && next === '-' && (i + 2 >= n || /\s/.test(script[i + 2]))) {
      while (i < n && script[i] !== '\n') i++;
      continue;
    }
    if (c === '#') {
      while (i < n && script[i] !== '\n') i++;
      continue;
    }
    if (c === '/' && next === '*') {
      const end = script.indexOf('*/', i + 2);
      i = end < 0 ? n : end + 2;
      cur += ' ';
      continue;
    }
    if (c === "'" || c === '"' || c === '`') {
      let j = i + 1;
      while (j < n) {
        if (script[j] === '\\' && c !== '`') j += 2;
        else if (script[j] === c && script[j + 1] === c) j += 2;
        else if (script[j] === c) break;
        else j++;
      }
      cur += script.slice(i, j + 1);
      i = j + 1;
      continue;
    }
    if (c === ';') {
      if (cur.trim()) out.push(cur.trim());
      cur = '';
      i++;
      continue;
    }
    cur += c;
    i++;
  }
  if (cur.trim()) out.push(cur.trim());
  return out;
}

export interface SetupOutcome {
  skipped: boolean;
  statements: number;
  ms: number;
}

/** CREATE DATABASE IF NOT EXISTS, then the script unless `skipIfTable` already exists in the database (`scriptStarts` is told before its first statement). */
export async function runSetup(conn: Connection, database: string, script: string, skipIfTable?: string, scriptStarts?: () => void): Promise<SetupOutcome> {
  const t0 = Date.now();
  await conn.query(`CREATE DATABASE IF NOT EXISTS ${conn.escapeId(database)}`);
  await conn.query(`USE ${conn.escapeId(database)}`);
  if (skipIfTable) {
    const [rows] = await conn.query('SELECT 1 FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?', [database, skipIfTable]);
    if (Array.isArray(rows) && rows.length > 0) return { skipped: true, statements: 0, ms: Date.now() - t0 };
  }
  const statements = splitStatements(script);
  scriptStarts?.();
  for (const [i, sql] of statements.entries()) {
    try {
      await conn.query(sql);
    } catch (e) {
      // A lost connection is not the statement's fault: the engine reconnects and runs the setup again.
      if (isConnectionLoss(e)) throw e;
      throw setupFailure(i, statements, (e as Error).message);
    }
  }
  return { skipped: false, statements: statements.length, ms: Date.now() - t0 };
}

/**
 * The error for setup statement i (from 0) failing: which one, the server's message, and its start.
 * A table that already exists (the data of an earlier run: a second run of a new user's design) also
 * says the way out, which the message alone does not.
 */
export function setupFailure(i: number, statements: string[], message: string): Error {
  const exists = /Table '(?:[^'.]+\.)?([^'.]+)' already exists/.exec(message);
  const way = exists
    ? `\n  The data is there from an earlier run: to keep it, set "Skip the setup when this table exists" to ${exists[1]} in the Designer (design.workload.setupSkipIfTable in the file); to make it again each run, begin the script with DROP TABLE IF EXISTS ${exists[1]};`
    : '';
  return new Error(`setup script, statement ${i + 1} of ${statements.length} failed: ${message}\n  ${(statements[i] ?? '').slice(0, 200)}${way}`);
}
