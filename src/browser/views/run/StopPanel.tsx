// Stop when answered in the Run view (issue 21): the rule the run follows, and at each look every
// comparison's running interval (the repeated confidence interval, valid at whatever look the run
// stops) against the ±E band, its |Z| against the look's boundary, "at most k more rounds", and at
// the end why the run stopped. The numbers are the engine's look (records.ts `look`), or for a saved
// file the same rule replayed on its results (stats/replay.ts stopCheck).
import { lookSchedule, type LookComparison, type SequentialComparison } from '../../../common/stats/sequential.js';
import type { LiveRun } from './live.js';

const pct = (x: number | null | undefined) => (x === null || x === undefined ? 'n/a' : `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(2)} %`);

export function StopPanel({ live }: { live: LiveRun }) {
  const s = live.stopping;
  if (!s) return null;
  const look = live.look;
  const schedule = lookSchedule(s.maxRestartsPerCell);
  const decided = new Map((look?.comparisons ?? []).map((c) => [`${c.cell}\u0000${c.query}`, c]));
  // At the look: the comparisons it looked at, then those decided at an earlier one.
  const open = look?.look.comparisons ?? [];
  const earlier = (look?.comparisons ?? []).filter((c) => c.decided_round !== null && !open.some((o) => o.cell === c.cell && o.query === c.query));
  // The axis shows the ±E band at a readable size: an interval wider than 6 E (early looks, a noisy
  // host) runs off its ends, and its figures beside it say how far.
  const widest = Math.max(0, ...[...open, ...earlier].flatMap((c) => [Math.abs(c.rci_low_pct ?? 0), Math.abs(c.rci_high_pct ?? 0)]));
  const span = Math.max(2 * s.effect, Math.min(widest, 6 * s.effect)) * 1.15;
  return (
    <div className="run-box run-stop" data-testid="run-stop">
      <div>
        <strong>Stop when answered</strong>: each cell against <code>{live.cells[0]}</code> in pairs within rounds, target ±{s.effect} %, α {s.alpha} over all looks (Lan–DeMets,
        O&apos;Brien–Fleming type); at most {s.maxRestartsPerCell} rounds, looks at rounds {schedule.join(', ')}.
      </div>
      {!look ? (
        <div className="muted" data-testid="run-stop-waiting">
          First look at round {schedule[0]}, when every cell has {schedule[0]} restarts.
        </div>
      ) : (
        <>
          <div data-testid="run-stop-look">
            Look at round {look.look.round} of at most {look.max_rounds}: a comparison differs when |Z| ≥ <strong>{look.look.boundary_z.toFixed(2)}</strong>, is equivalent when its
            interval lies inside the green band (±{look.effect_pct} %).
          </div>
          <table className="run-stop-table">
            <thead>
              <tr>
                <th>comparison</th>
                <th>effect</th>
                <th>repeated interval against ±{look.effect_pct} %</th>
                <th>|Z| / boundary</th>
                <th>verdict</th>
              </tr>
            </thead>
            <tbody>
              {open.map((c) => (
                <Row key={`${c.cell}/${c.query}`} c={c} boundary={look.look.boundary_z} effect={look.effect_pct} span={span} verdict={decided.get(`${c.cell}\u0000${c.query}`)} />
              ))}
              {earlier.map((c) => (
                <Row key={`${c.cell}/${c.query}`} c={{ ...c, z: null, decision: c.verdict, pairs: 0, conditional_power: null }} boundary={null} effect={look.effect_pct} span={span} verdict={c} />
              ))}
            </tbody>
          </table>
          {live.stopped ? (
            <div className="run-stop-end" data-testid="run-stop-end">
              Stopped at round {live.stopped.round}: {live.stopped.because}. The intervals above are repeated confidence intervals, valid at the look the run stopped.
            </div>
          ) : look.stopped_because ? (
            <div className="run-stop-end" data-testid="run-stop-end">
              Stopping at round {look.look.round}: {look.stopped_because}.
            </div>
          ) : (
            <div data-testid="run-stop-left">
              Going on: <strong>at most {look.rounds_left} more round{look.rounds_left === 1 ? '' : 's'}</strong> ({look.rounds_left * live.cells.length} restarts).
            </div>
          )}
        </>
      )}
    </div>
  );
}

function Row({ c, boundary, effect, span, verdict }: { c: LookComparison; boundary: number | null; effect: number; span: number; verdict?: SequentialComparison }) {
  const word = c.decision === 'equivalent' ? `equivalent within ±${effect} %` : (c.decision ?? 'undecided');
  const at = verdict?.decided_round !== null && verdict?.decided_round !== undefined && c.decision ? ` at round ${verdict.decided_round}` : '';
  return (
    <tr data-testid="run-stop-row" data-verdict={c.decision ?? 'undecided'}>
      <td>
        <code>{c.cell}</code> / {c.query}
      </td>
      <td>{pct(c.effect_pct)}</td>
      <td>
        <IntervalBar low={c.rci_low_pct} high={c.rci_high_pct} mid={c.effect_pct} effect={effect} span={span} />{' '}
        <small>
          [{pct(c.rci_low_pct)}, {pct(c.rci_high_pct)}]
        </small>
      </td>
      <td>{c.z === null ? '—' : `${Math.abs(c.z).toFixed(2)} / ${boundary?.toFixed(2) ?? '—'}`}</td>
      <td className={`run-stop-${c.decision ?? 'undecided'}`} title={c.because}>
        {word}
        {at}
      </td>
    </tr>
  );
}

/** The interval on an axis from −span to +span %, with the ±E band shaded and zero marked. */
function IntervalBar({ low, high, mid, effect, span }: { low: number | null; high: number | null; mid: number | null; effect: number; span: number }) {
  const w = 220;
  const h = 16;
  const x = (v: number) => Math.max(0, Math.min(w, ((v + span) / (2 * span)) * w));
  return (
    <svg width={w} height={h} className="run-stop-bar" role="img" aria-label={low === null ? 'no interval yet' : `interval ${pct(low)} to ${pct(high)} against ±${effect} %`}>
      <rect x={x(-effect)} y={0} width={x(effect) - x(-effect)} height={h} fill="#d3f0dc" />
      <line x1={x(0)} x2={x(0)} y1={0} y2={h} stroke="#8c959f" strokeDasharray="2 2" />
      {low !== null && high !== null && <line x1={x(low)} x2={x(high)} y1={h / 2} y2={h / 2} stroke="#24292f" strokeWidth={2} />}
      {mid !== null && <circle cx={x(mid)} cy={h / 2} r={3} fill="#24292f" />}
    </svg>
  );
}
