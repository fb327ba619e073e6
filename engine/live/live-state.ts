/**
 * @module
 * In-memory state behind the hot read endpoints (DESIGN.md "hot reads"), updated as live records arrive
 * and rebuilt from the store at start and after a backfill. Records reach it from sources (live windows)
 * and from admin ingest, so a posted record shows in the endpoints at once.
 */
import type { Store } from '../store/store.js'
import type { NormalizedRecord, OnchainMetricRecord, OptionQuoteRecord, WhaleTransferRecord } from '../records/types.js'
import { OptionsBook } from './options-book.js'
import { ScreenerBook } from './screener-book.js'
import { OnchainBook } from './onchain-book.js'
import { WhaleWindow, WHALE_WINDOW_MS } from './whale-window.js'
import { FundingHistory } from './confirm-inputs.js'

/** How far back a rebuild looks for the latest quote of each instrument, hours. */
const OPTIONS_LOOKBACK_HOURS = 24
/** Hourly history the screener needs: 48 h for the volume comparison plus the current hour. */
const SCREENER_HOURS = 49

/** Sees every applied batch (after the books took it) and every rebuild. */
export interface LiveObserver {
  apply(records: readonly NormalizedRecord[]): void
  rebuilt(): Promise<void>
}

export class LiveState {
  readonly options = new OptionsBook()
  readonly screener = new ScreenerBook()
  readonly onchain = new OnchainBook()
  readonly whales = new WhaleWindow()
  readonly fundingHistory: FundingHistory
  /** epoch ms of the last rebuild from the store */
  rebuiltAt = 0
  /** bumped on every applied batch and rebuild: caches of derived answers compare it */
  version = 0

  private readonly observers: LiveObserver[] = []

  constructor(readonly store: Store) {
    this.fundingHistory = new FundingHistory(store)
  }

  /** Registers an observer of applied records and rebuilds (the push stream). */
  observe(o: LiveObserver): void {
    this.observers.push(o)
  }

  apply(records: readonly NormalizedRecord[]): void {
    this.version++
    const quotes: OptionQuoteRecord[] = []
    for (const r of records) if (r.kind === 'option_quote') quotes.push(r)
    if (quotes.length) this.options.apply(quotes)
    this.screener.apply(records)
    const onchain: OnchainMetricRecord[] = []
    const whales: WhaleTransferRecord[] = []
    for (const r of records) {
      if (r.kind === 'onchain_metric') onchain.push(r)
      else if (r.kind === 'whale_transfer') whales.push(r)
    }
    if (onchain.length) this.onchain.apply(onchain)
    if (whales.length) this.whales.apply(whales)
    // observers see the records after the books, so what they derive reflects them
    for (const o of this.observers) o.apply(records)
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
    await this.rebuildOnchainAndWhales()
    this.fundingHistory.clear()
    this.rebuiltAt = Date.now()
    this.version++
    for (const o of this.observers) await o.rebuilt()
  }

  private async rebuildOnchainAndWhales(): Promise<void> {
    const onchain = await this.store.query<OnchainMetricRecord>(
      `SELECT 'onchain_metric' AS kind, toUnixTimestamp64Milli(ts) AS ts, asset, metric, value FROM onchain_metrics
       WHERE ts >= now64(3) - INTERVAL 48 HOUR AND metric IN ('exchange_netflow_usd', 'mvrv') ORDER BY ts`
    )
    this.onchain.clear()
    this.onchain.apply(onchain)
    const whales = await this.store.query<WhaleTransferRecord>(
      `SELECT 'whale_transfer' AS kind, toUnixTimestamp64Milli(ts) AS ts, chain, tx_hash, log_index, block_number,
              address, counterparty, toString(event_type) AS event_type, token, amount, usd_value
       FROM whale_transfers WHERE ts >= now64(3) - toIntervalMillisecond({window:UInt64}) ORDER BY ts`,
      { window: WHALE_WINDOW_MS }
    )
    this.whales.reset(whales)
  }

  private async rebuildScreener(): Promise<void> {
    type Hourly = {
      exchange: string
      symbol: string
      base: string
      h: number
      v: number
      oi: number | null
      close: number | null
    }
    const hourly = await this.store.query<Hourly>(
      `SELECT exchange, symbol, base, h, sum(v) AS v, max(oi) AS oi, max(c) AS close FROM (
         SELECT exchange, symbol, base, intDiv(toUnixTimestamp(bucket), 3600) AS h, sum(volume_quote) AS v,
                CAST(NULL AS Nullable(Float64)) AS oi, CAST(argMaxMerge(close) AS Nullable(Float64)) AS c
         FROM candles_1h WHERE bucket >= now() - INTERVAL {hours:UInt32} HOUR GROUP BY exchange, symbol, base, bucket
         UNION ALL
         SELECT exchange, symbol, base, intDiv(toUnixTimestamp(bucket), 3600) AS h, 0 AS v,
                CAST(argMaxMerge(oi_usd_last) AS Nullable(Float64)) AS oi, CAST(NULL AS Nullable(Float64)) AS c
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
    for (const r of hourly) this.screener.loadHour(r.exchange, r.symbol, r.base, r.h, r.oi, r.v, r.close)
    this.screener.loadLatest(
      [...latest, ...lsr, ...oi].map(({ last_ms, ...r }) => ({ ...r, ts: last_ms }) as NormalizedRecord)
    )
  }
}
