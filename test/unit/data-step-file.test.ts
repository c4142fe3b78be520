// The DBT-3 data step in the saved file: the journal's `data` record whole (rows per table, each query's
// check) reaches results.dataSteps, passes the schema, survives a save and a reopen, and the report's
// data-set line says it; a file written before it was kept (time only) stays valid and says so.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkExperiment } from '../../src/common/experiment/validate.js';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';
import { readJournalText, resultsFromJournal, type RecordOf } from '../../src/common/records.js';
import { dataSetLines } from '../../src/common/dbt3/words.js';
import { exportContext } from '../../src/common/export/index.js';
import { markdownReport } from '../../src/common/export/markdown.js';
import { finishedQuickstart } from '../fixtures/export-experiment.js';

const ROWS = { region: 5, nation: 25, part: 2000, supplier: 100, partsupp: 8000, customer: 1500, orders: 15000, lineitem: 60341 };
const CHECKS = [1, 2, 3].map((n) => ({ query: `Q${n}`, rows: n * 4, checksum: `c0ffee${n}`, expected: true, ms: 12 }));
const loaded: RecordOf<'data'> = { t: 'data', at: 500, database: 'dbt3', sf: 0.01, seed: 1, source: "varlab's generator", recognised: false, resumedChunks: 0, rows: ROWS, ms: 41_000, method: 'load-data-local', checks: CHECKS };

/** A finished file whose design has a DBT-3 data step, its results' data steps as given. */
function dbt3File(dataSteps: NonNullable<ExperimentDoc['results']>['dataSteps']): ExperimentDoc {
  const doc = finishedQuickstart();
  doc.design.workload.data = { kind: 'dbt3', sf: 0.01 };
  doc.design.workload.database = 'dbt3';
  doc.results = { ...doc.results!, ...(dataSteps ? { dataSteps } : {}) };
  return doc;
}

test("the journal's data record reaches the file's results whole, and the file passes its schema and reopens the same", () => {
  const journal = [JSON.stringify(loaded), JSON.stringify({ ...loaded, at: 900, recognised: true, ms: 30, checks: [] })].join('\n');
  const results = resultsFromJournal(readJournalText(journal));
  const [first, again] = results.dataSteps ?? [];
  assert.deepEqual(first, { at: 500, ms: 41_000, recognised: false, database: 'dbt3', sf: 0.01, seed: 1, source: "varlab's generator", resumedChunks: 0, rows: ROWS, method: 'load-data-local', checks: CHECKS });
  assert.equal(again?.recognised, true);
  const doc = dbt3File(results.dataSteps);
  const saved = JSON.stringify(doc);
  const reopened = checkExperiment(JSON.parse(saved));
  assert.deepEqual(reopened.problems, []);
  assert.deepEqual(reopened.doc?.results?.dataSteps, results.dataSteps);
});

test('a file whose data steps hold their time only (written before) stays valid; a wrong check is refused by its path', () => {
  const old = checkExperiment(dbt3File([{ at: 500, ms: 41_000, recognised: false }]));
  assert.deepEqual(old.problems, []);
  const bad = checkExperiment(JSON.parse(JSON.stringify(dbt3File([{ ...loaded, t: undefined, checks: [{ ...CHECKS[0], rows: -1 }] } as never]))));
  assert.equal(bad.doc, null);
  assert.match(bad.problems.join('\n'), /results\.dataSteps\[0\]\.checks\[0\]\.rows/);
});

test("the data-set line: the load the numbers came from and the runs that found it there; an older file's said, a design without data none", () => {
  const { t: _t, ...step } = loaded;
  const again = { ...step, at: 900, recognised: true, ms: 30, checks: [] };
  const doc = dbt3File([step, again]);
  assert.deepEqual(dataSetLines(doc.design, doc.results), ['DBT-3 SF 0.01 in dbt3: 86,971 rows loaded in 41 s by LOAD DATA LOCAL INFILE; 3 queries gave their expected results; recognised by 1 later run']);
  const found = dbt3File([again]);
  assert.deepEqual(dataSetLines(found.design, found.results), ['DBT-3 SF 0.01 in dbt3: already loaded (86,971 rows), not loaded again']);
  const old = dbt3File([{ at: 500, ms: 41_000, recognised: false }]);
  assert.deepEqual(dataSetLines(old.design, old.results), ["DBT-3 SF 0.01 in dbt3: this file does not hold what its data step loaded (written before varlab kept it)"]);
  assert.deepEqual(dataSetLines(finishedQuickstart().design, finishedQuickstart().results), []);
  // The report's Design section carries it.
  assert.match(markdownReport(exportContext(doc)), /^- Data: DBT-3 SF 0\.01 in dbt3: 86,971 rows loaded in 41 s by LOAD DATA LOCAL INFILE; 3 queries gave their expected results; recognised by 1 later run$/m);
  assert.doesNotMatch(markdownReport(exportContext(finishedQuickstart())), /^- Data:/m);
});
