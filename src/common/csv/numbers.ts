// Numbers in CSV files, read strictly: decimal notation only. JavaScript's Number() also takes 0x10,
// 0o7, 0b11, +5, Infinity and '' (as 0); a measurement file holding those is wrong, and saying so is
// better than analysing 16 for 0x10. Both functions return NaN for anything else.

/** Powers of ten that are exact doubles: a product or quotient with them is correctly rounded. */
const POW10 = Array.from({ length: 23 }, (_, i) => 10 ** i);

/**
 * A decimal number: optional '-', digits with an optional fraction, an optional exponent
 * (`12`, `-0.5`, `.5`, `5.`, `1e-7`, `2.5E+3`). Surrounding spaces are not allowed (the CSV reader trims).
 * Up to 15 significant digits and a small exponent it computes the double exactly (Clinger's fast
 * path: an exact integer times or over an exact power of ten is one correctly rounded operation);
 * otherwise, the syntax being checked, Number() does the conversion. Either way the result is the
 * double Number() gives, so a value written by String(x) reads back as x.
 */
export function parseDecimal(s: string): number {
  const n = s.length;
  let i = 0;
  let negative = false;
  if (i < n && s.charCodeAt(i) === 45 /* - */) {
    negative = true;
    i++;
  }
  let mantissa = 0;
  let significant = 0;
  let digits = 0;
  let scale = 0;
  let dot = false;
  for (; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c === 46 /* . */ && !dot) {
      dot = true;
      continue;
    }
    const d = c - 48;
    if (d < 0 || d > 9) break;
    digits++;
    if (mantissa !== 0 || d !== 0) significant++;
    mantissa = mantissa * 10 + d;
    if (dot) scale--;
  }
  if (digits === 0) return NaN;
  if (i < n && (s.charCodeAt(i) | 32) === 101 /* e or E */) {
    i++;
    let expNegative = false;
    const sign = s.charCodeAt(i);
    if (sign === 45 || sign === 43) {
      expNegative = sign === 45;
      i++;
    }
    let exp = 0;
    let expDigits = 0;
    for (; i < n; i++) {
      const d = s.charCodeAt(i) - 48;
      if (d < 0 || d > 9) break;
      expDigits++;
      if (exp < 100000) exp = exp * 10 + d;
    }
    if (expDigits === 0) return NaN;
    scale += expNegative ? -exp : exp;
  }
  if (i !== n) return NaN;
  if (significant <= 15 && scale >= -22 && scale <= 22) {
    const x = scale < 0 ? mantissa / POW10[-scale] : mantissa * POW10[scale];
    return negative ? -x : x;
  }
  const x = Number(s);
  return Number.isFinite(x) ? x : NaN;
}

/** A whole number of at most 10 digits (`1`, `284`), or NaN. */
export function parseCount(s: string): number {
  const n = s.length;
  if (n === 0 || n > 10) return NaN;
  let x = 0;
  for (let i = 0; i < n; i++) {
    const d = s.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return NaN;
    x = x * 10 + d;
  }
  return x;
}
