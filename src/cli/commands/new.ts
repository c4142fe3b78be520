// `varlab new FILE --template NAME`: an experiment file from a template, ready to run.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { bufferPoolMb, dbt3Template, sizeOption } from '../../common/dbt3/template.js';
import { MAX_SF, MIN_SF, sfFromText } from '../../common/dbt3/scale.js';
import { checkExperiment } from '../../common/experiment/validate.js';
import { aboutText, learnedEstimate } from '../../common/stats/planner.js';
import type { ExperimentDoc } from '../../common/experiment/types.js';
import { SYSBENCH_LOGIN, SYSBENCH_TESTS, sysbenchTemplate, type SysbenchTest } from '../../common/templates/sysbench.js';
import { saveExperimentFile } from '../../node/files.js';
import { examplesDir } from '../../node/quickstart.js';
import { numberOption, parse, UsageError, type Command } from '../io.js';

const TEMPLATES = ['dbt3', ...SYSBENCH_TESTS, 'quickstart'] as const;

export const newCommand: Command = {
  name: 'new',
  usage:
    'varlab new FILE --template dbt3|oltp_read_only|oltp_point_select|quickstart [--sf SF] [--seed N] [--tbl DIR]\n' +
    '                [--runs N] [--seconds S] [--tables N] [--table-size N] [--target T] [--database NAME] [--restarts N]\n\n' +
    'Writes a new experiment file from a template (never over an existing file), and says what to run next.\n' +
    '--template dbt3     the first field note: ASLR x AHI x preload on the 22 DBT-3 queries, 20 executions per\n' +
    '                    query per restart keeping the last 10; the DBT-3 data is made by the run itself\n' +
    `--sf SF             DBT-3 scale factor, ${MIN_SF} to ${MAX_SF} (SF 1: about 6 million lineitem rows); default 0.01\n` +
    '--seed N            the DBT-3 generator\'s seed (the same seed, the same rows)\n' +
    '--tbl DIR           load the .tbl files of DIR (made by dbgen) instead of generating rows\n' +
    '--database NAME     the database the data goes in (default dbt3)\n' +
    '--template oltp_read_only     the second field note: sysbench oltp_read_only, --runs runs (default 5) of --seconds\n' +
    '                    (default 300) per restart, the first a warm-up; the sbtest tables are the setup, made once\n' +
    '--template oltp_point_select  the third field note: sysbench select by primary key, the baseline variance\n' +
    '--tables N, --table-size N    sysbench\'s tables (default 1 of 10000 rows)\n' +
    '--template quickstart  the small quickstart experiment (ASLR x AHI x preload x NUMA on a TPC-H-like set)\n' +
    '--target T          where it runs (default local)     --restarts N   restarts per cell',
  async run(argv, io) {
    const { values, positionals } = parse(argv, {
      template: { type: 'string' },
      sf: { type: 'string' },
      target: { type: 'string' },
      database: { type: 'string' },
      seed: { type: 'string' },
      tbl: { type: 'string' },
      restarts: { type: 'string' },
      runs: { type: 'string' },
      seconds: { type: 'string' },
      tables: { type: 'string' },
      'table-size': { type: 'string' },
    });
    if (positionals.length !== 1) throw new UsageError('expected one FILE to write');
    const file = resolve(positionals[0]);
    const template = values.template;
    if (!template || !(TEMPLATES as readonly string[]).includes(template)) throw new UsageError(`--template: expected one of ${TEMPLATES.join(', ')}${template ? `, got ${JSON.stringify(template)}` : ''}`);
    if (existsSync(file)) throw new UsageError(`${file} exists already: choose another name (varlab new never writes over a file)`);
    const restartsPerCell = numberOption('restarts', values.restarts, { min: 1, max: 10000, integer: true });

    let doc: ExperimentDoc;
    if (template === 'dbt3') {
      const typed = values.sf === undefined ? { sf: 0.01 } : sfFromText(values.sf);
      if (typed.problem !== undefined) throw new UsageError(`--sf: ${typed.problem}`);
      const sf = typed.sf;
      const seed = numberOption('seed', values.seed, { min: 0, max: 4294967295, integer: true });
      if (values.tbl !== undefined && !existsSync(values.tbl)) throw new UsageError(`--tbl: no folder ${JSON.stringify(values.tbl)}`);
      doc = dbt3Template({ sf, target: values.target, database: values.database, seed, folder: values.tbl === undefined ? undefined : resolve(values.tbl), restartsPerCell });
    } else if ((SYSBENCH_TESTS as readonly string[]).includes(template)) {
      doc = sysbenchTemplate({
        test: template as SysbenchTest,
        runs: numberOption('runs', values.runs, { min: 1, max: 1000, integer: true }),
        seconds: numberOption('seconds', values.seconds, { min: 1, max: 86400, integer: true }),
        tables: numberOption('tables', values.tables, { min: 1, max: 64, integer: true }),
        tableSize: numberOption('table-size', values['table-size'], { min: 1, max: 100_000_000, integer: true }),
        target: values.target,
        database: values.database,
        restartsPerCell,
      });
    } else {
      if (values.sf !== undefined || values.seed !== undefined || values.tbl !== undefined) throw new UsageError('--sf, --seed and --tbl are for --template dbt3');
      doc = JSON.parse(await readFile(resolve(examplesDir(), 'quickstart.varlab.json'), 'utf8')) as ExperimentDoc;
      if (values.target) doc.design.target = values.target;
      if (values.database) doc.design.workload.database = values.database;
      if (restartsPerCell) doc.design.restartsPerCell = restartsPerCell;
    }
    // The template and the options, checked as any file is: a bad --database is named here, not at run time.
    const checked = checkExperiment(doc);
    if (!checked.doc) throw new UsageError(checked.problems.join('; '));
    await saveExperimentFile(file, checked.doc);
    const learned = learnedEstimate(checked.doc);
    io.out(`wrote ${file}: ${checked.doc.name}, ${learned.estimate.restarts} restarts, ${aboutText(learned)}`);
    const d = checked.doc.design;
    if (d.workload.data) {
      const pool = sizeOption(bufferPoolMb(d.workload.data.sf));
      io.out(`next: varlab sandbox create ${d.target} --buffer-pool ${pool}   (a throwaway mysqld whose buffer pool holds the data)`);
    }
    if (d.workload.command?.parser === 'sysbench') io.out(`login: ${SYSBENCH_LOGIN}`);
    io.out(`then: varlab plan ${positionals[0]}   and   varlab run ${positionals[0]}`);
    return 0;
  },
};
