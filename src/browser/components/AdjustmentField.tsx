// The choice of how the p-values of comparisons shown together are adjusted: Holm or Benjamini–Hochberg.
// One control for the Analysis and the Compare views, so both name the methods the same way.
import { ADJUSTMENT_NAMES, ADJUSTMENTS, type Adjustment } from '../../common/stats/adjust.js';

export function AdjustmentField({ value, onChange, testid }: { value: Adjustment; onChange(a: Adjustment): void; testid: string }) {
  return (
    <label className="field">
      <span>adjust p-values</span>
      <select value={value} onChange={(e) => onChange(e.target.value as Adjustment)} data-testid={testid} title="Holm controls the chance of any false alarm; Benjamini–Hochberg the share of false alarms">
        {ADJUSTMENTS.map((a) => (
          <option key={a} value={a}>
            {ADJUSTMENT_NAMES[a]}
          </option>
        ))}
      </select>
    </label>
  );
}
