// The text of an experiment file, written and read in pieces so that no size limit comes from one
// string (V8 stops at 512 MiB) and a million executions cost one pass over the bytes.
//
// Written: the document as indented JSON, except each restart of the results, which is one line of
// compact JSON. A 1M-execution file is 10 MB instead of 25 MB (one value per indented line), a diff
// shows which restarts changed, and any JSON reader still reads it: only the whitespace differs, so
// the format and its version are unchanged.
//
// Read: any valid JSON layout. A scanner that only follows strings and brackets cuts the elements of
// `results.restarts` out of the byte stream and parses each on its own; the rest of the document
// (the design) is parsed as one small piece. Input that is not valid JSON is not judged here: the
// caller re-reads it whole to name the line and column (parseExperiment).
import type { ExperimentDoc, RestartResult } from './types.js';

/** Indent every line after the first by `by` spaces (JSON.stringify(x, null, 2) nested one level deeper). */
const indent = (json: string, by: string) => json.replace(/\n/g, `\n${by}`);

/**
 * The file's text in pieces, in order: join them (or write them one after another) for the whole file.
 * `results` is written last and its `restarts` last in it, whatever order the object has.
 */
export function* experimentText(doc: ExperimentDoc): Generator<string> {
  const { results, ...design } = doc;
  const head = JSON.stringify(design, null, 2);
  if (!results) {
    yield head + '\n';
    return;
  }
  const { restarts, ...meta } = results;
  const metaJson = indent(JSON.stringify(meta, null, 2), '  ');
  // `{\n  "a": 1\n}` opened up: everything but the closing brace, ready for one more field.
  const open = (json: string, close: string) => (json.endsWith('{}') ? json.slice(0, -1) : `${json.slice(0, -close.length)},`);
  let text = `${open(head, '\n}')}\n  "results": ${open(metaJson, '\n  }')}\n    "restarts": [`;
  if (!restarts?.length) {
    yield `${text}]\n  }\n}\n`;
    return;
  }
  for (let i = 0; i < restarts.length; i++) {
    text += `\n      ${JSON.stringify(restarts[i])}${i < restarts.length - 1 ? ',' : ''}`;
    // Pieces of about a megabyte: few writes, and never one string of the whole file.
    if (text.length > 1 << 20) {
      yield text;
      text = '';
    }
  }
  yield `${text}\n    ]\n  }\n}\n`;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COLON = 0x3a;
const isSpace = (b: number) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
const bytesOf = (s: string) => Array.from(s, (c) => c.charCodeAt(0));
const RESULTS = bytesOf('results');
const RESTARTS = bytesOf('restarts');
/** The bytes that open or close a string or container. */
const STRUCTURE = new Uint8Array(256);
for (const b of [QUOTE, OPEN_OBJECT, CLOSE_OBJECT, OPEN_ARRAY, CLOSE_ARRAY]) STRUCTURE[b] = 1;
/** Keys are remembered up to this many bytes: enough for the two that matter. */
const KEY_MAX = 16;

/** The input is not valid JSON: the caller reports where, from the whole text. */
export class NotJson extends Error {}

/**
 * Push the bytes of an experiment file in chunks, then end(): the parsed JSON value, with
 * `results.restarts` parsed one restart at a time. Throws NotJson when the bytes are not valid JSON.
 */
export class ExperimentJsonReader {
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });
  /** Everything but the restarts, copied out of the chunks (the design: small). */
  private readonly rest: Uint8Array[] = [];
  private readonly restarts: unknown[] = [];
  /** The restart being read: views of the chunks it spans. */
  private element: Uint8Array[] = [];
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** The first bytes of the last string (a key when a colon follows); longer than KEY_MAX or escaped: no key of ours. */
  private readonly key: number[] = [];
  private keyLength = 0;
  private lastKey = '';
  private afterColon = false;
  /** -1 before the results object, 2 inside it (its members are at depth 2), -2 after it. */
  private resultsDepth = -1;
  /** True inside the `restarts` array of results (its elements are at depth 3). */
  private inRestarts = false;
  private inElement = false;
  /** Inside restarts, between elements: a comma is due before the next one. */
  private expectComma = false;
  private sawComma = false;
  /** Keys seen twice make JSON.parse keep the last one: then the whole-text parse decides. */
  private resultsKeys = 0;
  private restartsKeys = 0;
  /** The restarts were read apart from the rest. */
  private split = false;

  push(chunk: Uint8Array): void {
    let from = 0;
    const n = chunk.length;
    for (let i = 0; i < n; i++) {
      // Inside a restart only strings and brackets matter: skip the numbers between them in a tight loop.
      if (this.inElement && this.depth > 3) {
        if (this.inString) {
          if (this.escaped) this.escaped = false;
          else {
            while (i < n && chunk[i] !== QUOTE && chunk[i] !== BACKSLASH) i++;
            if (i === n) break;
            if (chunk[i] === BACKSLASH) this.escaped = true;
            else this.inString = false;
          }
          continue;
        }
        while (i < n && !STRUCTURE[chunk[i]]) i++;
        if (i === n) break;
      }
      const b = chunk[i];
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (b === BACKSLASH) {
          this.escaped = true;
          this.keyLength = KEY_MAX + 1;
        } else if (b === QUOTE) this.inString = false;
        else if (this.keyLength < KEY_MAX) this.key[this.keyLength++] = b;
        else this.keyLength = KEY_MAX + 1;
        continue;
      }
      if (this.inRestarts && this.depth === 3) {
        // Only a restart that is not an object or array (invalid, JSON.parse says why) ends here.
        if (this.inElement && (b === COMMA || b === CLOSE_ARRAY || isSpace(b))) this.endElement(chunk, from, i);
        if (!this.inElement) {
          // Between the restarts: whitespace, one comma, or the end of the array.
          if (isSpace(b)) continue;
          if (b === COMMA) {
            if (!this.expectComma) throw new NotJson('a comma without a value before it');
            this.expectComma = false;
            this.sawComma = true;
            continue;
          }
          if (b === CLOSE_ARRAY) {
            if (this.sawComma && !this.expectComma) throw new NotJson('a comma before the end of an array');
            this.inRestarts = false;
            this.depth--;
            from = i;
            continue;
          }
          if (this.expectComma) throw new NotJson('two values without a comma between them');
          this.inElement = true;
          from = i;
        }
      }
      if (b === QUOTE) {
        this.inString = true;
        this.keyLength = 0;
      } else if (b === OPEN_OBJECT || b === OPEN_ARRAY) {
        const valueOf = this.afterColon ? this.lastKey : '';
        this.depth++;
        if (b === OPEN_OBJECT && this.depth === 2 && valueOf === 'results' && this.resultsDepth === -1) this.resultsDepth = 2;
        else if (b === OPEN_ARRAY && this.depth === 3 && this.resultsDepth === 2 && valueOf === 'restarts') {
          // The `[` stays in the rest of the document, the elements go one by one, the `]` stays too.
          this.keep(chunk, from, i + 1);
          from = i + 1;
          this.inRestarts = true;
          this.split = true;
        }
      } else if (b === CLOSE_OBJECT || b === CLOSE_ARRAY) {
        if (this.depth === 2 && this.resultsDepth === 2) this.resultsDepth = -2;
        this.depth--;
        if (this.depth < 0) throw new NotJson('a closing bracket without an opening one');
        if (this.inElement && this.depth === 3) this.endElement(chunk, from, i + 1);
      } else if (b === COLON) {
        this.lastKey = this.keyLength <= KEY_MAX ? this.keyText() : '';
        if (this.depth === 1 && this.lastKey === 'results') this.resultsKeys++;
        if (this.depth === 2 && this.resultsDepth === 2 && this.lastKey === 'restarts') this.restartsKeys++;
        this.afterColon = true;
        continue;
      }
      if (!isSpace(b)) this.afterColon = false;
    }
    if (this.inElement) this.element.push(chunk.subarray(from, n));
    else if (!this.inRestarts) this.keep(chunk, from, n);
  }

  /** The parsed document. */
  end(): unknown {
    if (this.inString || this.depth !== 0 || this.inElement || this.inRestarts) throw new NotJson('the text ends inside a value');
    if (this.resultsKeys > 1 || this.restartsKeys > 1) throw new NotJson('a key appears twice');
    let doc: unknown;
    try {
      doc = JSON.parse(this.decode(this.rest));
    } catch (e) {
      throw new NotJson((e as Error).message);
    }
    if (this.split) {
      const results = (doc as { results?: { restarts?: unknown } }).results;
      if (!results || !Array.isArray(results.restarts)) throw new NotJson('results.restarts is not where it was read');
      results.restarts = this.restarts;
    }
    return doc;
  }

  private keyText(): string {
    const k = this.key;
    const is = (word: number[]) => this.keyLength === word.length && word.every((c, j) => k[j] === c);
    return is(RESULTS) ? 'results' : is(RESTARTS) ? 'restarts' : '';
  }

  private keep(chunk: Uint8Array, from: number, to: number): void {
    if (to > from) this.rest.push(chunk.slice(from, to));
  }

  private endElement(chunk: Uint8Array, from: number, to: number): void {
    this.element.push(chunk.subarray(from, to));
    const text = this.decode(this.element);
    this.element = [];
    this.inElement = false;
    this.expectComma = true;
    try {
      this.restarts.push(JSON.parse(text) as RestartResult);
    } catch (e) {
      throw new NotJson((e as Error).message);
    }
  }

  private decode(parts: Uint8Array[]): string {
    try {
      if (parts.length === 1) return this.decoder.decode(parts[0]);
      const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
      let at = 0;
      for (const p of parts) {
        all.set(p, at);
        at += p.length;
      }
      return this.decoder.decode(all);
    } catch (e) {
      throw new NotJson((e as Error).message);
    }
  }
}
