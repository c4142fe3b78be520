// The streaming CSV reader against csv-parse (an independent implementation) on awkward text cut into
// pieces anywhere, and the problems it names by line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { CsvError, CsvReader } from '../../src/common/csv/reader.js';
import { seededRandom } from '../../src/common/plan.js';

/** Records and their lines, reading `text` in pieces of `size` characters. */
function read(text: string, size: number): { fields: string[]; line: number }[] {
  const out: { fields: string[]; line: number }[] = [];
  const r = new CsvReader((fields, line) => out.push({ fields, line }));
  for (let i = 0; i < text.length; i += size) r.push(text.slice(i, i + size));
  r.end();
  return out;
}

const oracle = (text: string): string[][] => parse(text, { bom: true, trim: true, skip_empty_lines: true, relax_column_count: true });

const AWKWARD = [
  'cell,restart,query,rep,value\n"aslr=on,ahi=off",1,Q1,1,5.5\n"aslr=on,ahi=off",1,Q1,2,6\n',
  '\ufeffa,b\r\n1,2\r\n\r\n3,4',
  'a,b\n"x ""quoted"" y",2\n"multi\nline\r\nfield",3\n  spaced  ,  "kept  "  \n',
  'a\n\n   \n\t\nb\n',
  '"",""\n,\n"a",\n,"b"',
  'q,v\n"Q3 ""shipping"", priority",1e-7\n"ünï,cödé ✓",-0.5\n',
  'x\n"ends without newline"',
  'x\r\n"crlf at the end"\r\n',
];

test('the records csv-parse reads, whatever the pieces the text comes in', () => {
  for (const text of AWKWARD) {
    const expected = oracle(text);
    for (const size of [1, 2, 3, 5, 8, 64, 1 << 20]) {
      assert.deepEqual(
        read(text, size).map((r) => r.fields),
        expected,
        `${JSON.stringify(text)} in pieces of ${size}`,
      );
    }
  }
});

test('random records with commas, quotes, newlines and spaces read back exactly', () => {
  const random = seededRandom(42);
  const alphabet = ['a', 'b', 'Z', '1', '.', ',', '"', '\n', ' ', 'é', '✓', '-', '='];
  const field = () => Array.from({ length: Math.floor(random() * 8) }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
  for (let round = 0; round < 200; round++) {
    const width = 1 + Math.floor(random() * 5);
    const rows = Array.from({ length: 1 + Math.floor(random() * 6) }, () => Array.from({ length: width }, field));
    // A record of one empty field is a blank line, which readers skip.
    const kept = rows.filter((r) => !(r.length === 1 && r[0].trim() === ''));
    // csv-stringify quotes a field holding the record delimiter, not a lone \n: quote those too.
    const text = stringify(kept, { record_delimiter: random() < 0.5 ? '\n' : '\r\n', quoted_match: /^\s|\s$|[\r\n]/ });
    const size = 1 + Math.floor(random() * 20);
    assert.deepEqual(read(text, size).map((r) => r.fields), kept, JSON.stringify(text));
  }
});

test('lines are counted as an editor counts them, quoted newlines included', () => {
  const text = 'h\n"one\ntwo"\n\nthree\n"four"\n';
  assert.deepEqual(read(text, 3).map((r) => r.line), [1, 2, 5, 6]);
});

test('malformed text names the line and what is wrong', () => {
  const cases: [string, RegExp][] = [
    ['a,b\n1,2\n"open,3\n4,5\n', /^line 3: a quoted field is not closed/],
    ['a,b\n"x"y,2\n', /^line 2: unexpected "y" after a closing quote/],
    ['a,b\n1,2\nab"c,"d"\n', /^line 3: a quote inside an unquoted field \("ab\\"c"\)/],
    ['a\n"x\ny"\n"z" w\n', /^line 4: unexpected "w" after a closing quote/],
  ];
  for (const [text, message] of cases) {
    for (const size of [1, 4, 100]) {
      assert.throws(() => read(text, size), (e: unknown) => e instanceof CsvError && message.test(e.message), `${JSON.stringify(text)} in pieces of ${size}`);
    }
  }
});
