// `varlab compare FILE FILE...`: the same queries in two or more experiment files (two MySQL versions,
// two hosts) side by side, with intervals from restart means across files.
import { readExperimentFile } from '../../node/files.js';
import { compareExperiments, compareMarkdown, compareText, CompareError, labelsFor } from '../../common/export/compare.js';
import { COMPARISON_METHOD } from '../../common/stats/ratio.js';
import { adjustmentOption, numberOption, parse, probabilityOption, UsageError, type Command } from '../io.js';

export const compareCommand: Command = {
  name: 'compare',
  usage: `varlab compare FILE FILE... [--json | --markdown] [--baseline FILE] [--warmup W] [--alpha A] [--adjust holm|bh]

Analyses each file on its own, then compares every file with the baseline file (the first by default):
per cell the files share and per query, the effect in percent: the ${COMPARISON_METHOD}.
Every comparison of the call is one family for the adjustment of p-values.
  --baseline FILE  the file the others are compared with (its path, or its label as printed)
  --warmup W       executions dropped per restart and query (default: each file's own warm-up)
  --alpha A        significance level; intervals are at 1 − A (default 0.05)
  --adjust holm|bh adjust the p-values: Holm (default) or Benjamini–Hochberg
  --markdown       the same tables as Markdown, to paste into a bug report
  --json           {"baseline","alpha","adjustment","method","summary","unit","effect_convention","notes","files":[…],"queries":[…],
                   "configurations":[…],"comparisons":[{"file","baseline_file","cell","query","effect_pct","ci_low_pct","ci_high_pct",
                   "p_value","p_adjusted","adjustment","verdict","detectable_pct"}]}`,
  async run(argv, io) {
    const { values, positionals } = parse(argv, {
      json: { type: 'boolean' },
      markdown: { type: 'boolean' },
      baseline: { type: 'string' },
      warmup: { type: 'string' },
      alpha: { type: 'string' },
      adjust: { type: 'string' },
    });
    if (positionals.length < 2) throw new UsageError('expected two or more experiment FILEs');
    const warmup = numberOption('warmup', values.warmup, { integer: true, min: 0 });
    const alpha = probabilityOption('alpha', values.alpha);
    const adjustment = adjustmentOption(values.adjust);
    const labels = labelsFor(positionals);
    let baseline: string | undefined;
    if (values.baseline !== undefined) {
      const i = (positionals as string[]).indexOf(values.baseline);
      baseline = i >= 0 ? labels[i] : labels.includes(values.baseline) ? values.baseline : undefined;
      if (!baseline) throw new UsageError(`--baseline: ${JSON.stringify(values.baseline)} is not one of the files (${positionals.join(', ')})`);
    }
    const inputs = [];
    for (const [i, file] of positionals.entries()) {
      const r = await readExperimentFile(file);
      if (!r.doc) {
        for (const p of r.problems) io.err(`${file}: ${p}`);
        return 2;
      }
      inputs.push({ label: labels[i], doc: r.doc });
    }
    try {
      const result = compareExperiments(inputs, { baseline, warmup, alpha, adjustment });
      io.out(values.json ? JSON.stringify(result, null, 2) : values.markdown ? compareMarkdown(result) : compareText(result));
      return 0;
    } catch (e) {
      if (e instanceof CompareError) {
        io.err(`varlab compare: ${e.message}`);
        return 1;
      }
      throw e;
    }
  },
};
