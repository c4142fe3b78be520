// The standard normal distribution, to double precision where the group-sequential boundaries need it
// (tail areas near 1e-6 at an early look). simple-statistics' table is good to two decimals only.

/** The standard normal density. */
export function dnorm(x: number): number {
  return Math.exp(-0.5 * x * x) / Math.sqrt(2 * Math.PI);
}

/**
 * P(Z ≤ x): W. J. Cody's rational approximations of erfc (Math. Comp. 1969), relative error below
 * 1e-14 in both tails, so 1 − Φ(4.5) keeps its digits.
 */
export function pnorm(x: number): number {
  if (Number.isNaN(x)) return Number.NaN;
  const z = Math.abs(x) / Math.SQRT2;
  const tail = 0.5 * erfc(z);
  return x < 0 ? tail : 1 - tail;
}

/** P(Z > x), computed without cancellation for large x. */
export function pnormUpper(x: number): number {
  return pnorm(-x);
}

function erfc(x: number): number {
  // x ≥ 0
  if (x < 0.5) return 1 - erfSmall(x);
  if (x < 4) {
    const p = [3.004592610201616e2, 4.519189537118729e2, 3.393208167343437e2, 1.529892850469404e2, 4.316222722205674e1, 7.211758250883094, 5.641955174789740e-1, -1.368648573827167e-7];
    const q = [3.004592609569833e2, 7.909509253278980e2, 9.313540948506096e2, 6.389802644656312e2, 2.775854447439876e2, 7.700015293522947e1, 1.278272731962942e1, 1];
    let num = 0;
    let den = 0;
    for (let i = p.length - 1; i >= 0; i--) {
      num = num * x + p[i];
      den = den * x + q[i];
    }
    return (Math.exp(-x * x) * num) / den;
  }
  const p = [-2.99610707703542174e-3, -4.94730910623250734e-2, -2.26956593539686930e-1, -2.78661308609647788e-1, -2.23192459734184686e-2];
  const q = [1.06209230528467918e-2, 1.91308926107829841e-1, 1.05167510706793207, 1.98733201817135256, 1];
  const z = 1 / (x * x);
  let num = 0;
  let den = 0;
  for (let i = p.length - 1; i >= 0; i--) {
    num = num * z + p[i];
    den = den * z + q[i];
  }
  return (Math.exp(-x * x) / x) * (1 / Math.sqrt(Math.PI) + (z * num) / den);
}

function erfSmall(x: number): number {
  const p = [3.16112374387056560, 1.13864154151050156e2, 3.77485237685302021e2, 3.20937758913846947e3, 1.85777706184603153e-1];
  const q = [2.36012909523441209e1, 2.44024637934444173e2, 1.28261652607737228e3, 2.84423683343917062e3];
  const z = x * x;
  const num = (((p[4] * z + p[0]) * z + p[1]) * z + p[2]) * z + p[3];
  const den = (((z + q[0]) * z + q[1]) * z + q[2]) * z + q[3];
  return (x * num) / den;
}

/** The p-quantile of the standard normal: Acklam's approximation, then Newton steps on pnorm. */
export function qnorm(p: number): number {
  if (!(p > 0 && p < 1)) return p === 0 ? -Infinity : p === 1 ? Infinity : Number.NaN;
  const a = [-3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1, 2.506628277459239];
  const b = [-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1];
  const c = [-7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];
  const lo = 0.02425;
  let x: number;
  if (p < lo) {
    const q = Math.sqrt(-2 * Math.log(p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  } else if (p <= 1 - lo) {
    const q = p - 0.5;
    const r = q * q;
    x = ((((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q) / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  } else {
    const q = Math.sqrt(-2 * Math.log(1 - p));
    x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  // Newton on the smaller tail, where pnorm keeps its relative precision.
  for (let i = 0; i < 2; i++) {
    const err = x < 0 ? pnorm(x) - p : pnormUpper(x) - (1 - p);
    const step = err / dnorm(x);
    x = x < 0 ? x - step : x + step;
  }
  return x;
}
