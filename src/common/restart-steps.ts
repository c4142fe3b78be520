// Where a restart's time goes (issue 22, a lean restart): the median milliseconds of each step over the
// restarts that journaled them, for `varlab analyze`, its JSON and the Analysis view. The server's own
// start (`readyMs`, journaled with the checks) is part of `start`; the rest of `start`, and every other
// step but `idle` and `measure`, is varlab's overhead.
import { formatDuration } from './plan.js';
import { RESTART_STEPS, type RestartResult, type RestartStep } from './experiment/types.js';

export interface StepTime {
  step: RestartStep;
  /** Median milliseconds over the restarts that went through the step. */
  median_ms: number;
  /** How many restarts went through it. */
  restarts: number;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** Each step's median over the restarts (of any status) that timed it, in the order a restart runs them; empty when none did. */
export function restartStepTimes(restarts: readonly RestartResult[]): StepTime[] {
  return RESTART_STEPS.flatMap((step) => {
    const ms = restarts.flatMap((r) => (r.steps?.[step] !== undefined ? [r.steps[step]!] : []));
    return ms.length ? [{ step, median_ms: median(ms), restarts: ms.length }] : [];
  });
}

/** A step's milliseconds as read: `40 ms`, `3.1 s`, `1 min 05 s`. */
export const fmtStepMs = (ms: number) => (ms < 1000 ? `${Math.round(ms)} ms` : ms < 60_000 ? `${(ms / 1000).toFixed(1)} s` : formatDuration(ms / 1000));

/** One line: `where a restart's time goes (median): stop 1.2 s, idle 2 s, start 3 s, …`. */
export function restartStepsLine(steps: StepTime[]): string | null {
  if (!steps.length) return null;
  return `where a restart's time goes (median per restart): ${steps.map((s) => `${s.step} ${fmtStepMs(s.median_ms)}${s.step === 'setup' ? ` (${s.restarts} restart${s.restarts === 1 ? '' : 's'})` : ''}`).join(', ')}`;
}
