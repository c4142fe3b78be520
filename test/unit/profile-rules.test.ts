// A server profile follows the experiment file's rules wherever it comes from (a sandbox, the Hosts
// view, a file): the checks in common/profile.ts are the schema's own patterns, so a registered profile
// can always be saved with a run's results, and a path or option the file refuses never reaches a shell.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { checkProfile, LOGIN_USER, OPTION, optionFromSetting, PROFILE_PATH } from '../../src/common/profile.js';
import type { ServerProfile } from '../../src/common/experiment/types.js';
import { parseExperiment } from '../../src/common/experiment/validate.js';

const schema = JSON.parse(readFileSync('src/common/experiment/experiment.schema.json', 'utf8'));
const sp = schema.definitions.serverProfile.properties;

test('the profile checks are the schema patterns', () => {
  const same = (re: RegExp, pattern: string) => assert.equal(re.source, new RegExp(pattern).source);
  same(PROFILE_PATH, schema.definitions.path.pattern);
  same(OPTION, sp.extraArgs.items.pattern);
  same(LOGIN_USER, sp.user.pattern);
});

const profile: ServerProfile = { kind: 'direct', mysqld: '/usr/sbin/mariadbd', datadir: '/var/lib/mysql', socket: '/run/mysqld/mysqld.sock', port: 3306, user: 'root', extraArgs: ['--skip-log-bin'], sudo: false };

test('a profile path, user or option the file could not hold is refused, naming the field', () => {
  assert.doesNotThrow(() => checkProfile(profile));
  assert.throws(() => checkProfile({ ...profile, datadir: "/srv/my data/$(id)'" }), /server profile datadir: expected an absolute path of letters, digits and _ \. \/ \+ -/);
  assert.throws(() => checkProfile({ ...profile, socket: '/tmp/a;b.sock' }), /server profile socket/);
  assert.throws(() => checkProfile({ ...profile, user: "root' --init-command=x" }), /server profile user/);
  assert.throws(() => checkProfile({ ...profile, extraArgs: ['--log-error=/tmp/$(id)'] }), /server profile extraArgs/);
  // --set-option makes options the file can hold.
  assert.equal(optionFromSetting('innodb_flush_method=O_DIRECT'), '--innodb-flush-method=O_DIRECT');
  assert.ok(OPTION.test(optionFromSetting('innodb_data_home_dir=/srv/a+b')));
  assert.throws(() => optionFromSetting('innodb_x=a@b'), /server option innodb_x/);
  assert.throws(() => optionFromSetting('Innodb_x=1'), /server option/);
});

test('validate refuses a `..` in a file\'s profile path, version 2 or 3, as run does, naming the field', () => {
  const quickstart = JSON.parse(readFileSync('examples/quickstart.varlab.json', 'utf8'));
  for (const field of ['mysqld', 'datadir', 'socket', 'errorLog', 'pidFile', 'defaultsFile'] as const) {
    for (const version of [2, 3]) {
      const doc = structuredClone(quickstart);
      doc.version = version;
      doc.design.serverProfile = { ...profile, ...(version === 3 ? { target: 'local' } : {}), [field]: '/var/tmp/x/../../lib/mysql' };
      const checked = parseExperiment(JSON.stringify(doc));
      assert.equal(checked.doc, null, `${field}, version ${version}: refused`);
      assert.ok(
        checked.problems.some((p) => p.startsWith(`design.serverProfile.${field}: expected an absolute path without control characters or ..`)),
        `${field}, version ${version}: ${checked.problems.join('; ')}`,
      );
      assert.throws(() => checkProfile(doc.design.serverProfile), new RegExp(`server profile ${field}: expected an absolute path without control characters or \\.\\.`));
    }
  }
});
