/**
 * @module
 * In-memory state behind the hot read endpoints (DESIGN.md "hot reads"), updated as live records arrive
 * and rebuilt from the store at start and after a backfill. Records reach it from sources (live windows)
 * and from admin ingest, so a posted record shows in the endpoints at once.
 */
import type { Store } from '../store/store.js'
import type { NormalizedRecord, OptionQuoteRecord } from '../records/types.js'
import { OptionsBook } from './options-book.js'
import { ScreenerBook } from './screener-book.js'

/** How far back a rebuild looks for the latest quote of each instrument, hours. */
const OPTIONS_LOOKBACK_HOURS = 24
/** Hourly history the screener needs: 48 h for the volume comparison plus the current hour. */
const SCREENER_HOURS = 49

export class LiveState {
  readonly options = new OptionsBook()
  readonly screener = new ScreenerBook()
  /** epoch ms of the last rebuild from the store */
  rebuiltAt = 0

  constructor(private readonly store: Store) {}

  apply(records: readonly NormalizedRecord[]): void {
    const quotes: OptionQuoteRecord[] = []
    for (const r of records) if (r.kind === 'option_quote') quotes.push(r)
    if (quotes.length) this.options.apply(quotes)
    this.screener.apply(records)
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
    await this.rebuildScreener()
    this.rebuiltAt = Date.now()
  }

  private async rebuildScreener(): Promise<void> {
    type Hourly = { exchange: string; symbol: string; base: string; h: number; v: number; oi: number | null }
    const hourly = await this.store.query<Hourly>(
      `SELECT exchange, symbol, base, h, sum(v) AS v, max(oi) AS oi FROM (
         SELECT exchange, symbol, base, intDiv(toUnixTimestamp(bucket), 3600) AS h, sum(volume_quote) AS v,
                CAST(NULL AS Nullable(Float64)) AS oi
         FROM candles_1h WHERE bucket >= now() - INTERVAL {hours:UInt32} HOUR GROUP BY exchange, symbol, base, bucket
         UNION ALL
         SELECT exchange, symbol, base, intDiv(toUnixTimestamp(bucket), 3600) AS h, 0 AS v, argMaxMerge(oi_usd_last) AS oi
         FROM open_interest_1h WHERE bucket >= now() - INTERVAL {hours:UInt32} HOUR GROUP BY exchange, symbol, base, bucket
       ) GROUP BY exchange, symbol, base, h`,
      { hours: SCREENER_HOURS }
    )
    // newest reading per market; its time is aliased last_ms (an alias named ts would shadow the column)
    type Latest = Omit<NormalizedRecord, 'ts'> & { last_ms: number }
    const latest = await this.store.query<Latest>(
      `SELECT 'funding' AS kind, toUnixTimestamp64Milli(max(ts)) AS last_ms, exchange, symbol, base,
              argMax(funding_rate, ts) AS funding_rate, argMax(interval_hours, ts) AS interval_hours
       FROM funding WHERE ts >= now64(3) - INTERVAL 2 DAY GROUP BY exchange, symbol, base`
    )
    const lsr = await this.store.query<Latest>(
      `SELECT 'long_short' AS kind, toUnixTimestamp64Milli(max(ts)) AS last_ms, exchange, symbol, base,
              argMax(long_short_ratio, ts) AS long_short_ratio
       FROM long_short WHERE ts >= now64(3) - INTERVAL 2 DAY GROUP BY exchange, symbol, base`
    )
    const oi = await this.store.query<Latest>(
      `SELECT 'open_interest' AS kind, toUnixTimestamp64Milli(max(ts)) AS last_ms, exchange, symbol, base,
              argMax(oi_base, ts) AS oi_base, argMax(oi_usd, ts) AS oi_usd
       FROM open_interest WHERE ts >= now64(3) - INTERVAL 2 DAY GROUP BY exchange, symbol, base`
    )
    this.screener.clear()
    for (const r of hourly) this.screener.loadHour(r.exchange, r.symbol, r.base, r.h, r.oi, r.v)
    this.screener.loadLatest(
      [...latest, ...lsr, ...oi].map(({ last_ms, ...r }) => ({ ...r, ts: last_ms }) as NormalizedRecord)
    )
  }
}
