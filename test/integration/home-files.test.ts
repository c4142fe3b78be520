// varlab's own files in one VARLAB_HOME changed by several processes at once (the app, browser mode,
// any number of CLIs): the Hosts list (hosts.json) and the server profiles (profiles.json). Each change
// reads the file and writes it all back; without one writer at a time across processes, a process
// wrote its read of the file over another's change, and a host added or a sandbox registered was
// gone. And a process killed while it holds a file's lock does not stop the others.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const WRITERS = 4;
const EACH = 15;

function start(args: string[], home: string): { p: ChildProcess; said: (line: string) => Promise<void>; done: Promise<{ code: number; err: string }> } {
  const p = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/home-writer.ts', ...args], { env: { ...process.env, VARLAB_HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  p.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const lines = createInterface({ input: p.stdout! });
  const said = (want: string) => new Promise<void>((resolve, reject) => {
    lines.on('line', (l) => l === want && resolve());
    p.on('close', () => reject(new Error(`${args.join(' ')} ended before saying ${want}: ${err}`)));
  });
  const done = new Promise<{ code: number; err: string }>((resolve) => p.on('close', (code) => resolve({ code: code ?? 1, err })));
  return { p, said, done };
}

/** WRITERS processes, started at once, each adding EACH hosts and EACH profiles at once. */
async function addAtOnce(home: string, dir: string, names: string[]): Promise<void> {
  const go = join(dir, `go-${names[0]}`);
  const writers = names.map((n) => start(['add', n, String(EACH), go], home));
  await Promise.all(writers.map((w) => w.said('ready')));
  writeFileSync(go, '');
  for (const w of writers) {
    const r = await w.done;
    assert.equal(r.code, 0, r.err);
  }
}

function expectAll(home: string, names: string[]): void {
  const hosts = Object.keys(JSON.parse(readFileSync(join(home, 'hosts.json'), 'utf8')));
  const profiles = Object.keys(JSON.parse(readFileSync(join(home, 'profiles.json'), 'utf8')));
  const want = (kind: string) => names.flatMap((n) => Array.from({ length: EACH }, (_, i) => `ssh://${n}-${kind}-${i}`)).sort();
  assert.deepEqual(hosts.sort(), want('host'), 'every host added is in the Hosts list');
  assert.deepEqual(profiles.sort(), want('sandbox'), 'every profile registered is in profiles.json');
  assert.deepEqual(readdirSync(home).filter((f) => f.endsWith('.tmp') || f.includes('.lock')), [], 'no lock, marker or temporary file is left');
}

test(`${WRITERS} processes adding hosts and registering profiles at once in one VARLAB_HOME: none is lost`, { timeout: 240_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'varlab-home-files-'));
  try {
    // A VARLAB_HOME not made yet: the first writes make the folder, and the lock in it.
    const home = join(dir, 'home');
    const names = Array.from({ length: WRITERS }, (_, k) => `w${k}`);
    await addAtOnce(home, dir, names);
    expectAll(home, names);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a process killed while holding the Hosts list\'s lock: the next writers take it over, one at a time, and lose nothing', { timeout: 240_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'varlab-home-files-'));
  try {
    const home = join(dir, 'home');
    await addAtOnce(home, dir, ['before']);
    const holder = start(['hold'], home);
    await holder.said('held');
    holder.p.kill('SIGKILL');
    await holder.done;
    assert.deepEqual(readdirSync(home).filter((f) => f.includes('.lock')), ['.hosts.json.lock'], 'the killed holder left its lock');
    const names = Array.from({ length: WRITERS }, (_, k) => `after${k}`);
    await addAtOnce(home, dir, names);
    expectAll(home, ['before', ...names]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a file that is not JSON (cut by a full disk, edited by hand) is kept aside, not written over, and said', async () => {
  const home = mkdtempSync(join(tmpdir(), 'varlab-home-broken-'));
  try {
    const cut = '{\n  "ssh://root@db1": { "target": "ssh://root@db1", "identity": "/home/me/.ssh/id_db1" },\n  "ssh://root@db2": { "tar';
    writeFileSync(join(home, 'hosts.json'), cut);
    const w = start(['add', 'after', '1', join(home, 'go')], home);
    await w.said('ready');
    writeFileSync(join(home, 'go'), '');
    const r = await w.done;
    assert.equal(r.code, 0, r.err);
    const aside = readdirSync(home).filter((f) => f.startsWith('hosts.json.unreadable-'));
    assert.equal(aside.length, 1, readdirSync(home).join(' '));
    assert.equal(readFileSync(join(home, aside[0]), 'utf8'), cut, 'the entries it held are still there, byte for byte');
    assert.match(r.err, new RegExp(`varlab: ${join(home, 'hosts.json').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} was not JSON: kept as ${join(home, aside[0]).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`));
    assert.equal(Object.keys(JSON.parse(readFileSync(join(home, 'hosts.json'), 'utf8')) as object).length, 1, 'the new list holds the change');
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});
