// `varlab export FILE`: the results of an experiment as CSVs, images and a Markdown report, for R or
// pandas, a blog post, or a bug report.
import { relative } from 'node:path';
import { readExperimentFile } from '../../node/files.js';
import { exportExperiment } from '../../node/export/files.js';
import { renderProblem } from '../../node/export/render.js';
import { adjustmentOption, numberOption, parse, probabilityOption, UsageError, type Command } from '../io.js';

export const exportCommand: Command = {
  name: 'export',
  usage: `varlab export FILE [--csv DIR] [--png DIR] [--svg DIR] [--markdown FILE.md] [--scale 1|2|3] [--baseline CELL] [--warmup W] [--alpha A] [--adjust holm|bh] [--across-runs]

  --csv DIR        executions.csv (one row per execution), restarts.csv (one row per restart),
                   summary.csv (the statistics per cell and query, comparisons with the baseline; for a file
                   run with its stopping rule, design.stopping, also the rule's rule_verdict, decided_round,
                   rci_low_pct, rci_high_pct, eq_low_pct, eq_high_pct and stopped_round, as analyze --json's
                   "sequential"; empty without the rule), and for
                   sysbench runs intervals.csv (one row per --report-interval line: tps, qps, latency)
  --png DIR        one PNG per plot, rendered by headless Chromium (CHROMIUM_PATH or /usr/bin/chromium)
  --svg DIR        the same plots as SVG
  --markdown FILE  a report to paste into a bug report: design, host, configurations, comparisons,
                   minimum detectable effect, links to the plots
  --scale N        PNG scale (text and lines scale too): 1, 2 (default) or 3
  --baseline CELL  the cell others are compared with (default: the first cell of the plan)
  --warmup W       executions dropped per restart and query (default: the design's warm-up)
  --alpha A        significance level of the comparisons; intervals are at 1 − A (default 0.05)
  --adjust holm|bh how the comparisons' p-values are adjusted together (default holm)
  --across-runs    a grown design (run --missing): also compare cells that no run measured together,
                   unpaired (by default such a pair is not compared, and says why)

Exit 0 when every file was written; 1 when something is missing (Chromium, results); 2 on bad usage.`,
  async run(argv, io) {
    const { values, positionals } = parse(argv, {
      csv: { type: 'string' },
      png: { type: 'string' },
      svg: { type: 'string' },
      markdown: { type: 'string' },
      scale: { type: 'string' },
      baseline: { type: 'string' },
      warmup: { type: 'string' },
      alpha: { type: 'string' },
      adjust: { type: 'string' },
      'across-runs': { type: 'boolean' },
    });
    if (positionals.length !== 1) throw new UsageError('expected exactly one experiment FILE');
    if (!values.csv && !values.png && !values.svg && !values.markdown) throw new UsageError('nothing to export: give at least one of --csv, --png, --svg, --markdown');
    const scale = numberOption('scale', values.scale, { integer: true, min: 1, max: 3 }) ?? 2;
    const warmup = numberOption('warmup', values.warmup, { integer: true, min: 0 });
    const alpha = probabilityOption('alpha', values.alpha);
    const adjustment = adjustmentOption(values.adjust);
    const file = positionals[0];
    if (values.png || values.svg) {
      const problem = renderProblem();
      if (problem) {
        io.err(`varlab export: cannot write ${values.png ? 'PNG' : 'SVG'} plots: ${problem}`);
        return 1;
      }
    }
    const r = await readExperimentFile(file);
    if (!r.doc) {
      for (const p of r.problems) io.err(`${file}: ${p}`);
      return 2;
    }
    const written = await exportExperiment(
      r.doc,
      { csvDir: values.csv, pngDir: values.png, svgDir: values.svg, markdown: values.markdown, scale, warmup, baseline: values.baseline, alpha, adjustment, acrossRuns: values['across-runs'] === true },
      (path) => {
        const rel = relative(process.cwd(), path);
        io.out(`wrote ${rel && !rel.startsWith('..') ? rel : path}`);
      },
    );
    io.out(`${written.length} file${written.length === 1 ? '' : 's'} written.`);
    return 0;
  },
};
