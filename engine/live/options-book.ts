/**
 * @module
 * The live options chains (BTC, ETH): per currency the quotes of the newest chain snapshot (the rule of
 * engine/options/chain-at.ts, folded in as quotes arrive), and the chain summary cached per currency, as an
 * object (the push stream's `options:` channels; shared, never mutated) and as JSON bytes
 * (`GET /v1/options/chain`). The summary is rebuilt only when the snapshot changed, an expiry passed or the
 * snapshot grew older than CHAIN_LOOKBACK_MS, so a request is a map lookup.
 */
import { CHAIN_LOOKBACK_MS, SnapshotFold, quoteCurrency, summarizeSnapshot } from '../options/chain-at.js'
import type { ChainSummary, OptionsCurrency } from '../options/chain-types.js'
import { parseInstrument } from '../options/instrument.js'
import type { OptionQuoteRecord } from '../records/types.js'

export const OPTIONS_CURRENCIES: readonly OptionsCurrency[] = ['BTC', 'ETH']

interface Book {
  readonly snapshot: SnapshotFold
  /** the cached summary (the push stream sends it); null when stale */
  chain: ChainSummary | null
  /** its JSON, UTF-8 encoded once (responses send these bytes as they are); null when stale */
  json: Buffer | null
  /** epoch ms from which the cached summary is stale: the earliest expiry, or the snapshot's lookback end */
  validUntil: number
}

export class OptionsBook {
  private readonly books = new Map<OptionsCurrency, Book>(
    OPTIONS_CURRENCIES.map((c) => [c, { snapshot: new SnapshotFold(), chain: null, json: null, validUntil: Infinity }])
  )

  /** Applies quotes (any currency; others are ignored): a newer snapshot replaces the chain, the same adds to it. */
  apply(quotes: readonly OptionQuoteRecord[]): void {
    for (const q of quotes) {
      const book = this.books.get(quoteCurrency(q.instrument) as OptionsCurrency)
      if (book === undefined || !book.snapshot.add(q)) continue
      book.chain = null
      book.json = null
    }
  }

  /** Replaces everything (rebuild from the store: the quotes of each currency's chain snapshot). */
  reset(quotes: readonly OptionQuoteRecord[]): void {
    for (const book of this.books.values()) {
      book.snapshot.clear()
      book.chain = null
      book.json = null
    }
    this.apply(quotes)
  }

  /** Snapshot time of `currency`'s chain, epoch ms; null before any quote. */
  snapshotTs(currency: OptionsCurrency): number | null {
    const ts = this.books.get(currency)!.snapshot.ts
    return ts === -Infinity ? null : ts
  }

  /** The cached summary of `currency` at `now` (epoch ms); rebuilt when the snapshot changed or an expiry passed. */
  chain(currency: OptionsCurrency, now: number): ChainSummary {
    const book = this.books.get(currency)!
    if (book.chain !== null && now < book.validUntil) return book.chain
    const { quotes, ts } = book.snapshot
    let earliest = ts === -Infinity ? Infinity : ts + CHAIN_LOOKBACK_MS
    for (const [name, q] of quotes) {
      const expiry = parseInstrument(q.instrument)?.expiryMs ?? 0
      if (expiry <= now) quotes.delete(name)
      else if (expiry < earliest) earliest = expiry
    }
    book.chain = summarizeSnapshot([...quotes.values()], currency, now)
    book.json = null
    book.validUntil = earliest
    return book.chain
  }

  /** The same snapshot as JSON, as UTF-8 bytes, serialized once per snapshot. */
  chainJson(currency: OptionsCurrency, now: number): Buffer {
    const chain = this.chain(currency, now)
    const book = this.books.get(currency)!
    return (book.json ??= Buffer.from(JSON.stringify(chain)))
  }
}
