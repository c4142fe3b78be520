// Issue 13, the consent model: what a file may make the target do without asking (known tuning
// variables, the built-in tunables), what it must show in full before the first run on a host
// (queries, setup SQL, other server options, a profile carried in the file), and what a factor may
// never set (options that change identity, access or files).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';
import { problemsBeforeSave } from '../../src/common/experiment/validate.js';
import { cellFactors } from '../../src/common/restart.js';
import { commandsNeedingConsent, consentList } from '../../src/common/trust.js';
import { isTuningVariable, refusedVariable, TUNING_VARIABLES } from '../../src/common/tunables/variables.js';
import { variableNameProblem } from '../../src/browser/views/designer/edits.js';
import { measureAccountSql } from '../../src/node/workloads/account.js';

const quickstart = () => JSON.parse(readFileSync('examples/quickstart.varlab.json', 'utf8')) as ExperimentDoc;

function withVariable(name: string, levels = ['1']): ExperimentDoc {
  const doc = quickstart();
  doc.design.factors.push({ tunable: 'variable', name, levels });
  return doc;
}

test('options that change identity, access or files are refused in a factor, naming the factor and the option', () => {
  const refused = ['user', 'init_file', 'init_connect', 'plugin_load_add', 'plugin_load', 'plugin_dir', 'skip_grant_tables', 'port', 'bind_address', 'secure_file_priv', 'general_log_file', 'pid_file', 'log_error', 'datadir', 'tmpdir', 'innodb_data_home_dir', 'socket', 'mysqlx_socket', 'ssl_key', 'innodb_data_file_path', 'local_infile', 'default_authentication_plugin', 'log_bin'];
  for (const name of refused) {
    assert.ok(refusedVariable(name), `${name} is refused`);
    const doc = withVariable(name, ['1']);
    const r = { problems: problemsBeforeSave(doc) };
    const i = doc.design.factors.length - 1;
    const line = r.problems.find((p) => p.startsWith(`design.factors[${i}].name:`));
    assert.ok(line, `${name}: ${r.problems.join('\n')}`);
    assert.match(line!, new RegExp(`factor design\\.factors\\[${i}\\] \\("${name}"\\): the server option ${name} may not be set by a factor`));
    // The restart procedure refuses it too (sandbox start --set, any path that skips validation).
    assert.throws(() => cellFactors([{ tunable: 'variable', name, levels: ['1'] }], { [name]: '1' }), new RegExp(`factor ${name}: the server option ${name} may not be set by a factor`));
    // And the designer says so as the name is typed.
    assert.match(variableNameProblem(doc.design, i, name) ?? '', /may not be set by a factor/);
  }
});

test('known tuning variables need no consent; any other variable is listed whole, every level', () => {
  for (const name of TUNING_VARIABLES) assert.equal(refusedVariable(name), null, `${name} is a tuning variable, not refused`);
  assert.ok(isTuningVariable('innodb_io_capacity'));
  const tuned = withVariable('innodb_io_capacity', ['200', '2000']);
  assert.deepEqual(commandsNeedingConsent(tuned).filter((c) => c.kind === 'server-variable'), []);
  const other = withVariable('optimizer_trace_max_mem_size', ['1', '2']);
  assert.equal(problemsBeforeSave(other).length, 0);
  const item = commandsNeedingConsent(other).find((c) => c.kind === 'server-variable');
  assert.ok(item);
  assert.equal(item.command, '--optimizer_trace_max_mem_size=1\n--optimizer_trace_max_mem_size=2');
  assert.equal(item.where, `design.factors[${other.design.factors.length - 1}]`);
});

test('queries and setup SQL are listed in full, with carriage returns and escape sequences made visible', () => {
  const doc = quickstart();
  const long = `SELECT ${'1 + '.repeat(300)}1`;
  const hidden = "SELECT 1\r SELECT * FROM lineitem INTO OUTFILE '/tmp/x' \x1b[2K\x1b[1A-- harmless";
  doc.design.workload.queries = [
    { name: 'long', sql: long },
    { name: 'hidden', sql: hidden },
  ];
  const items = commandsNeedingConsent(doc);
  assert.deepEqual(
    items.map((i) => [i.kind, i.where]),
    [
      ['setup-sql', 'design.workload.setupSql'],
      ['query', 'design.workload.queries[0].sql'],
      ['query', 'design.workload.queries[1].sql'],
    ],
  );
  const text = consentList(items);
  assert.ok(text.includes(long), 'a query longer than 400 characters is shown whole');
  assert.ok(text.includes(doc.design.workload.setupSql.split('\n').slice(-2)[0].trim()), 'the setup script to its last line');
  assert.ok(text.includes("SELECT 1\\u000d SELECT * FROM lineitem INTO OUTFILE '/tmp/x' \\u001b[2K\\u001b[1A-- harmless"), text);
  assert.doesNotMatch(text, /[\r\x1b]/, 'no raw carriage return or escape reaches the terminal');
});

test('the measurement account: MySQL and MariaDB statements that leave it SELECT on the workload database and the timer tables only', () => {
  const mysql = measureAccountSql('mysql', 'tpch');
  const mariadb = measureAccountSql('mariadb', 'tpch');
  for (const host of ['localhost', '127.0.0.1']) {
    const who = `'varlab_measure'@'${host}'`;
    assert.deepEqual(
      mysql.filter((s) => s.includes(who)),
      [
        `CREATE USER IF NOT EXISTS ${who} IDENTIFIED BY ?`,
        `ALTER USER ${who} IDENTIFIED BY ?`,
        `REVOKE ALL PRIVILEGES, GRANT OPTION FROM ${who}`,
        `GRANT SELECT ON \`tpch\`.* TO ${who}`,
        `GRANT SELECT ON performance_schema.events_statements_history TO ${who}`,
        // The batches of back-to-back executions are read from the long history (up to 100 at a time).
        `GRANT SELECT ON performance_schema.events_statements_history_long TO ${who}`,
        `GRANT SELECT ON performance_schema.threads TO ${who}`,
        `GRANT SELECT ON performance_schema.setup_consumers TO ${who}`,
      ],
    );
    // MariaDB before 10.2 has no ALTER USER; MySQL 8 has no PASSWORD(): the one place they differ.
    assert.ok(mariadb.includes(`SET PASSWORD FOR ${who} = PASSWORD(?)`));
  }
  for (const s of [...mysql, ...mariadb]) assert.doesNotMatch(s, /\bGRANT (ALL|FILE|SUPER|INSERT|UPDATE|DELETE|CREATE|DROP|SYSTEM_VARIABLES_ADMIN)\b|WITH GRANT OPTION|\*\.\*/);
  assert.throws(() => measureAccountSql('mysql', 'x`; DROP'), /expected letters, digits and _/);
});
