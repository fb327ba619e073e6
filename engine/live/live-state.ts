/**
 * @module
 * In-memory state behind the hot read endpoints (DESIGN.md "hot reads"), updated as live records arrive
 * and rebuilt from the store at start and after a backfill. Records reach it from sources (live windows)
 * and from admin ingest, so a posted record shows in the endpoints at once.
 */
import type { Store } from '../store/store.js'
import type { NormalizedRecord, OptionQuoteRecord } from '../records/types.js'
import { OptionsBook } from './options-book.js'

/** How far back a rebuild looks for the latest quote of each instrument, hours. */
const OPTIONS_LOOKBACK_HOURS = 24

export class LiveState {
  readonly options = new OptionsBook()
  /** epoch ms of the last rebuild from the store */
  rebuiltAt = 0

  constructor(private readonly store: Store) {}

  apply(records: readonly NormalizedRecord[]): void {
    const quotes: OptionQuoteRecord[] = []
    for (const r of records) if (r.kind === 'option_quote') quotes.push(r)
    if (quotes.length) this.options.apply(quotes)
  }

  /** Reloads every part of the state from the store (at start, after backfills and bulk loads). */
  async rebuild(): Promise<void> {
    // the newest quote's time is aliased last_ms: an alias named ts would shadow the column in WHERE
    const rows = await this.store.query<Omit<OptionQuoteRecord, 'ts'> & { last_ms: number }>(
      `SELECT 'option_quote' AS kind, toUnixTimestamp64Milli(max(ts)) AS last_ms, 'deribit' AS exchange, instrument,
              argMax(underlying_price, ts) AS underlying_price, argMax(mark_price, ts) AS mark_price,
              argMax(mark_iv, ts) AS mark_iv, argMax(open_interest, ts) AS open_interest,
              argMax(volume_24h, ts) AS volume_24h, argMax(bid, ts) AS bid, argMax(ask, ts) AS ask
       FROM option_quotes
       WHERE ts >= now64(3) - INTERVAL {hours:UInt32} HOUR
       GROUP BY instrument`,
      { hours: OPTIONS_LOOKBACK_HOURS }
    )
    this.options.reset(rows.map(({ last_ms, ...q }) => ({ ...q, ts: last_ms })))
    this.rebuiltAt = Date.now()
  }
}
