// The floor a whole command is compared with: the same file read by the simplest streaming code.
// Usage: node scripts/bench/lib/floor.mjs FILE read|parse
//   read   stream the bytes and count the lines (what reading the file costs)
//   parse  a CSV: stream, decode, split into lines and fields on commas, Number() the last field
//          (no quotes, no checks, nothing kept); a JSON file: read it whole and JSON.parse it
// Plain JavaScript, no build step: it starts as fast as node does.
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';

const [file, how] = process.argv.slice(2);
let lines = 0;
if (how === 'read') {
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) {
    for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) lines++;
  }
} else if (/\.json$/i.test(file)) {
  const doc = JSON.parse(await readFile(file, 'utf8'));
  lines = doc.results?.restarts?.length ?? 0;
} else {
  const decoder = new StringDecoder('utf8');
  let rest = '';
  let sum = 0;
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) {
    const all = rest + decoder.write(chunk);
    const end = all.lastIndexOf('\n');
    rest = all.slice(end + 1);
    for (const line of all.slice(0, end).split('\n')) {
      const fields = line.split(',');
      sum += Number(fields[fields.length - 1]) || 0;
      lines++;
    }
  }
  if (rest) lines++;
  if (!Number.isFinite(sum)) lines = -1;
}
process.stdout.write(`${lines}\n`);
