// The timer note (common/timer-note.ts): said from what the run found (which timer, why not the exact
// one, how it compared with the client's time), never split back out of its own words, except in a
// file or journal from before those were kept. On a file run on several hosts, each host's note is its
// own in the report, restarts.csv and the Run view's parts (before, the hosts' notes were joined into
// one text and split back wrongly: one host's comparison took in the other host's whole note).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'csv-parse/sync';
import { EXACT_TIMER_HELP, EXACT_TIMER_OPTIONS, partsOfOldNote, timerNoteOf, timerNoteParts, timerNoteText, vsClientText, VS_CYCLE_QUERY } from '../../src/common/timer-note.js';
import { grownResults } from '../../src/common/experiment/carry.js';
import { JournalFold, resultsFromJournal, severalHostsResults, type JournalRecord } from '../../src/common/records.js';
import type { ExperimentDoc, RestartResult, TimerVsClient } from '../../src/common/experiment/types.js';
import { exportContext, markdownReport, restartsCsv } from '../../src/common/export/index.js';
import { checkExperiment } from '../../src/common/experiment/validate.js';
import { LiveRun } from '../../src/browser/views/run/live.js';
import { finishedQuickstart } from '../fixtures/export-experiment.js';

const A = 'ssh://db1';
const B = 'ssh://db2';
const vsA: TimerVsClient = { source: 'profiling', query: 'SELECT 1', n: 30, offsetMs: 0.071, spreadMs: 0.04, at: 1 };
const vsB: TimerVsClient = { source: 'profiling', query: VS_CYCLE_QUERY, n: 31, offsetMs: 0.25, spreadMs: 0.012, at: 2 };
// db2's why holds "; " of its own, as a server's error message may.
const WHY_A = 'performance_schema is off';
const WHY_B = 'performance_schema cannot be read (Access denied; check the grants)';
const rowsOf = (csv: string) => parse(csv, { columns: true }) as Record<string, string>[];

