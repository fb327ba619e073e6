/**
 * @module
 * The options chain of a currency at a moment T: the one definition behind the live chain
 * (engine/live/options-book.ts), `GET /v1/options/chain?as_of=T` and every point of `/v1/options/history`
 * (ingest/derive/options-metrics.ts).
 *
 * A snapshot is one whole-chain poll of a currency: its quotes carry one snapshot time `ts` (Deribit book
 * summary rows of one answer are stamped with the answer's newest creation time on the way in; the demo
 * market quotes every listed instrument at one time). The instruments listed at T are those of the newest
 * snapshot with `ts <= T` no older than CHAIN_LOOKBACK_MS, minus those expired by T (expiry <= T); the chain at
 * T is the summary (chain-summary.ts) of their quotes in that snapshot. An instrument missing from the newest
 * snapshot is delisted, whatever older snapshots held. Quotes sharing a snapshot time add up, so a snapshot
 * split across pipeline batches is whole once all its batches arrived.
 */
import { summarizeChain } from './chain-summary.js'
import type { ChainSummary, OptionsCurrency } from './chain-types.js'
import type { OptionQuoteRecord } from '../records/types.js'

/**
 * A snapshot older than this at T is not the chain at T (the feed stopped): the chain is empty. 24 h: the
 * demo market's backfill quotes the chain hourly, the live feeds every 30 to 60 s.
 */
export const CHAIN_LOOKBACK_MS = 24 * 3_600_000

/** `BTC` of `BTC-5JAN25-100000-C`; `BTC_USDC` of a linear option (not a chain this service summarizes). */
export function quoteCurrency(instrument: string): string {
  return instrument.slice(0, instrument.indexOf('-'))
}

/** Epoch ms of the newest snapshot of `currency` among `quotes` that is the chain at `atMs`; null when none. */
export function snapshotTimeAt(
  quotes: readonly OptionQuoteRecord[],
  currency: OptionsCurrency,
  atMs: number
): number | null {
  let ts: number | null = null
  for (const q of quotes) {
    if (q.ts <= atMs && q.ts > atMs - CHAIN_LOOKBACK_MS && (ts === null || q.ts > ts)) {
      if (quoteCurrency(q.instrument) === currency) ts = q.ts
    }
  }
  return ts
}

/** The chain of `currency` at `atMs` (epoch ms) from any set of stored quotes: the definition above. */
export function chainAt(quotes: readonly OptionQuoteRecord[], currency: OptionsCurrency, atMs: number): ChainSummary {
  const ts = snapshotTimeAt(quotes, currency, atMs)
  const snapshot = ts === null ? [] : quotes.filter((q) => q.ts === ts && quoteCurrency(q.instrument) === currency)
  return summarizeSnapshot(snapshot, currency, atMs)
}

/**
 * The chain at `atMs` from the quotes of one snapshot (all of one `ts`, at or before `atMs`): what the live
 * book and the history derivation hold. Empty when the snapshot is older than CHAIN_LOOKBACK_MS.
 */
export function summarizeSnapshot(
  snapshot: readonly OptionQuoteRecord[],
  currency: OptionsCurrency,
  atMs: number
): ChainSummary {
  const first = snapshot[0]
  const stale = first !== undefined && first.ts <= atMs - CHAIN_LOOKBACK_MS
  return summarizeChain(stale ? [] : snapshot, atMs, currency)
}

/**
 * The incremental form of the rule, for a consumer that sees quotes as they arrive: a quote of a newer
 * snapshot time replaces the chain, one of the same time adds to it (a later quote of an instrument replaces
 * its earlier one), an older one is ignored (a late arrival: the chain at its time is a past answer).
 */
export class SnapshotFold {
  /** snapshot time, epoch ms; -Infinity before the first quote */
  ts = -Infinity
  readonly quotes = new Map<string, OptionQuoteRecord>()

  /** Folds one quote in; true when the snapshot changed. */
  add(q: OptionQuoteRecord): boolean {
    if (q.ts < this.ts) return false
    if (q.ts > this.ts) {
      this.quotes.clear()
      this.ts = q.ts
    }
    this.quotes.set(q.instrument, q)
    return true
  }

  clear(): void {
    this.quotes.clear()
    this.ts = -Infinity
  }
}
