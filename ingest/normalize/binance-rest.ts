/**
 * @module
 * Binance USD-M REST readings → records (ingest/normalize/binance.ts dispatches by path):
 * `/fapi/v1/openInterest` → open_interest (`openInterest` in contracts = base coin; USD at the latest mark
 * price, so a reading that arrives before any mark price waits for the first one) and
 * `/futures/data/globalLongShortAccountRatio` → long_short (each 5-minute reading once).
 */
import type { NormalizedRecord } from '../../engine/records/types.js'
import { num, optional } from './binance-fields.js'
import type { BinanceMarketBook, Market } from './binance-market-book.js'
import type { Outcome } from './normalizer.js'

const EXCHANGE = 'binance'

/** The open_interest record of `contracts` at `ts`, valued at the market's mark price. */
export function emitOi(m: Market, ts: number, contracts: number, out: NormalizedRecord[]): void {
  m.pendingOi = null
  const k = m.meta.multiplier
  out.push({
    kind: 'open_interest',
    ts,
    exchange: EXCHANGE,
    symbol: m.meta.symbol,
    base: m.meta.base,
    oi_base: contracts * k,
    oi_usd: contracts * m.mark
  })
}

/** One open-interest reading; held in `pendingOi` until the market has a mark price. */
export function openInterest(
  book: BinanceMarketBook,
  d: { symbol?: unknown; openInterest?: unknown; time?: unknown },
  out: NormalizedRecord[]
): Outcome {
  const contracts = num(d.openInterest)
  if (typeof d.symbol !== 'string' || typeof d.time !== 'number' || !(contracts >= 0)) return 'malformed'
  const m = book.market(d.symbol)
  if (m === null) return 'unknown'
  if (Number.isNaN(m.mark)) m.pendingOi = { ts: d.time, contracts }
  else emitOi(m, d.time, contracts, out)
  return 'ok'
}

/** A page of long/short account ratios; readings already taken are skipped. */
export function longShort(book: BinanceMarketBook, body: unknown, out: NormalizedRecord[]): Outcome {
  if (!Array.isArray(body)) return 'malformed'
  let outcome: Outcome = 'ok'
  let delivery = 0
  type Row = {
    symbol?: unknown
    longShortRatio?: unknown
    longAccount?: unknown
    shortAccount?: unknown
    timestamp?: unknown
  }
  for (const row of body as Row[]) {
    const ts = num(row?.timestamp)
    const ratio = num(row?.longShortRatio)
    // the account shares are optional: absent or "0" gives null, a share above 1 is no share
    const long = optional(row?.longAccount)
    const short = optional(row?.shortAccount)
    const shares = long !== undefined && short !== undefined && (long ?? 0) <= 1 && (short ?? 0) <= 1
    if (typeof row?.symbol !== 'string' || !Number.isSafeInteger(ts) || ts <= 0 || !(ratio >= 0) || !shares) {
      outcome = 'malformed'
      continue
    }
    const m = book.market(row.symbol)
    if (m === null) {
      delivery++
      continue
    }
    if (ts <= m.lastLongShortTs) continue // the same 5-minute reading polled again
    m.lastLongShortTs = ts
    out.push({
      kind: 'long_short',
      ts,
      exchange: EXCHANGE,
      symbol: row.symbol,
      base: m.meta.base,
      long_short_ratio: ratio,
      long_account: long,
      short_account: short
    })
  }
  return outcome === 'ok' && delivery > 0 && delivery === body.length ? 'unknown' : outcome
}
