// Multiple comparisons: every set of comparisons shown together is adjusted as one family, so that
// comparing sixteen cells on five queries does not turn restart noise into "findings".
// Holm (1979) controls the family-wise error rate under any dependence (comparisons with one baseline
// are correlated); Benjamini–Hochberg (1995) controls the false discovery rate, a milder promise.

export type Adjustment = 'holm' | 'bh';

export const ADJUSTMENTS: readonly Adjustment[] = ['holm', 'bh'];

/** The names people read: "Holm", "Benjamini–Hochberg". */
export const ADJUSTMENT_NAMES: Record<Adjustment, string> = { holm: 'Holm', bh: 'Benjamini–Hochberg' };

/** `holm` or `bh` from user input (`Holm`, `BH`, `fdr` too); undefined for anything else. */
export function parseAdjustment(text: string): Adjustment | undefined {
  const t = text.trim().toLowerCase();
  if (t === 'holm') return 'holm';
  if (t === 'bh' || t === 'fdr' || t === 'benjamini-hochberg') return 'bh';
  return undefined;
}

/**
 * Adjusted p-values for one family, in the input order. Nulls (comparisons without a p-value) are not
 * members of the family and stay null.
 *   Holm:  p̃(i) = max over j ≤ i of min(1, (m − j + 1) · p(j)), p(1) ≤ … ≤ p(m)
 *   BH:    p̃(i) = min over j ≥ i of min(1, m · p(j) / j)
 */
export function adjustPValues(ps: readonly (number | null)[], method: Adjustment): (number | null)[] {
  const idx: number[] = [];
  ps.forEach((p, i) => {
    if (p !== null && Number.isFinite(p)) idx.push(i);
  });
  const m = idx.length;
  idx.sort((a, b) => (ps[a] as number) - (ps[b] as number) || a - b);
  const out: (number | null)[] = ps.map(() => null);
  if (method === 'holm') {
    let running = 0;
    idx.forEach((i, k) => {
      running = Math.max(running, Math.min(1, (m - k) * (ps[i] as number)));
      out[i] = running;
    });
  } else {
    let running = 1;
    for (let k = m - 1; k >= 0; k--) {
      const i = idx[k];
      running = Math.min(running, Math.min(1, (m * (ps[i] as number)) / (k + 1)));
      out[i] = running;
    }
  }
  return out;
}

/** `3 of 80 comparisons differ after Holm adjustment (α = 0.05)`. */
export function differSummary(adjusted: readonly (number | null)[], alpha: number, method: Adjustment): string {
  const ps = adjusted.filter((p): p is number => p !== null);
  const k = ps.filter((p) => p <= alpha).length;
  return `${k} of ${ps.length} comparison${ps.length === 1 ? '' : 's'} differ${ps.length === 1 ? 's' : ''} after ${ADJUSTMENT_NAMES[method]} adjustment (α = ${alpha})`;
}

/** How many comparisons are in the family: the ones with a p-value. */
export function familySize(list: readonly { p_value: number | null }[]): number {
  return list.filter((c) => c.p_value !== null && Number.isFinite(c.p_value)).length;
}
