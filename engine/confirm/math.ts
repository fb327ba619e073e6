/**
 * @module
 * Small numeric helpers of the confirmation model. Every helper returns a finite number or null, never NaN.
 */

/** the value when it is a finite number, else null (NaN and ±Infinity count as missing data) */
export function finite(x: number | null | undefined): number | null {
  return typeof x === 'number' && Number.isFinite(x) ? x : null
}

/** the value when finite and > 0, else null (ratios, intervals, MVRV) */
export function positive(x: number | null | undefined): number | null {
  const v = finite(x)
  return v !== null && v > 0 ? v : null
}

/** the value when finite and >= 0, else null (wallet counts) */
export function nonNegative(x: number | null | undefined): number | null {
  const v = finite(x)
  return v !== null && v >= 0 ? v : null
}

/** clamp to [lo, hi]; symmetric bounds keep clamp(-x) === -clamp(x) */
export function clamp(x: number, lo: number, hi: number): number {
  return x < lo ? lo : x > hi ? hi : x
}

/** exact negation that turns -0 into 0, so JSON and equality checks never see -0 */
export function negate(x: number): number {
  return x === 0 ? 0 : -x
}