test("the parts of a note, said from what the run found: which timer and why, the help with its options, the comparison", () => {
  const p = timerNoteParts({ source: 'profiling', why: WHY_A, vsClient: vsA })!;
  assert.equal(p.what, 'times from query profiling (SHOW PROFILES), not the exact timer: performance_schema is off');
  assert.deepEqual(p.help?.options, EXACT_TIMER_OPTIONS);
  assert.equal(p.help?.before, "for performance_schema's exact timer (TIMER_WAIT, in picoseconds), start mysqld with");
  assert.equal(p.help?.after, "add them to the server profile's options; a varlab sandbox has them");
  assert.equal(p.vsClient, vsClientText(vsA));
  assert.match(p.vsClient!, /^compared with the client's round trip at the start of the run \(30 executions of SELECT 1\): the client's time is 0\.071 ms longer \(median\), spread 0\.040 ms/);
  // In one line, as the run's warning, the report and the file's timerNote say it.
  assert.equal(timerNoteText(p), `${p.what}; ${EXACT_TIMER_HELP.text}; ${p.vsClient}`);
  // No server-side timer: the client's round trip, and why.
  assert.match(timerNoteText(timerNoteParts({ source: 'client', why: WHY_A })!), /^no server-side statement timer on this server \(performance_schema is off, query profiling unavailable\): times are client round trips and include the network; for performance_schema's exact timer/);
  // The exact timer has no note.
  assert.equal(timerNoteParts({ source: 'performance_schema' }), null);
});

test('a journal from before `why` was kept: its note is split into its parts by the words each began with, a why with "; " of its own whole', () => {
  const old = timerNoteText(timerNoteParts({ source: 'profiling', why: WHY_B, vsClient: vsA })!);
  assert.deepEqual(partsOfOldNote(old), timerNoteParts({ source: 'profiling', why: WHY_B, vsClient: vsA }));
  assert.deepEqual(timerNoteParts({ source: 'profiling', note: old }), partsOfOldNote(old));
  assert.deepEqual(partsOfOldNote('something else; entirely'), { what: 'something else; entirely' });
  // Its results keep the words as they were, and no parts (there are none to keep).
  const fold = new JournalFold();
  fold.apply({ t: 'timer', at: 1, source: 'profiling', note: old, vsClient: vsA });
  const r = resultsFromJournal(fold.state());
  assert.deepEqual([r.timerNote, r.timerVsClient, r.timers], [old, vsA, undefined]);
});

/** One host's results as its run writes them: its journal's timer record, folded. */
function hostResults(host: string, timer: JournalRecord | null, restarts: RestartResult[]) {
  const fold = new JournalFold();
  if (timer) fold.apply(timer);
  return { host, results: { ...resultsFromJournal(fold.state()), restarts } };
}

/** The quickstart measured by query profiling on two hosts, each with its own why and its own comparison; or db1 and db2 with db3 on the exact timer. */
function severalHosts(hosts = [A, B], timers: (JournalRecord | null)[] = [
  { t: 'timer', at: 1, source: 'profiling', why: WHY_A, vsClient: vsA },
  { t: 'timer', at: 2, source: 'profiling', why: WHY_B, vsClient: vsB },
]): ExperimentDoc {
  const doc = finishedQuickstart();
  doc.design.target = hosts[0];
  doc.design.targets = hosts;
  delete doc.design.serverProfile;
  const byHost = hosts.map((h, i) =>
    hostResults(
      h,
      timers[i],
      doc.results!.restarts.map((r) => ({ ...r, queries: r.queries.map((q) => ({ ...q, source: timers[i] ? 'profiling' : 'performance_schema' })) })),
    ),
  );
  doc.results = severalHostsResults(byHost);
  return doc;
}

test('a file run on several hosts: each host\'s note is its own in the report, restarts.csv and the Run view', () => {
  const doc = severalHosts();
  assert.deepEqual(checkExperiment(JSON.parse(JSON.stringify(doc))).problems, []);
  const a = timerNoteParts({ source: 'profiling', why: WHY_A, vsClient: vsA })!;
  const b = timerNoteParts({ source: 'profiling', why: WHY_B, vsClient: vsB })!;
  assert.deepEqual(timerNoteOf(doc.results, A, [A, B]), a);
  assert.deepEqual(timerNoteOf(doc.results, B, [A, B]), b);
  // The report: a line per host, each with its own why and comparison.
  const timerLines = markdownReport(exportContext(doc))
    .split('\n')
    .filter((l) => l.startsWith('- Timer'));
  assert.deepEqual(timerLines, [`- Timer on ${A}: ${timerNoteText(a)}`, `- Timer on ${B}: ${timerNoteText(b)}`]);
  // restarts.csv: each host's restarts with its own host's offset and spread.
  const rows = rowsOf(restartsCsv(exportContext(doc)));
  const figures = (host: string) => [...new Set(rows.filter((r) => r.host === host).map((r) => `${r.timer_offset_ms} ${r.timer_spread_ms}`))];
  assert.deepEqual([figures(A), figures(B)], [['0.071 0.04'], ['0.25 0.012']]);
  // The Run view of a run going on: each host's live run takes its timer event, and has its note in its parts.
  for (const [host, vsClient, why, parts] of [[A, vsA, WHY_A, a], [B, vsB, WHY_B, b]] as const) {
    const live = new LiveRun();
    live.apply([{ type: 'timer', at: 1, host, source: 'profiling', why, vsClient }]);
    assert.deepEqual(live.timerNote, parts);
  }
});

test('a host on the exact timer among others has no note; the file stays valid with the notes of many hosts', () => {
  const C = 'ssh://db3';
  const doc = severalHosts([A, B, C], [{ t: 'timer', at: 1, source: 'profiling', why: WHY_A, vsClient: vsA }, { t: 'timer', at: 2, source: 'profiling', why: WHY_B, vsClient: vsB }, { t: 'timer', at: 3, source: 'performance_schema' }]);
  assert.equal(timerNoteOf(doc.results, C, [A, B, C]), null);
  assert.ok(!markdownReport(exportContext(doc)).includes(`- Timer on ${C}`));
  assert.ok(rowsOf(restartsCsv(exportContext(doc))).filter((r) => r.host === C).every((r) => r.timer_offset_ms === ''));
  // Six hosts' notes in words are longer than a note of one host was allowed (2000 characters).
  const six = ['a', 'b', 'c', 'd', 'e', 'f'].map((h) => `ssh://${h}`);
  const many = severalHosts(six, six.map((_, i) => ({ t: 'timer', at: i, source: 'profiling', why: WHY_B, vsClient: vsA })));
  assert.ok(many.results!.timerNote!.length > 2000);
  assert.deepEqual(checkExperiment(JSON.parse(JSON.stringify(many))).problems, []);
});

test('a several-host file from before results.timers: each host\'s part of its joined note, split at the hosts\' names', () => {
  const doc = severalHosts();
  // As earlier versions wrote it: the words only, `HOST: NOTE` joined by "; ".
  delete doc.results!.timers;
  const a = timerNoteParts({ source: 'profiling', why: WHY_A, vsClient: vsA })!;
  const b = timerNoteParts({ source: 'profiling', why: WHY_B, vsClient: vsB })!;
  assert.equal(doc.results!.timerNote, `${A}: ${timerNoteText(a)}; ${B}: ${timerNoteText(b)}`);
  assert.deepEqual(timerNoteOf(doc.results, A, [A, B]), a);
  assert.deepEqual(timerNoteOf(doc.results, B, [A, B]), b);
  assert.deepEqual(
    markdownReport(exportContext(doc))
      .split('\n')
      .filter((l) => l.startsWith('- Timer')),
    [`- Timer on ${A}: ${timerNoteText(a)}`, `- Timer on ${B}: ${timerNoteText(b)}`],
  );
});

test('an old several-host note word for word as varlab wrote it: each host\'s parts', () => {
  const help = "for performance_schema's exact timer (TIMER_WAIT, in picoseconds), start mysqld with --performance-schema=ON --performance-schema-consumer-events-statements-current=ON --performance-schema-consumer-events-statements-history=ON --performance-schema-consumer-events-statements-history-long=ON (add them to the server profile's options; a varlab sandbox has them)";
  const vs = "compared with the client's round trip at the start of the run (30 executions of SELECT 1): the client's time is 0.071 ms longer (median), spread 0.040 ms (standard deviation)";
  const results = { restarts: [], timerNote: `${A}: times from query profiling (SHOW PROFILES), not the exact timer: performance_schema is off; ${help}; ${vs}; ${B}: times from query profiling (SHOW PROFILES), not the exact timer: ${WHY_B}; ${help}` };
  assert.deepEqual(timerNoteOf(results, A, [A, B]), { what: `times from query profiling (SHOW PROFILES), not the exact timer: ${WHY_A}`, help: EXACT_TIMER_HELP, vsClient: vs });
  assert.deepEqual(timerNoteOf(results, B, [A, B]), { what: `times from query profiling (SHOW PROFILES), not the exact timer: ${WHY_B}`, help: EXACT_TIMER_HELP });
});

/** The quickstart, its first run (part 1) measured with `first` and the run of what it missed (part 2, its last 4 restarts) with `grown`, joined as every save of a grown run joins them. */
function grownDesign(first: JournalRecord, grown: JournalRecord): ExperimentDoc {
  const doc = finishedQuickstart();
  const source = (t: JournalRecord) => (t.t === 'timer' ? t.source : 'performance_schema');
  const measured = (rs: RestartResult[], t: JournalRecord) => rs.map((r) => ({ ...r, queries: r.queries.map((q) => ({ ...q, source: source(t) })) }));
  const all = doc.results!.restarts;
  const part1 = hostResults('', first, measured(all.slice(0, -4), first)).results;
  const run = hostResults('', grown, measured(all.slice(-4).map((r, i) => ({ ...r, seq: i + 1 })), grown)).results;
  doc.results = grownResults(part1, run, 2);
  return doc;
}

test("a grown design (run --missing) keeps each run's timer: the report and restarts.csv say each run's where they differ", () => {
  const exact: JournalRecord = { t: 'timer', at: 1, source: 'performance_schema' };
  const profiled: JournalRecord = { t: 'timer', at: 2, source: 'profiling', why: WHY_A, vsClient: vsA };
  const b = timerNoteParts({ source: 'profiling', why: WHY_B, vsClient: vsB })!;
  // The first run on the exact timer, the grown one on query profiling: said, and its restarts carry its comparison.
  const later = grownDesign(exact, profiled);
  assert.deepEqual(later.results!.timers, [{ source: 'profiling', why: WHY_A, vsClient: vsA, part: 2 }]);
  assert.deepEqual(checkExperiment(JSON.parse(JSON.stringify(later))).problems, []);
  const timerLines = (doc: ExperimentDoc) =>
    markdownReport(exportContext(doc))
      .split('\n')
      .filter((l) => l.startsWith('- Timer'));
  const a = timerNoteText(timerNoteParts({ source: 'profiling', why: WHY_A, vsClient: vsA })!);
  assert.deepEqual(timerLines(later), [
    "- Timer in run 1 of this grown design (run --missing): performance_schema's exact timer (TIMER_WAIT)",
    `- Timer in run 2 of this grown design (run --missing): ${a}`,
  ]);
  // restarts.csv: each restart with its own run's comparison (the first run's restarts have none).
  const offsets = (doc: ExperimentDoc) => {
    const rows = rowsOf(restartsCsv(exportContext(doc)));
    const first = rows.length - 4;
    return [...new Set(rows.map((r) => `${Number(r.restart) > first ? 'run 2' : 'run 1'}: ${r.timer_offset_ms}`))];
  };
  assert.deepEqual(offsets(later), ['run 1: ', 'run 2: 0.071']);
  // Both runs on query profiling, each with its own why and comparison: both kept, each said.
  const both = grownDesign(profiled, { t: 'timer', at: 3, source: 'profiling', why: WHY_B, vsClient: vsB });
  assert.deepEqual(both.results!.timers, [
    { source: 'profiling', why: WHY_A, vsClient: vsA },
    { source: 'profiling', why: WHY_B, vsClient: vsB, part: 2 },
  ]);
  assert.deepEqual(offsets(both), ['run 1: 0.071', 'run 2: 0.25']);
  assert.deepEqual(timerLines(both), [`- Timer in run 1 of this grown design (run --missing): ${a}`, `- Timer in run 2 of this grown design (run --missing): ${timerNoteText(b)}`]);
  // The same timer said the same in both runs: one line, as for a run that did not grow.
  const same = grownDesign(profiled, { ...profiled, at: 4 } as JournalRecord);
  assert.deepEqual(timerLines(same), [`- Timer: ${a}`]);
  assert.deepEqual(timerLines(grownDesign(exact, exact)), []);
});
