/**
 * @module
 * The live options chains (BTC, ETH): the latest quote per instrument, and the chain snapshot cached per
 * currency, as an object (the push stream's `options:` channels; shared, never mutated) and as JSON bytes
 * (`GET /v1/options/chain`). The snapshot is rebuilt only when a quote of that currency changed or an
 * expiry passed, so a request is a map lookup. Quotes of expired instruments are
 * dropped when the snapshot is rebuilt.
 */
import { summarizeChain } from '../options/chain-summary.js'
import type { ChainSummary, OptionsCurrency } from '../options/chain-types.js'
import { parseInstrument } from '../options/instrument.js'
import type { OptionQuoteRecord } from '../records/types.js'

export const OPTIONS_CURRENCIES: readonly OptionsCurrency[] = ['BTC', 'ETH']

interface Book {
  readonly quotes: Map<string, OptionQuoteRecord>
  /** the cached snapshot (the push stream sends it); null when stale */
  chain: ChainSummary | null
  /** its JSON, UTF-8 encoded once (responses send these bytes as they are); null when stale */
  json: Buffer | null
  /** epoch ms of the earliest expiry among the quotes: the snapshot must be rebuilt then */
  validUntil: number
}

export class OptionsBook {
  private readonly books = new Map<OptionsCurrency, Book>(
    OPTIONS_CURRENCIES.map((c) => [c, { quotes: new Map(), chain: null, json: null, validUntil: Infinity }])
  )

  /** Applies quotes (any currency; others are ignored). A newer quote replaces an older one per instrument. */
  apply(quotes: readonly OptionQuoteRecord[]): void {
    for (const q of quotes) {
      const currency = q.instrument.slice(0, q.instrument.indexOf('-')) as OptionsCurrency
      const book = this.books.get(currency)
      if (!book) continue
      const prev = book.quotes.get(q.instrument)
      if (prev && prev.ts > q.ts) continue
      book.quotes.set(q.instrument, q)
      book.chain = null
      book.json = null
    }
  }

  /** Replaces everything (rebuild from the store). */
  reset(quotes: readonly OptionQuoteRecord[]): void {
    for (const book of this.books.values()) {
      book.quotes.clear()
      book.chain = null
      book.json = null
    }
    this.apply(quotes)
  }

  /** The cached snapshot of `currency` at `now` (epoch ms); rebuilt when a quote changed or an expiry passed. */
  chain(currency: OptionsCurrency, now: number): ChainSummary {
    const book = this.books.get(currency)!
    if (book.chain !== null && now < book.validUntil) return book.chain
    let earliest = Infinity
    for (const [name, q] of book.quotes) {
      const expiry = parseInstrument(q.instrument)?.expiryMs ?? 0
      if (expiry <= now) book.quotes.delete(name)
      else if (expiry < earliest) earliest = expiry
    }
    book.chain = summarizeChain([...book.quotes.values()], now, currency)
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
