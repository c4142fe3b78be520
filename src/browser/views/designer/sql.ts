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
