/**
 * @module
 * The Deribit option chain alive at a time: expiries (all at 08:00 UTC) and strikes.
 * - Expiries: the next 3 dailies, the next 2 Friday weeklies, the next 2 monthlies (last Friday of the
 *   month) and the next 2 quarterlies (last Friday of Mar/Jun/Sep/Dec); overlaps merge, so there are
 *   always at least 6. All are strictly after t, so an expired instrument is never listed.
 * - Strikes: a grid around the day's opening spot, finer near the money (BTC 1000/2000/5000/10000,
 *   ETH 25/50/100/250), wider for longer expiry kinds (dailies ±15%, quarterlies 0.3x..2.5x).
 * The chain changes only at 00:00 UTC (new reference spot) and 08:00 UTC (a daily expires).
 */
import { formatExpiryCode } from '../../../engine/options/instrument.js'

export type OptionCurrency = 'BTC' | 'ETH'
export type ExpiryKind = 'daily' | 'weekly' | 'monthly' | 'quarterly'

export interface OptionInstrument {
  /** Deribit name, e.g. `BTC-5JAN25-100000-C` */
  readonly name: string
  /** epoch ms, 08:00 UTC */
  readonly expiryMs: number
  readonly kind: ExpiryKind
  /** USD per coin */
  readonly strike: number
  readonly isCall: boolean
}

const DAY_MS = 86_400_000
const EXPIRY_OFFSET_MS = 8 * 3_600_000
/** day of week of a UTC day number, 0 = Sunday (day 0, 1970-01-01, was a Thursday) */
const FRIDAY = 5
const DAILY_COUNT = 3
const WEEKLY_COUNT = 2
const MONTHLY_COUNT = 2
const QUARTERLY_COUNT = 2

interface StrikeBand {
  /** the band covers strikes within this relative distance of spot */
  readonly maxDistance: number
  /** index into the currency's step ladder */
  readonly step: number
}
interface StrikeLayout {
  /** strikes span [low x spot, high x spot] */
  readonly low: number
  readonly high: number
  /** bands from the money outwards; the last one (maxDistance Infinity) covers the rest of the span */
  readonly bands: readonly StrikeBand[]
}

/** strike steps, USD: BTC 1000 near the money ... 10000 in the far wings; ETH 25 ... 250 */
const STEP_LADDER: Readonly<Record<OptionCurrency, readonly number[]>> = {
  BTC: [1000, 2000, 5000, 10000],
  ETH: [25, 50, 100, 250]
}
/**
 * ETH's fine steps are finer relative to spot (25 / 3500 = 0.7% vs 1000 / 100000 = 1%), so its bands are
 * narrowed to keep the chain smaller than BTC's (~700 vs ~800 instruments at the reference prices)
 */
const BAND_SCALE: Readonly<Record<OptionCurrency, number>> = { BTC: 1, ETH: 0.4 }
/** strike layouts by expiry kind: short expiries are narrow and fine, quarterlies span 0.3x..2.5x */
const LAYOUTS: Readonly<Record<ExpiryKind, StrikeLayout>> = {
  daily: { low: 0.85, high: 1.15, bands: [band(0.08, 0), band(Infinity, 1)] },
  weekly: { low: 0.65, high: 1.5, bands: [band(0.12, 0), band(0.25, 1), band(Infinity, 2)] },
  monthly: { low: 0.4, high: 2, bands: [band(0.15, 0), band(0.3, 1), band(0.6, 2), band(Infinity, 3)] },
  quarterly: { low: 0.3, high: 2.5, bands: [band(0.15, 0), band(0.35, 1), band(0.7, 2), band(Infinity, 3)] }
}

function band(maxDistance: number, step: number): StrikeBand {
  return { maxDistance, step }
}

function dayOfWeek(day: number): number {
  return (((day + 4) % 7) + 7) % 7
}

/** UTC day number of the last Friday of a month (month may overflow; Date.UTC normalises it) */
function lastFridayOfMonth(year: number, month: number): number {
  const lastDay = Date.UTC(year, month + 1, 0) / DAY_MS
  return lastDay - ((dayOfWeek(lastDay) - FRIDAY + 7) % 7)
}

/** what an expiry date is, by its calendar alone */
export function expiryKind(expiryMs: number): ExpiryKind {
  const day = Math.floor(expiryMs / DAY_MS)
  if (dayOfWeek(day) !== FRIDAY) return 'daily'
  const d = new Date(expiryMs)
  if (lastFridayOfMonth(d.getUTCFullYear(), d.getUTCMonth()) !== day) return 'weekly'
  return d.getUTCMonth() % 3 === 2 ? 'quarterly' : 'monthly'
}

/** expiries alive at `t`, ascending, each strictly after `t` */
export function liveExpiries(t: number): number[] {
  const out = new Set<number>()
  const firstDay = Math.floor((t - EXPIRY_OFFSET_MS) / DAY_MS) + 1
  let weeklies = 0
  for (let day = firstDay; weeklies < WEEKLY_COUNT || day < firstDay + DAILY_COUNT; day++) {
    if (day < firstDay + DAILY_COUNT) out.add(day)
    if (dayOfWeek(day) === FRIDAY && weeklies < WEEKLY_COUNT) {
      out.add(day)
      weeklies++
    }
  }
  const start = new Date(t)
  let monthlies = 0
  let quarterlies = 0
  for (let m = start.getUTCMonth(); monthlies < MONTHLY_COUNT || quarterlies < QUARTERLY_COUNT; m++) {
    const day = lastFridayOfMonth(start.getUTCFullYear(), m)
    if (day < firstDay) continue
    if (monthlies < MONTHLY_COUNT) {
      out.add(day)
      monthlies++
    }
    // months 2, 5, 8, 11 (+12k): Mar, Jun, Sep, Dec
    if (m % 3 === 2) {
      if (quarterlies < QUARTERLY_COUNT) out.add(day)
      quarterlies++
    }
  }
  return [...out].sort((a, b) => a - b).map((day) => day * DAY_MS + EXPIRY_OFFSET_MS)
}

/** strike grid of one expiry around `spot`, ascending */
export function strikeGrid(currency: OptionCurrency, kind: ExpiryKind, spot: number): number[] {
  const layout = LAYOUTS[kind]
  const ladder = STEP_LADDER[currency]
  const scale = BAND_SCALE[currency]
  const strikes = new Set<number>()
  for (const band of layout.bands) {
    const step = ladder[band.step]!
    const lo = Math.max(spot * layout.low, spot * (1 - scale * band.maxDistance))
    const hi = Math.min(spot * layout.high, spot * (1 + scale * band.maxDistance))
    // coarser steps are multiples of finer ones, so overlapping bands only repeat strikes (the set drops them)
    for (let k = Math.max(step, Math.ceil(lo / step) * step); k <= hi; k += step) strikes.add(k)
  }
  return [...strikes].sort((a, b) => a - b)
}

/** every instrument alive at `t`, strikes laid out around `refSpot` (the day's opening spot) */
export function buildChain(currency: OptionCurrency, t: number, refSpot: number): OptionInstrument[] {
  const out: OptionInstrument[] = []
  for (const expiryMs of liveExpiries(t)) {
    const kind = expiryKind(expiryMs)
    const prefix = `${currency}-${formatExpiryCode(expiryMs)}-`
    for (const strike of strikeGrid(currency, kind, refSpot)) {
      out.push({ name: `${prefix}${strike}-C`, expiryMs, kind, strike, isCall: true })
      out.push({ name: `${prefix}${strike}-P`, expiryMs, kind, strike, isCall: false })
    }
  }
  return out
}
