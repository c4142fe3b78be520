// Stop when answered in the Run view (issue 21): the rule the run follows, and at each look every
// comparison's two repeated intervals (valid at whatever look the run stops), each named with what it
// decides: the 1 − 2α/m one against the ±E band (equivalent when inside: two one-sided tests), the
// 1 − α/m one against 0 (differs when it leaves 0 out, that is |Z| ≥ the look's boundary); "at most k
// more rounds", and at the end why the run stopped. The verdict and both intervals come from one
// function (sequential.ts decideAtLook). The numbers are the engine's look (records.ts `look`), or for a saved
// file the same rule replayed on its results (stats/replay.ts stopCheck).
import { lookLevels } from '../../../common/stats/replay.js';
import { fmtLevel, intervalNames, lookSchedule, sequentialVerdictText, type IntervalLevels, type LookComparison, type SequentialComparison } from '../../../common/stats/sequential.js';
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
  const widest = Math.max(0, ...[...open, ...earlier].flatMap((c) => [Math.abs(c.eq_low_pct ?? c.rci_low_pct ?? 0), Math.abs(c.eq_high_pct ?? c.rci_high_pct ?? 0)]));
  const levels = look ? lookLevels(look.look, s.alpha) : null;
  const names = levels && look ? intervalNames(levels, look.effect_pct) : null;
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
            Look at round {look.look.round} of at most {look.max_rounds}: a comparison <strong>differs</strong> when |Z| ≥ <strong>{look.look.boundary_z.toFixed(2)}</strong>, that is when its{' '}
            {names!.differs} (thin line) leaves out 0; it is <strong>equivalent</strong> when its {names!.equivalent} (thick line, the equivalence test&apos;s: two one-sided
            tests) lies inside the green band (±{look.effect_pct} %).
          </div>
          <table className="run-stop-table">
            <thead>
              <tr>
                <th>comparison</th>
                <th>effect</th>
                <th>
                  repeated intervals against ±{look.effect_pct} %: {fmtLevel(levels!.equivalent_pct)} % (thick), {fmtLevel(levels!.differs_pct)} % (thin)
                </th>
                <th>|Z| / boundary</th>
                <th>verdict</th>
              </tr>
            </thead>
            <tbody>
              {open.map((c) => (
                <Row key={`${c.cell}/${c.query}`} c={c} boundary={look.look.boundary_z} effect={look.effect_pct} levels={levels!} span={span} verdict={decided.get(`${c.cell}\u0000${c.query}`)} />
              ))}
              {earlier.map((c) => (
                <Row key={`${c.cell}/${c.query}`} c={{ ...c, z: null, decision: c.verdict, pairs: 0, conditional_power: null }} boundary={null} effect={look.effect_pct} levels={levels!} span={span} verdict={c} earlier />
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

function Row({ c, boundary, effect, levels, span, verdict, earlier }: { c: LookComparison; boundary: number | null; effect: number; levels: IntervalLevels; span: number; verdict?: SequentialComparison; earlier?: boolean }) {
  const word = sequentialVerdictText(c.decision, effect);
  const eq = c.eq_low_pct !== undefined && c.eq_low_pct !== null && c.eq_high_pct !== undefined && c.eq_high_pct !== null;
  const at = verdict?.decided_round !== null && verdict?.decided_round !== undefined && c.decision ? ` at round ${verdict.decided_round}` : '';
  return (
    <tr data-testid="run-stop-row" data-verdict={c.decision ?? 'undecided'}>
      <td>
        <code>{c.cell}</code> / {c.query}
      </td>
      <td>{pct(c.effect_pct)}</td>
      <td>
        <IntervalBar low={c.rci_low_pct} high={c.rci_high_pct} eqLow={c.eq_low_pct ?? null} eqHigh={c.eq_high_pct ?? null} mid={c.effect_pct} effect={effect} levels={levels} span={span} />{' '}
        <small data-testid="run-stop-intervals">
          {eq ? (
            <>
              <span data-testid="run-stop-eq">
                {fmtLevel(levels.equivalent_pct)} % [{pct(c.eq_low_pct)}, {pct(c.eq_high_pct)}]
              </span>
              {'; '}
            </>
          ) : null}
          <span data-testid="run-stop-rci">
            {fmtLevel(levels.differs_pct)} % [{pct(c.rci_low_pct)}, {pct(c.rci_high_pct)}]
          </span>
        </small>
      </td>
      <td data-testid="run-stop-z">
        {/* A comparison decided at an earlier look is not tested again: its effect and intervals are that look's. */}
        {earlier && verdict?.decided_round ? <span className="muted">not tested again: its figures are round {verdict.decided_round}&apos;s</span> : c.z === null ? '—' : `${Math.abs(c.z).toFixed(2)} / ${boundary?.toFixed(2) ?? '—'}`}
      </td>
      <td className={`run-stop-${c.decision ?? 'undecided'}`} title={c.because}>
        {word}
        {at}
      </td>
    </tr>
  );
}

/**
 * The two intervals on an axis from −span to +span %, with the ±E band shaded and zero marked: thin the
 * one that says "differs" (leaves out 0), thick the one that says "equivalent" (inside the band).
 */
function IntervalBar({ low, high, eqLow, eqHigh, mid, effect, levels, span }: { low: number | null; high: number | null; eqLow: number | null; eqHigh: number | null; mid: number | null; effect: number; levels: IntervalLevels; span: number }) {
  const w = 220;
  const h = 16;
  const x = (v: number) => Math.max(0, Math.min(w, ((v + span) / (2 * span)) * w));
  return (
    <svg width={w} height={h} className="run-stop-bar" role="img" aria-label={
        low === null
          ? 'no interval yet'
          : `${eqLow !== null && eqHigh !== null ? `${fmtLevel(levels.equivalent_pct)} % interval ${pct(eqLow)} to ${pct(eqHigh)}, ` : ''}${fmtLevel(levels.differs_pct)} % interval ${pct(low)} to ${pct(high)}, against ±${effect} %`
      }
    >
      <rect x={x(-effect)} y={0} width={x(effect) - x(-effect)} height={h} fill="#d3f0dc" />
      <line x1={x(0)} x2={x(0)} y1={0} y2={h} stroke="#8c959f" strokeDasharray="2 2" />
      {low !== null && high !== null && <line x1={x(low)} x2={x(high)} y1={h / 2} y2={h / 2} stroke="#0969da" strokeWidth={1.5} />}
      {eqLow !== null && eqHigh !== null && <line x1={x(eqLow)} x2={x(eqHigh)} y1={h / 2} y2={h / 2} stroke="#0969da" strokeOpacity={0.55} strokeWidth={5} />}
      {mid !== null && <circle cx={x(mid)} cy={h / 2} r={3} fill="#0a3069" />}
    </svg>
  );
}
