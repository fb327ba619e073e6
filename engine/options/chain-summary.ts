/**
 * @module
 * Options chain snapshot of one currency from the latest option quotes: totals, put/call ratios, OI by strike,
 * per-expiry summary and max pain (service spec, "Options chain snapshot"), plus the compact metrics row.
 * Input rules: only instruments of exactly that currency (`BTC` excludes `BTC_USDC`), only unexpired ones
 * (expiry > nowMs), and only the latest quote per instrument by `ts` (on equal `ts`, the later one in the input).
 * The answer does not depend on the order of the input otherwise: quotes are summed in instrument-name order
 * (floating-point sums depend on their order, and the live book, the store loader and the history derivation
 * hold the same quotes in different orders), and underlying_price is taken from the newest quote, ties going to
 * the nearest expiry, then the smallest name. Which quotes make "the chain at T" is chain-at.ts's rule.
 * One pass to keep the latest quotes, one sort, one to aggregate, one max pain per expiry: O(n log n) overall.
 * Sums are rounded as they leave (decimal-sums.ts): OI and volume to the decimals of the most precise amount
 * summed (0.1 for Deribit BTC options), payouts to cents, so the JSON shows `1718.7`, not `1718.6999999999998`.
 * Rounding happens only here, on the way out: max pain and the put/call ratios come from the unrounded amounts
 * and are not rounded; total_contracts rounds the rounded call + put sum (2.5 → 3 even when the raw sum is
 * 2.4999999999999996).
 */
import type { OptionQuoteRecord } from '../records/types.js'
import type {
  ChainMetrics,
  ChainSummary,
  ExpirySummary,
  MaxPainEntry,
  OptionsCurrency,
  StrikeRow
} from './chain-types.js'
import { USD_DECIMALS, roundTo, widenDecimals } from './decimal-sums.js'
import { parseExpiryCode, parseInstrument, type ParsedInstrument } from './instrument.js'
import { maxPain, type StrikeOi } from './max-pain.js'

export type {
  ChainMetrics,
  ChainSummary,
  ExpirySummary,
  MaxPainEntry,
  OptionsCurrency,
  StrikeRow
} from './chain-types.js'

/** oi_by_strike keeps strikes from 0.5× to 2.0× the underlying price, both ends included (service spec) */
const STRIKE_BAND_LOW = 0.5
const STRIKE_BAND_HIGH = 2.0

interface LiveQuote {
  readonly quote: OptionQuoteRecord
  readonly parsed: ParsedInstrument
}

/** mutable accumulators, local to one summarizeChain call */
interface ExpiryAcc {
  readonly expiryMs: number
  callOi: number
  putOi: number
  readonly rows: StrikeOi[]
}
interface StrikeAcc {
  callOi: number
  putOi: number
}

/** OI and volume are counts of coins: a NaN or negative reading counts as 0 rather than poisoning every total */
function amount(x: number): number {
  return x > 0 ? x : 0
}

/** put/call ratio; null when there is nothing to divide by */
function ratio(puts: number, calls: number): number | null {
  return calls > 0 ? puts / calls : null
}

/** The latest quote of every unexpired instrument of `currency`. */
function liveQuotes(quotes: readonly OptionQuoteRecord[], nowMs: number, currency: OptionsCurrency): LiveQuote[] {
  // cheap prefix test before any parsing; `BTC_USDC-…` fails it because the character after `BTC` is `_`
  const prefix = `${currency}-`
  const latest = new Map<string, OptionQuoteRecord>()
  for (const quote of quotes) {
    if (!quote.instrument.startsWith(prefix)) continue
    const seen = latest.get(quote.instrument)
    if (seen === undefined || quote.ts >= seen.ts) latest.set(quote.instrument, quote)
  }
  const live: LiveQuote[] = []
  for (const quote of latest.values()) {
    const parsed = parseInstrument(quote.instrument)
    if (parsed === null || parsed.currency !== currency || parsed.expiryMs <= nowMs) continue
    live.push({ quote, parsed })
  }
  return live.sort((a, b) => (a.quote.instrument < b.quote.instrument ? -1 : 1))
}

/** The quote whose underlying_price the snapshot shows: newest ts, then nearest expiry, then smallest name. */
function newestQuote(live: readonly LiveQuote[]): OptionQuoteRecord | null {
  let best: LiveQuote | null = null
  for (const q of live) {
    // `live` is sorted by name: on a full tie the first (smallest name) stays
    if (
      best === null ||
      q.quote.ts > best.quote.ts ||
      (q.quote.ts === best.quote.ts && q.parsed.expiryMs < best.parsed.expiryMs)
    )
      best = q
  }
  return best === null ? null : best.quote
}

