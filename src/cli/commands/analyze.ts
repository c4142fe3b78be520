// `varlab analyze FILE`: within-restart against between-restart spread, the minimum detectable effect,
// bimodal starts, a warm-up read from the data, and comparisons with a baseline cell. FILE is an
// experiment file, a tidy CSV (`cell,restart,query,rep,value`) from any other tool, or a CSV that
// `varlab export` wrote; node/analysis-input.ts reads it, this module analyses, and
// common/export/analysis-output.ts says what is printed.
import { restartStepTimes, restartStepsLine } from '../../common/restart-steps.js';
import { InputError, readAnalysisInput } from '../../node/analysis-input.js';
import { analyze as runAnalysis, COMPARISON_METHOD, DEFAULTS, intervalSteady, MIN_RESTARTS, replayByHost, sequentialHostsJson, sequentialText, withRankRounds } from '../../common/stats/index.js';
import { analysisJson, analysisText, intervalsText } from '../../common/export/analysis-output.js';
import { cellsOfRestarts, meanBetweenCov, noiseLines, noiseSummary } from '../../common/noise.js';
import { findCell } from '../../common/stats/analysis.js';
import { adjustmentOption, numberOption, parse, probabilityOption, UsageError, type Command } from '../io.js';

const USAGE = `varlab analyze FILE [--json] [--warmup W] [--alpha A] [--power P] [--target-effect PCT] [--baseline CELL] [--unit U]
                       [--across-runs] [--until-answered --effect E [--max-restarts N]]

FILE is an experiment file (*.varlab.json; only restarts with status ok count), a tidy CSV with the
header cell,restart,query,rep,value (rep counts from 1 within a restart and query; other columns are
ignored), or a CSV written by varlab export: executions.csv (its warm-up and units come along) or
restarts.csv (restart means: within-restart figures need the executions). Numbers are decimal.
  --warmup W          drop repetitions 1..W of every restart (default: the experiment's or executions.csv's warm-up, 0 for a CSV)
  --alpha A           significance level of the tests and the MDE; intervals are at 1 − A (default ${DEFAULTS.alpha})
  --power P           power of the minimum detectable effect (default ${DEFAULTS.power})
  --target-effect PCT the effect restarts_for_target and the equivalence verdicts are for, in percent (default: the
                      file's design.stopping.effect, else ${DEFAULTS.targetEffectPct})
  --baseline CELL     compare every other cell with CELL (default: the design's first cell, as the app's Analysis,
                      export and the stopping rule take it; a CSV's first in code-point order): the ${COMPARISON_METHOD}
  --adjust holm|bh    adjust the comparisons' p-values as one family: Holm (default) or Benjamini–Hochberg
  --unit U            the unit of a CSV's values (ms, tps…); an experiment file records its own
  --across-runs       a grown design (run --missing): also compare a cell with a baseline that no run measured
                      with it, unpaired, the drift between the runs counted in the difference (by default such
                      a pair is not compared, and says why)
  --until-answered    replay the stop-when-answered rule on the recorded rounds: at which look it would have
                      stopped and with what verdict (a tidy CSV without a round column: restart k of every
                      cell is round k); the baseline is --baseline, else the first cell; results from several
                      hosts: each host's own rounds, as the run stopped each host on its own
  --effect E          the target effect of the rule, in percent (default: the file's design.stopping.effect)
  --max-restarts N    the rule's maximum restarts per cell (default: design.stopping's, else the rounds recorded)
  --json              {"settings","methods","cells":[{"cell","spread_avg_pct","spread_max_pct","queries":[{"query","n_restarts",
                      "reps_per_restart","mean","within_cov_pct","between_cov_pct","sigma_within","sigma_between",
                      "icc","spread_pct","mde_pct","restarts_for_target","unit"}]}],"comparisons":[{"cell","baseline","query",
                      "effect_pct","ci_low_pct","ci_high_pct","p_value","p_adjusted","adjustment","verdict","detectable_pct",
                      "pairing","pairing_reason","paired","unpaired","variance_ratio","equivalence"}],"pairing":{…},
                      "summary","mde":[{"query","definition","pct","restarts","cov_pct"}],"ranking","bimodal":[…],
                      "bimodal_unjudged":[…],"warmup_suggestion":{…}}
                      verdict: differs | equivalent (within ±target effect, two one-sided tests) | inconclusive;
                      pairing: paired (within rounds, interleaved or random order) | unpaired (Welch);
                      an experiment with sysbench interval lines also has "intervals":{"method","intervalSeconds",
                      "cells":[{"cell","steady","suggested","suggestedSeconds",…}],"restarts":[{"seq","cell","kind","discard",
                      "discardSeconds","steadyTps","runTps"}]}: the steady state judged on the interval tps
                      with --until-answered (or from a file run with its rule, design.stopping) also "sequential":{"rule","effect_pct","levels","looks","stopped_round","stopped_because",
                      "comparisons":[{"verdict","rci_low_pct","rci_high_pct" (differs when it leaves out 0),
                      "eq_low_pct","eq_high_pct" (equivalent when inside ±effect),…}]}; from several hosts its looks, stop and
                      comparisons are per host: "hosts":[{"host","looks","stopped_round","stopped_because","comparisons"}]
                      an experiment whose restarts timed their steps also has "restart_steps":[{"step","median_ms","restarts"}]:
                      where a restart's time goes (stop, idle, start, verify, setup, connect, preload, timer, measure)
                      an experiment measured with a timer other than performance_schema's exact one also has "timer_note":
                      its lines as the report says them (a line per host, and per run of a grown design where they differ)
                      A value that cannot be computed is null, with the reason in "null_reasons" (or "reason").
With fewer than ${MIN_RESTARTS} restarts in a cell there is no ranking, MDE or restarts-needed: it says how many more.
Exit 0 on success, 2 on bad options or input (each problem names the line or JSON path), 1 otherwise.`;

