/**
 * @module
 * Bybit `tickers.<symbol>` state of one linear market. The topic sends a `snapshot` (every field) on
 * subscribe, then `delta`s about every 100 ms that carry only what changed: "if a response param is not
 * found in the message, then its value has not changed". So a snapshot replaces the state and a delta is
 * merged into it; a field missing from a delta keeps its last value (open interest stays what the snapshot
 * said while deltas only move the mark price). Values stay in Bybit's units here (per contract unit, e.g.
 * per 1000 PEPE); the normalizer converts them. Deltas before any snapshot (a replay of a later hourly
 * file) fill the state field by field; records wait until the fields they need are known.
 */

/** The ticker fields the adapter uses, as numbers; NaN while unknown. */
export interface TickerState {
  /** mark price per contract unit */
  markPrice: number
  /** index price per contract unit */
  indexPrice: number
  /** decimal fraction per funding interval */
  fundingRate: number
  /** epoch ms */
  nextFundingTime: number
  /** open interest in contract units (base coin for linear; 1000s of coins for `1000PEPEUSDT`) */
  openInterest: number
  /** open interest value, USD(T) */
  openInterestValue: number
  /** hours between settlements */
  fundingIntervalHour: number
}

const FIELDS = [
  'markPrice',
  'indexPrice',
  'fundingRate',
  'nextFundingTime',
  'openInterest',
  'openInterestValue',
  'fundingIntervalHour'
] as const

export function emptyTicker(): TickerState {
  return {
    markPrice: Number.NaN,
    indexPrice: Number.NaN,
    fundingRate: Number.NaN,
    nextFundingTime: Number.NaN,
    openInterest: Number.NaN,
    openInterestValue: Number.NaN,
    fundingIntervalHour: Number.NaN
  }
}

/**
 * Applies one tickers message body to `state`: `snapshot` replaces, `delta` merges. Returns false (and
 * changes nothing) when a present field is not a number string; an empty string or null means "no value"
 * (a market without funding) and is kept as NaN.
 */
export function applyTicker(state: TickerState, data: Record<string, unknown>, snapshot: boolean): boolean {
  const parsed: number[] = []
  for (const f of FIELDS) {
    const v = data[f]
    if (v === undefined || v === null || v === '') parsed.push(Number.NaN)
    else if (typeof v === 'string' || typeof v === 'number') {
      const n = Number(v)
      if (!Number.isFinite(n)) return false
      parsed.push(n)
    } else return false
  }
  for (let i = 0; i < FIELDS.length; i++) {
    const f = FIELDS[i]!
    if (snapshot || data[f] !== undefined) state[f] = parsed[i]!
  }
  return true
}
