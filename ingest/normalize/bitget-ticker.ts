/**
 * @module
 * Bitget v3 `ticker` state of one USDT perpetual. The topic sends a `snapshot` on subscribe, then
 * `update`s; an update is merged field by field (a field it leaves out keeps its last value), a snapshot
 * replaces the state. Values are in Bitget's units (per contract unit: per 1000 coins for a `1000...`
 * market); the normalizer converts them. An empty string means "no value" (a market without funding yet,
 * `nextFundingTime` "" or "0" between settlement schedules) and is kept as NaN.
 */

/** The ticker fields the adapter uses, as numbers; NaN while unknown. */
export interface BitgetTicker {
  /** mark price per contract unit */
  markPrice: number
  /** index price per contract unit */
  indexPrice: number
  /** decimal fraction per funding interval */
  fundingRate: number
  /** next settlement, epoch ms; NaN when the venue sends "" or "0" */
  nextFundingTime: number
  /** open interest in contract units (coins; 1000s of coins for `1000SATSUSDT`) */
  openInterest: number
}

const FIELDS = ['markPrice', 'indexPrice', 'fundingRate', 'nextFundingTime', 'openInterest'] as const

export function emptyBitgetTicker(): BitgetTicker {
  return {
    markPrice: Number.NaN,
    indexPrice: Number.NaN,
    fundingRate: Number.NaN,
    nextFundingTime: Number.NaN,
    openInterest: Number.NaN
  }
}

/**
 * Applies one ticker row to `state`: `snapshot` replaces, an update merges. Returns false (and changes
 * nothing) when a present field is not a number or number string.
 */
export function applyBitgetTicker(state: BitgetTicker, row: Record<string, unknown>, snapshot: boolean): boolean {
  const parsed: number[] = []
  for (const f of FIELDS) {
    const v = row[f]
    if (v === undefined || v === null || v === '') parsed.push(Number.NaN)
    else if (typeof v === 'string' || typeof v === 'number') {
      const n = Number(v)
      if (!Number.isFinite(n)) return false
      // "0": no next settlement scheduled (the venue's placeholder), not the epoch
      parsed.push(f === 'nextFundingTime' && n <= 0 ? Number.NaN : n)
    } else return false
  }
  for (let i = 0; i < FIELDS.length; i++) {
    const f = FIELDS[i]!
    if (snapshot || row[f] !== undefined) state[f] = parsed[i]!
  }
  return true
}
