// Splitting an imported .sql file into one query per statement: the workload runs each query on
// its own and times it, so a file of five statements becomes five named queries.

/** Statements of a SQL text, split on `;` outside quotes and comments; empty and comment-only ones dropped. */
export function splitSql(text: string): string[] {
  const out: string[] = [];
  let current = '';
  let i = 0;
  const push = () => {
    const s = current.trim();
    if (s && stripComments(s).trim()) out.push(s);
    current = '';
  };
  while (i < text.length) {
    const ch = text[i];
    const two = text.slice(i, i + 2);
    if (ch === "'" || ch === '"' || ch === '`') {
      let j = i + 1;
      while (j < text.length && text[j] !== ch) j += text[j] === '\\' ? 2 : 1;
      current += text.slice(i, j + 1);
      i = j + 1;
    } else if (two === '--' || ch === '#') {
      const j = text.indexOf('\n', i);
      const end = j < 0 ? text.length : j;
      current += text.slice(i, end);
      i = end;
    } else if (two === '/*') {
      const j = text.indexOf('*/', i + 2);
      const end = j < 0 ? text.length : j + 2;
      current += text.slice(i, end);
      i = end;
    } else if (ch === ';') {
      push();
      i++;
    } else {
      current += ch;
      i++;
    }
  }
  push();
  return out;
}

function stripComments(s: string): string {
  return s.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(--|#)[^\n]*/g, '');
}

/** Queries named after the file: `q7` for one statement, `q7 #1`, `q7 #2` … for several. */
export function queriesFromSql(fileName: string, text: string, taken: string[]): { name: string; sql: string }[] {
  const base = fileName.replace(/\.sql$/i, '') || 'query';
  const statements = splitSql(text);
  const names = new Set(taken);
  return statements.map((sql, i) => {
    let name = statements.length === 1 ? base : `${base} #${i + 1}`;
    for (let n = 2; names.has(name); n++) name = `${statements.length === 1 ? base : `${base} #${i + 1}`} (${n})`;
    names.add(name);
    return { name, sql };
  });
}

/**
 * The table to propose for "Skip the setup when this table exists": the last one the setup script
 * creates (`CREATE TABLE [IF NOT EXISTS] name`) and keeps, since its statements run in order and that
 * one is there only once the others are. A table it drops after making it (a helper, as the
 * quickstart's `seq`) is not proposed. None when the script creates no table in its database (a name
 * like `other.t`) or is meant to run every time: it drops a table before making it, drops a database,
 * or replaces a table (CREATE OR REPLACE TABLE).
 */
export function setupTable(setupSql: string): string | undefined {
  const made: string[] = [];
  const name = (n: string) => n.replace(/`/g, '').toLowerCase();
  for (const statement of splitSql(setupSql)) {
    const s = stripComments(statement).trim();
    if (/^(drop\s+(database|schema)|create\s+or\s+replace\s+table)\b/i.test(s)) return undefined;
    const dropped = /^drop\s+(?:temporary\s+)?tables?\s+(?:if\s+exists\s+)?([\s\S]*)$/i.exec(s);
    if (dropped) {
      for (const n of dropped[1].split(',').map((x) => name(x.trim().split(/\s+/)[0]))) {
        const i = made.findIndex((m) => m.toLowerCase() === n);
        if (i < 0) return undefined;
        made.splice(i, 1);
      }
      continue;
    }
    const m = /^create\s+table\s+(?:if\s+not\s+exists\s+)?(`?)([A-Za-z_][A-Za-z0-9_]{0,63})\1(\s*\.)?/i.exec(s);
    if (m && !m[3]) made.push(m[2]);
  }
  return made.at(-1);
}

/**
 * A workload whose setup script changed: "Skip the setup when this table exists" follows the script
 * while the file has none (absent: nobody chose) or holds the table the old script proposed
 * (setupTable); a name of the user's own (another table), or '' (the user emptied it: no table), is kept.
 */
export function withSetupSql<W extends { setupSql: string; setupSkipIfTable?: string }>(w: W, setupSql: string): W {
  const { setupSkipIfTable: skip, ...rest } = w;
  if (skip !== undefined && skip !== setupTable(w.setupSql)) return { ...w, setupSql };
  const table = setupTable(setupSql);
  return { ...rest, setupSql, ...(table ? { setupSkipIfTable: table } : {}) } as W;
}
