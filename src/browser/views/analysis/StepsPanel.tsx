// Where a restart's time goes (issue 22, a lean restart): each step's median milliseconds over the
// restarts that timed it, as `varlab analyze` says them. Idle and measure are the design's own time;
// the server's start is in `start`; the rest is what varlab adds around them.
import { useMemo } from 'react';
import type { RestartResult } from '../../../common/experiment/types.js';
import { fmtStepMs, restartStepTimes, type StepTime } from '../../../common/restart-steps.js';
import { TABLE_STYLE } from './format.js';

const WHAT: Record<StepTime['step'], string> = {
  stop: 'stop mysqld, set the host (and drop caches)',
  idle: "the design's idle time, mysqld stopped",
  start: 'start mysqld until it answers (the server start itself)',
  verify: 'read the settings back on the live server',
  setup: 'setup script, data step, measurement account (first restart)',
  connect: 'the measuring connection',
  preload: 'scan the tables and indexes',
  timer: 'detect the statement timer',
  measure: 'the executions (or the benchmark command)',
};


export function hasStepTimes(restarts: readonly RestartResult[] | undefined): boolean {
  return !!restarts?.some((r) => r.steps);
}

export function StepsPanel({ restarts }: { restarts: readonly RestartResult[] }) {
  const steps = useMemo(() => restartStepTimes(restarts), [restarts]);
  if (!steps.length) return null;
  return (
    <div data-testid="restart-steps">
      <table className="plan-table" style={TABLE_STYLE}>
        <thead>
          <tr>
            <th style={{ textAlign: 'left' }}>step</th>
            <th className="num">median per restart</th>
            <th className="num">restarts</th>
            <th style={{ textAlign: 'left' }}>what it is</th>
          </tr>
        </thead>
        <tbody>
          {steps.map((s) => (
            <tr key={s.step} data-step={s.step}>
              <td>{s.step}</td>
              <td className="num">{fmtStepMs(s.median_ms)}</td>
              <td className="num">{s.restarts}</td>
              <td className="muted">{WHAT[s.step]}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="small muted">Medians of each step over the restarts that went through it (the setup only in the first restart of a data directory); a restart&apos;s wall time is about their sum.</p>
    </div>
  );
}
