// A streaming CSV reader (RFC 4180): text goes in as it is read, records come out one by one, so a
// file of any size is read in one pass and never held as one string. Quoted fields (a cell id holds
// commas) take the same fast road as plain ones: fields are found with indexOf, not character by
// character. Fields are trimmed outside quotes, blank lines skipped, CRLF and a leading BOM accepted.
// Every problem names the line, counted as an editor counts them (a quoted newline starts a line).

/** A malformed record: the line it starts on and what is wrong. */
export class CsvError extends Error {
  constructor(
    readonly line: number,
    readonly problem: string,
  ) {
    super(`line ${line}: ${problem}`);
  }
}

const QUOTE = 34;
const COMMA = 44;
const NEWLINE = 10;
const isBlank = (c: number) => c === 32 || c === 9 || c === 13;

/** Trim spaces, tabs and carriage returns at both ends, without a copy when there are none. */
function trim(s: string): string {
  const n = s.length;
  if (n === 0 || (!isBlank(s.charCodeAt(0)) && !isBlank(s.charCodeAt(n - 1)))) return s;
  let a = 0;
  let b = n;
  while (a < b && isBlank(s.charCodeAt(a))) a++;
  while (b > a && isBlank(s.charCodeAt(b - 1))) b--;
  return s.slice(a, b);
}

export type OnRecord = (fields: string[], line: number) => void;

export class CsvReader {
  private buffer = '';
  /** The line the buffer starts on. */
  private line = 1;
  private first = true;

  constructor(private readonly onRecord: OnRecord) {}

  /** The next piece of the text (any size, cut anywhere). */
  push(text: string): void {
    if (this.first && text.length) {
      this.first = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    this.buffer = this.buffer.length ? this.buffer + text : text;
    this.consume(false);
  }

  /** The text has ended: the last record may lack its newline. */
  end(): void {
    this.consume(true);
  }

  private consume(final: boolean): void {
    const s = this.buffer;
    const n = s.length;
    let at = 0;
    // Where the next quote is, found once and reused until passed: a file without quotes is searched once.
    let quote = -2;
    while (at < n) {
      let nl = s.indexOf('\n', at);
      if (nl < 0) {
        if (!final) break;
        nl = n;
      }
      if (quote !== -1 && quote < at) quote = s.indexOf('"', at);
      if (quote === -1 || quote > nl) {
        // No quote in this record: split it.
        const raw = s.slice(at, nl);
        at = nl + 1;
        const line = this.line++;
        const fields = raw.split(',');
        if (fields.length === 1 && trim(raw) === '') continue;
        for (let i = 0; i < fields.length; i++) fields[i] = trim(fields[i]);
        this.onRecord(fields, line);
        continue;
      }
      const next = this.quoted(s, at, final);
      if (next < 0) break;
      at = next;
    }
    this.buffer = at >= n ? '' : s.slice(at);
  }

  /**
   * One record holding a quote, from `at`: emitted, and the index after its newline returned; -1 when
   * the text so far ends inside it (more is coming).
   */
  private quoted(s: string, at: number, final: boolean): number {
    const n = s.length;
    const start = this.line;
    let lines = 0;
    const fields: string[] = [];
    let pos = at;
    for (;;) {
      while (pos < n && isBlank(s.charCodeAt(pos)) && s.charCodeAt(pos) !== 13) pos++;
      let field: string;
      if (pos < n && s.charCodeAt(pos) === QUOTE) {
        let from = pos + 1;
        let text = '';
        let close = s.indexOf('"', from);
        // A doubled quote is one quote inside the field.
        while (close >= 0 && close + 1 < n && s.charCodeAt(close + 1) === QUOTE) {
          text += s.slice(from, close + 1);
          from = close + 2;
          close = s.indexOf('"', from);
        }
        if (close < 0 || (close + 1 >= n && !final)) {
          if (!final) return -1;
          throw new CsvError(start, 'a quoted field is not closed: a quote (") is missing');
        }
        field = text + s.slice(from, close);
        for (let i = field.indexOf('\n'); i >= 0; i = field.indexOf('\n', i + 1)) lines++;
        pos = close + 1;
        while (pos < n && isBlank(s.charCodeAt(pos)) && !(s.charCodeAt(pos) === 13 && s.charCodeAt(pos + 1) === NEWLINE)) pos++;
        const c = pos < n ? s.charCodeAt(pos) : NEWLINE;
        if (c !== COMMA && c !== NEWLINE && c !== 13) {
          throw new CsvError(start + lines, `unexpected ${JSON.stringify(s[pos])} after a closing quote: a quote inside a quoted field is written twice ("")`);
        }
      } else {
        let end = s.indexOf(',', pos);
        let nl = s.indexOf('\n', pos);
        if (nl < 0) {
          if (!final) return -1;
          nl = n;
        }
        if (end < 0 || end > nl) end = nl;
        field = trim(s.slice(pos, end));
        if (field.includes('"')) throw new CsvError(start + lines, `a quote inside an unquoted field (${JSON.stringify(field)}): quote the whole field`);
        pos = end;
      }
      fields.push(field);
      if (pos < n && s.charCodeAt(pos) === COMMA) {
        pos++;
        continue;
      }
      // The end of the record: an optional carriage return, then a newline or the end of the text.
      if (pos < n && s.charCodeAt(pos) === 13) pos++;
      if (pos < n && s.charCodeAt(pos) !== NEWLINE) throw new CsvError(start + lines, 'a carriage return inside an unquoted field');
      if (pos >= n && !final) return -1;
      this.line += lines + 1;
      this.onRecord(fields, start);
      return pos + 1;
    }
  }
}
