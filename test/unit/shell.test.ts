import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { asRoot, shellJoin, shellQuote } from '../../src/node/host/shell.js';

/** What /bin/sh makes of a quoted word: the one argument it passes on. */
const roundTrip = (word: string) => execFileSync('/bin/sh', ['-c', `printf '%s' ${shellQuote(word)}`], { encoding: 'utf8' });

test('plain words stay readable', () => {
  assert.equal(shellQuote('/usr/sbin/mariadbd'), '/usr/sbin/mariadbd');
  assert.equal(shellQuote('--datadir=/var/lib/mysql'), '--datadir=/var/lib/mysql');
  assert.equal(shellQuote(3306), '3306');
});

test('anything with shell syntax comes back from sh as the same single word', () => {
  for (const w of ['on; touch /tmp/x', "it's", "'", '$(id)', '`id`', 'a b', '', '*', 'x\ny', '\\', '"quoted"', "a'b'c", '>out', '!x']) {
    assert.equal(roundTrip(w), w, `round trip of ${JSON.stringify(w)}`);
  }
});

test('shellJoin quotes each word', () => {
  assert.equal(shellJoin(['echo', 'a b', "c'd"]), `echo 'a b' 'c'\\''d'`);
});

test('asRoot wraps in sudo -n only when the profile asks', () => {
  assert.equal(asRoot('cat /proc/1/maps', false), 'cat /proc/1/maps');
  assert.equal(asRoot("echo 'x' > /f", true), `sudo -n sh -c 'echo '\\''x'\\'' > /f'`);
});
