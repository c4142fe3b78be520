// Each host of a run connects its own way (issue 14, part 2): what was given for that target, else
// what was given for every host, else its Hosts-list entry; never the first host's for all.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hostAuths } from '../../src/node/runs/auth.js';

test('each target its own key and known-hosts file, field by field', async () => {
  const home = mkdtempSync(join(tmpdir(), 'varlab-hostauth-'));
  const before = process.env.VARLAB_HOME;
  process.env.VARLAB_HOME = home;
  try {
    writeFileSync(join(home, 'hosts.json'), JSON.stringify({ 'ssh://b': { addedAt: 1, auth: { identity: '/keys/b', knownHosts: '/kh/b' } }, 'ssh://c': { addedAt: 2, auth: { identity: '/keys/c' } } }));
    const none = await hostAuths(['ssh://a', 'ssh://b', 'ssh://c']);
    assert.equal(none.get('ssh://a'), undefined, 'nothing given, nothing listed: ~/.ssh/config decides');
    assert.deepEqual(none.get('ssh://b'), { identity: '/keys/b', knownHosts: '/kh/b' }, "the Hosts list's entry, not the first host's");
    assert.deepEqual(none.get('ssh://c'), { identity: '/keys/c' });

    const shared = await hostAuths(['ssh://a', 'ssh://b'], { knownHosts: '/kh/all', acceptNewHostKey: true });
    assert.deepEqual(shared.get('ssh://a'), { knownHosts: '/kh/all', acceptNewHostKey: true });
    assert.deepEqual(shared.get('ssh://b'), { identity: '/keys/b', knownHosts: '/kh/all', acceptNewHostKey: true }, 'what is given for every host, over the list, field by field');

    const own = await hostAuths(['ssh://a', 'ssh://b'], { identity: '/keys/all' }, { 'ssh://a': { identity: '/keys/a' }, 'ssh://b': { knownHosts: '/kh/bb' } });
    assert.deepEqual(own.get('ssh://a'), { identity: '/keys/a' });
    assert.deepEqual(own.get('ssh://b'), { identity: '/keys/all', knownHosts: '/kh/bb' });
  } finally {
    if (before === undefined) delete process.env.VARLAB_HOME;
    else process.env.VARLAB_HOME = before;
    rmSync(home, { recursive: true, force: true });
  }
});