export const analyze: Command = {
  name: 'analyze',
  usage: USAGE,
  async run(argv, io) {
    const { values, positionals } = parse(argv, {
      json: { type: 'boolean' },
      warmup: { type: 'string' },
      alpha: { type: 'string' },
      power: { type: 'string' },
      'target-effect': { type: 'string' },
      baseline: { type: 'string' },
      adjust: { type: 'string' },
      'across-runs': { type: 'boolean' },
      unit: { type: 'string' },
      'until-answered': { type: 'boolean' },
      effect: { type: 'string' },
      'max-restarts': { type: 'string' },
    });
    if (positionals.length !== 1) throw new UsageError('expected exactly one FILE');
    const file = positionals[0];
    const warmupOpt = numberOption('warmup', values.warmup, { integer: true, min: 0 });
    const alpha = probabilityOption('alpha', values.alpha);
    const power = probabilityOption('power', values.power);
    const adjustment = adjustmentOption(values.adjust);
    const target = numberOption('target-effect', values['target-effect'], { min: 0 });
    if (target === 0) throw new UsageError('--target-effect: expected a percentage above 0');
    if (values.unit !== undefined && !/^[\p{L}\p{N}/%µ._-]{1,20}$/u.test(values.unit)) throw new UsageError(`--unit: expected a short unit such as ms or tps, got ${JSON.stringify(values.unit)}`);

    let loaded;
    try {
      loaded = await readAnalysisInput(file, { unit: values.unit });
    } catch (e) {
      if (e instanceof InputError) {
        io.err(e.message);
        return 2;
      }
      throw e;
    }
    const { data } = loaded;
    const until = values['until-answered'] === true;
    if (!until && (values.effect !== undefined || values['max-restarts'] !== undefined)) throw new UsageError(`--${values.effect !== undefined ? 'effect' : 'max-restarts'}: goes with --until-answered`);
    const stopping = loaded.stopping;
    const effect = numberOption('effect', values.effect, { min: 0, max: 99.99 }) ?? stopping?.effect;
    const maxRestarts = numberOption('max-restarts', values['max-restarts'], { integer: true, min: 3, max: 10000 }) ?? stopping?.maxRestartsPerCell;
    if (until) {
      if (effect === undefined) throw new UsageError(`--until-answered: give the target effect with --effect E (${file} has no design.stopping)`);
      if (!(effect > 0)) throw new UsageError('--effect: expected a percentage above 0');
      if (data.rounds && !data.rounds.known && loaded.form === 'experiment') throw new UsageError(`--until-answered: ${file} did not run in rounds (${data.rounds.why}); the rule compares restarts of the same round`);
      if (!data.rounds?.known) withRankRounds(data, 'restart k of every cell is taken as round k (the CSV does not say the run order)');
    }
    if (loaded.form === 'restart-means' && warmupOpt) throw new UsageError(`--warmup: ${file} holds restart means, whose warm-up was dropped when they were written`);
    if (values.baseline !== undefined && !data.cells.includes(values.baseline)) {
      throw new UsageError(`--baseline: no cell ${JSON.stringify(values.baseline)} in ${file}; cells: ${data.cells.join(' | ')}`);
    }
    // The design's first cell, as the app's Analysis, export and the run's stop rule take it (a CSV's first in
    // code-point order): "is B faster than A?" is answered without knowing to ask for a baseline.
    const baseline = values.baseline ?? (loaded.cells?.[0] ?? data.cells[0]);
    const a = runAnalysis(data, { warmup: warmupOpt ?? loaded.warmup, alpha, power, targetEffectPct: target ?? (until ? effect : stopping?.effect), baseline, adjustment, acrossRuns: values['across-runs'] === true });
    const rounds = Math.max(0, ...a.restarts.flatMap((r) => r.rounds ?? []));
    // On several hosts each host's rounds, as the run looked at them: the host is a block.
    // A file run with its rule (design.stopping) is analysed as the app's Analysis and the report analyse it:
    // the rule's verdicts with their repeated intervals, and the fixed-sample comparisons said not valid under it.
    const ruled = stopping !== undefined && loaded.form === 'experiment' && data.rounds?.known === true;
    const seq = until || ruled ? replayByHost(a.restarts, data.rounds?.blocks, baseline!, { effectPct: effect!, alpha: alpha ?? stopping?.alpha ?? DEFAULTS.alpha, power: power ?? stopping?.power ?? DEFAULTS.power, maxRounds: maxRestarts ?? Math.max(3, rounds), queryOrder: data.order }) : null;
    const intervals = loaded.intervalRestarts ? intervalSteady(loaded.intervalRestarts, a.settings.warmup) : null;
    const steps = restartStepTimes(loaded.restarts ?? []);
    const nr = loaded.restarts ?? [];
    const noise = noiseSummary(nr, cellsOfRestarts(nr, loaded.cells ?? data.cells), (c) => meanBetweenCov(findCell(a, c)?.queries));
    if (values.json) io.out(JSON.stringify({ ...analysisJson(a), ...(intervals ? { intervals } : {}), ...(seq ? { sequential: sequentialHostsJson(seq) } : {}), ...(steps.length ? { restart_steps: steps } : {}), ...(noise ? { host_noise: noise } : {}), ...(loaded.timer?.length ? { timer_note: loaded.timer } : {}) }, null, 2));
    else {
      for (const line of analysisText(a, { name: loaded.name, cells: data.cells.length, queries: data.queries.length, executions: data.values.length, kind: loaded.kind, ruled, timer: loaded.timer })) io.out(line);
      const stepsLine = restartStepsLine(steps);
      if (stepsLine) io.out(stepsLine);
      if (noise) for (const line of ['', ...noiseLines(noise, false)]) io.out(line);
      if (intervals) for (const line of intervalsText(intervals)) io.out(line);
      if (seq) for (const h of seq) for (const line of ['', ...sequentialText(h.result, h.host)]) io.out(line);
    }
    return 0;
  },
};
