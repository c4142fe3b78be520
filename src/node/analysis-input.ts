// What `varlab analyze` reads: an experiment file or a CSV (tidy, or varlab export's executions.csv
// or restarts.csv), told apart by the first bytes and read once, as a stream, into tidy data. Every
// problem names the file and, for a CSV, the line.
import { cellsWithResults } from '../common/export/context.js';
import { timerLines } from '../common/timer-note.js';
import { createReadStream } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { ExperimentJsonReader, NotJson } from '../common/experiment/text.js';
import { CsvError, CsvReader } from '../common/csv/reader.js';
import { TIDY_HEADER, TidyCsv, type CsvForm } from '../common/csv/tidy.js';
import { TidyError, tidyFromExperiment, type TidyData } from '../common/stats/index.js';
import { finishExperimentRead, whyCannotRead } from './files.js';
import type { RestartResult, Stopping, Workload } from '../common/experiment/types.js';

/** Bad input: the message names the file and the line or JSON path. */
export class InputError extends Error {}

export interface AnalysisInput {
  data: TidyData;
  /** The warm-up the input says was used (the design's, executions.csv's flags), 0 when it says nothing. */
  warmup: number;
  /** What the input is called in output: the experiment's name or the file. */
  name: string;
  form: 'experiment' | CsvForm;
  /** An experiment's workload kind (queries or a benchmark command); a CSV does not say. */
  kind?: Workload['kind'];
  /** An experiment's cells with results in plan order (the first is the default baseline, as in the app); a CSV's are data.cells. */
  cells?: string[];
  /** An experiment's design.stopping, for analyze --until-answered. */
  stopping?: Stopping;
  /** An experiment's restarts that have a benchmark command's interval lines (sysbench), for their steady state. */
  intervalRestarts?: RestartResult[];
  /** An experiment's restarts, for where their time went (their step timings). */
  restarts?: RestartResult[];
  /** An experiment's timer note, a line per host (common/timer-note.ts timerLines, as its report says it); none for the exact timer. */
  timer?: string[];
}

const cannotRead = (file: string, e: unknown) => new InputError(`${file}: cannot read: ${whyCannotRead(e)}`);

/** Where a CSV problem is: `file:line: problem`. */
function located(file: string, e: unknown): unknown {
  if (e instanceof CsvError || e instanceof TidyError) return new InputError(`${file}:${e.line === undefined ? '' : `${e.line}:`} ${e.problem}`);
  return e;
}

export async function readAnalysisInput(file: string, opts: { unit?: string } = {}): Promise<AnalysisInput> {
  // Decided on the first chunk: JSON (by name or a leading '{') is an experiment, anything else a CSV.
  let json: ExperimentJsonReader | null = null;
  let csv: { reader: CsvReader; tidy: TidyCsv; decoder: StringDecoder } | null = null;
  try {
    for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
      if (!json && !csv) {
        if (/\.json$/i.test(file) || /^\s*\{/.test(chunk.subarray(0, 64).toString('latin1'))) json = new ExperimentJsonReader();
        else {
          const tidy = new TidyCsv(opts.unit);
          csv = { reader: new CsvReader(tidy.record), tidy, decoder: new StringDecoder('utf8') };
        }
      }
      if (json) json.push(chunk);
      else csv!.reader.push(csv!.decoder.write(chunk));
    }
  } catch (e) {
    if (e instanceof NotJson) return experiment(file, null);
    if (e instanceof CsvError || e instanceof TidyError) throw located(file, e);
    throw cannotRead(file, e);
  }
  if (json) return experiment(file, json);
  if (!csv && /\.json$/i.test(file)) return experiment(file, null);
  if (!csv) throw new InputError(`${file}: empty: expected the header ${TIDY_HEADER.join(',')} (or an experiment file)`);
  try {
    csv.reader.push(csv.decoder.end());
    csv.reader.end();
    const r = csv.tidy.build();
    return { data: r.data, warmup: r.warmup ?? 0, name: file, form: r.form, ...(r.restarts?.some((x) => x.noise) ? { restarts: r.restarts } : {}) };
  } catch (e) {
    throw located(file, e);
  }
}

/** An experiment's executions, from a reader fed the whole file (null: it was not JSON). */
async function experiment(file: string, reader: ExperimentJsonReader | null): Promise<AnalysisInput> {
  const r = await finishExperimentRead(file, reader);
  if (!r.doc) throw new InputError(r.problems.map((p) => `${file}: ${p}`).join('\n'));
  if (!r.doc.results?.restarts.length) throw new InputError(`${file}: no results yet: run the experiment first (varlab run ${file})`);
  const intervalRestarts = r.doc.results.restarts.filter((x) => x.intervals?.length);
  return {
    data: tidyFromExperiment(r.doc),
    warmup: r.doc.design.workload.warmup,
    name: r.doc.name,
    form: 'experiment',
    kind: r.doc.design.workload.kind,
    cells: cellsWithResults(r.doc),
    ...(r.doc.design.stopping ? { stopping: r.doc.design.stopping } : {}),
    ...(intervalRestarts.length ? { intervalRestarts } : {}),
    restarts: r.doc.results.restarts,
    timer: timerLines(r.doc),
  };
}
