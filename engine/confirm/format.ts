/**
 * @module
 * Number formats used in confirmation reasons. Reasons are for people: they round, the scores do not.
 */

/** a long-oriented term beyond ±0.25 earns a directional label in the reasons; inside it the label is neutral */
export const LABEL_THRESHOLD = 0.25

/** label of a long-oriented term: `bearish` at or below -LABEL_THRESHOLD, `bullish` at or above +LABEL_THRESHOLD */
export function lean(term: number, bearish: string, neutral: string, bullish: string): string {
  return term <= -LABEL_THRESHOLD ? bearish : term >= LABEL_THRESHOLD ? bullish : neutral
}

/** toFixed that never prints "Infinity": absurd inputs (1e308 × 100) overflow, and reasons must stay readable */
export function fixed(x: number, digits: number): string {
  if (Number.isFinite(x)) return x.toFixed(digits)
  return x > 0 ? 'huge' : '-huge'
}

/** fraction as a percent with a sign: 0.062 → "+6.2%", -0.031 → "-3.1%" */
export function signedPct(fraction: number, digits = 1): string {
  const s = fixed(fraction * 100, digits)
  return fraction > 0 && !s.startsWith('-') ? `+${s}%` : `${s}%`
}

/** fraction as a percent without a forced sign: 0.00031 → "0.031%" */
export function pct(fraction: number, digits: number): string {
  return `${fixed(fraction * 100, digits)}%`
}

/** absolute USD amount, short: 1.25e9 → "$1.25B", 1.2e8 → "$120M", 4.5e7 → "$45M", 8.5e5 → "$850K" */
export function usd(amount: number): string {
  const a = Math.abs(amount)
  if (a >= 1e9) return `$${trim((a / 1e9).toFixed(2))}B`
  if (a >= 1e6) return `$${trim((a / 1e6).toFixed(1))}M`
  if (a >= 1e3) return `$${trim((a / 1e3).toFixed(0))}K`
  return `$${fixed(a, 0)}`
}

/** 1 → "1st", 2 → "2nd", 11 → "11th", 94 → "94th" */
export function ordinal(n: number): string {
  const mod100 = n % 100
  const mod10 = n % 10
  const suffix =
    mod100 >= 11 && mod100 <= 13 ? 'th' : mod10 === 1 ? 'st' : mod10 === 2 ? 'nd' : mod10 === 3 ? 'rd' : 'th'
  return `${n}${suffix}`
}

/** drop a trailing ".0"/".00" so "$120.0M" reads "$120M" */
function trim(s: string): string {
  return s.includes('.') && !s.includes('e') ? s.replace(/\.?0+$/, '') : s
}
