/**
 * @module
 * The bar length of an alert's `timeframe` (TradingView's `{{interval}}` or the usual short forms), used to
 * judge sequence gaps, lateness and silence (docs/alerts.md, "Sequence checks"). TradingView writes minutes
 * as a bare number (`1`, `15`, `240`), seconds with `S` (`30S`), days, weeks and months with `D`, `W`, `M`
 * (`1D`, `W`, `3M`); the usual forms are `30s`, `15m`, `4h`, `1d`, `1w`. Case matters for `m` (minutes)
 * against `M` (months). A month counts as 30 days.
 */

const SECOND = 1_000
const MINUTE = 60 * SECOND
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR

/** unit letter -> ms */
const UNITS: Readonly<Record<string, number>> = {
  S: SECOND,
  s: SECOND,
  m: MINUTE,
  h: HOUR,
  H: HOUR,
  D: DAY,
  d: DAY,
  W: 7 * DAY,
  w: 7 * DAY,
  M: 30 * DAY
}

/** Longest bar judged, ms: a year. Longer timeframes are read as unknown (no sequence judgement). */
const MAX_BAR_MS = 366 * DAY

/** The bar length of `timeframe`, ms, or null when it names none of the forms above. */
export function barMs(timeframe: string | null): number | null {
  if (timeframe === null) return null
  const m = /^(\d{0,4})([A-Za-z]?)$/.exec(timeframe)
  if (!m || (m[1] === '' && m[2] === '')) return null
  const count = m[1] === '' ? 1 : Number(m[1])
  if (count === 0) return null
  const unit = m[2] === '' ? MINUTE : UNITS[m[2]!]
  if (unit === undefined) return null
  const ms = count * unit
  return ms <= MAX_BAR_MS ? ms : null
}