/** Options chain snapshot of `currency` at `nowMs` (epoch ms). Well-formed (zeros, empty, nulls) with no quotes. */
export function summarizeChain(
  quotes: readonly OptionQuoteRecord[],
  nowMs: number,
  currency: OptionsCurrency
): ChainSummary {
  const live = liveQuotes(quotes, nowMs, currency)

  const newest = newestQuote(live)
  const underlying = newest === null ? 0 : newest.underlying_price

  let callOi = 0
  let putOi = 0
  let callVolume = 0
  let putVolume = 0
  // decimals of the most precise OI and volume amounts: their sums are rounded to these
  let oiDecimals = 0
  let volumeDecimals = 0
  const byExpiry = new Map<string, ExpiryAcc>()
  const byStrike = new Map<number, StrikeAcc>()
  for (const { quote, parsed } of live) {
    const oi = amount(quote.open_interest)
    const volume = amount(quote.volume_24h)
    oiDecimals = widenDecimals(oiDecimals, oi)
    volumeDecimals = widenDecimals(volumeDecimals, volume)
    const isCall = parsed.type === 'call'
    if (isCall) {
      callOi += oi
      callVolume += volume
    } else {
      putOi += oi
      putVolume += volume
    }

    let expiry = byExpiry.get(parsed.expiryCode)
    if (expiry === undefined) {
      expiry = { expiryMs: parsed.expiryMs, callOi: 0, putOi: 0, rows: [] }
      byExpiry.set(parsed.expiryCode, expiry)
    }
    if (isCall) expiry.callOi += oi
    else expiry.putOi += oi
    expiry.rows.push({ strike: parsed.strike, callOi: isCall ? oi : 0, putOi: isCall ? 0 : oi })

    let strike = byStrike.get(parsed.strike)
    if (strike === undefined) {
      strike = { callOi: 0, putOi: 0 }
      byStrike.set(parsed.strike, strike)
    }
    if (isCall) strike.callOi += oi
    else strike.putOi += oi
  }

  const oi = (x: number): number => roundTo(x, oiDecimals)
  const totalCallOi = oi(callOi)
  const totalPutOi = oi(putOi)
  const totalCallVolume = roundTo(callVolume, volumeDecimals)
  const totalPutVolume = roundTo(putVolume, volumeDecimals)
  const { expiry_summary, max_pain } = summarizeExpiries(byExpiry, oi)
  return {
    currency,
    underlying_price: underlying,
    total_call_oi: totalCallOi,
    total_put_oi: totalPutOi,
    total_call_volume: totalCallVolume,
    total_put_volume: totalPutVolume,
    pcr_oi: ratio(putOi, callOi),
    pcr_volume: ratio(putVolume, callVolume),
    oi_by_strike: strikeBand(byStrike, underlying, oi),
    expiry_summary,
    max_pain,
    updated: newest === null ? 0 : Math.floor(newest.ts / 1000)
  }
}

/** strike rows inside the band around `underlying`, ascending, OI sums rounded by `oi`; empty without a price */
function strikeBand(
  byStrike: ReadonlyMap<number, StrikeAcc>,
  underlying: number,
  oi: (sum: number) => number
): StrikeRow[] {
  // multiplying by 0.5 and 2 is exact in binary floating point, so the edges compare exactly
  const low = STRIKE_BAND_LOW * underlying
  const high = STRIKE_BAND_HIGH * underlying
  const rows: StrikeRow[] = []
  for (const [strike, acc] of byStrike) {
    if (strike >= low && strike <= high) rows.push({ strike, call_oi: oi(acc.callOi), put_oi: oi(acc.putOi) })
  }
  return rows.sort((a, b) => a.strike - b.strike)
}

/** expiry_summary and max_pain keyed by expiry code, keys inserted in expiry order; OI sums rounded by `oi` */
function summarizeExpiries(
  byExpiry: ReadonlyMap<string, ExpiryAcc>,
  oi: (sum: number) => number
): {
  expiry_summary: Record<string, ExpirySummary>
  max_pain: Record<string, MaxPainEntry>
} {
  const expiry_summary: Record<string, ExpirySummary> = {}
  const max_pain: Record<string, MaxPainEntry> = {}
  const ordered = [...byExpiry].sort(([, a], [, b]) => a.expiryMs - b.expiryMs)
  for (const [code, acc] of ordered) {
    // every expiry in the map has at least one row, so maxPain is never null here
    const pain = maxPain(acc.rows)!
    const callOi = oi(acc.callOi)
    const putOi = oi(acc.putOi)
    expiry_summary[code] = {
      call_oi: callOi,
      put_oi: putOi,
      pcr: ratio(acc.putOi, acc.callOi),
      max_pain: pain.strike,
      total_contracts: Math.round(callOi + putOi)
    }
    max_pain[code] = {
      strike: pain.strike,
      total_pain_quote: roundTo(pain.payout, USD_DECIMALS),
      quote_currency: 'USD'
    }
  }
  return { expiry_summary, max_pain }
}

/** Compact row for the per-minute metrics snapshot; "nearest" is the earliest expiry in the summary. */
export function chainMetrics(summary: ChainSummary): ChainMetrics {
  let nearest: string | null = null
  let nearestMs = Infinity
  for (const code of Object.keys(summary.expiry_summary)) {
    const ms = parseExpiryCode(code)
    if (ms !== null && ms < nearestMs) {
      nearest = code
      nearestMs = ms
    }
  }
  return {
    total_call_oi: summary.total_call_oi,
    total_put_oi: summary.total_put_oi,
    pcr_oi: summary.pcr_oi,
    pcr_volume: summary.pcr_volume,
    max_pain_nearest: nearest === null ? null : (summary.expiry_summary[nearest]?.max_pain ?? null),
    nearest_expiry: nearest
  }
}
