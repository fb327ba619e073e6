/**
 * @module
 * Per-market series of the snapshot metrics, one value per market and grid bucket with data
 * (docs/history-whales.md). Every source table holds aggregate states, merged here per bucket:
 * - close: last trade price of the bucket (`argMaxMerge(close)`, candles_1h / candles_1d);
 * - volume: quote volume of the bucket (`sum(volume_quote)`, USDT ≈ USD);
 * - funding8h: the bucket's mean funding rate scaled to an 8-hour interval (`avgMerge(rate_avg) × 8 /
 *   interval_hours`, funding_1h / funding_1d), so venues with 4 h and 8 h intervals compare;
 * - oi: open interest in USD at the last reading of the bucket (`argMaxMerge(oi_usd_last)`,
 *   open_interest_1h; there is no daily table).
 *
 * With `knownByMs` (docs/history.md "Known by"), only records received by then: the table outside the late
 * hours, the late hours recomputed from raw rows (known-sources.ts, funding-known.ts); the plain table when
 * no hour of the grid is late.
 */
import type { Store } from '../store/store.js'
import { fundingFrom } from './funding-known.js'
import { candleFrom, openInterestFrom, type KnownFrom } from './known-sources.js'
import type { Market } from './markets.js'
import { bucketSql } from './span.js'
import { seconds, type BucketGrid } from './snapshot-grid.js'
import { TIMEFRAMES } from './timeframes.js'

export type MarketSource = 'close' | 'volume' | 'funding8h' | 'oi'

interface SourceSql {
  readonly hourly: string
  readonly daily: string
  /** merge expression; its alias `v` names no column (ClickHouse alias trap) */
  readonly expr: string
}

const SOURCES: Readonly<Record<MarketSource, SourceSql>> = {
  close: { hourly: 'candles_1h', daily: 'candles_1d', expr: 'argMaxMerge(close)' },
  volume: { hourly: 'candles_1h', daily: 'candles_1d', expr: 'sum(volume_quote)' },
  funding8h: {
    hourly: 'funding_1h',
    daily: 'funding_1d',
    expr: 'avgMerge(rate_avg) * 8 / nullIf(max(interval_hours), 0)'
  },
  oi: { hourly: 'open_interest_1h', daily: 'open_interest_1h', expr: 'argMaxMerge(oi_usd_last)' }
}

/** Which markets a series covers: every market of `base`, or one market. */
export interface MarketScope {
  readonly base: string
  readonly market: Market | null
}

export interface MarketPoint {
  readonly exchange: string
  readonly symbol: string
  /** bucket start, epoch ms */
  readonly t: number
  readonly v: number | null
}

/** The source table answering a series at this grid. */
export function sourceTable(source: MarketSource, grid: BucketGrid): string {
  return grid.daily ? SOURCES[source].daily : SOURCES[source].hourly
}

/** What a series reads from: its table, or with `knownByMs` the table as known then. */
function knownSource(store: Store, source: MarketSource, grid: BucketGrid, knownByMs: number): Promise<KnownFrom> {
  switch (source) {
    case 'close':
    case 'volume':
      return candleFrom(store, TIMEFRAMES[grid.daily ? '1d' : '1h'], grid.from, grid.end, knownByMs)
    case 'funding8h':
      return fundingFrom(
        store,
        grid.daily ? 'funding_1d' : 'funding_1h',
        { fromMs: grid.from, toMs: grid.end },
        knownByMs
      )
    case 'oi':
      return openInterestFrom(store, grid.from, grid.end, knownByMs)
  }
}

/** Values of `source` per market and bucket in the grid, oldest first; with `knownByMs`, of the records received by then. */
export async function readMarketSeries(
  store: Store,
  source: MarketSource,
  scope: MarketScope,
  grid: BucketGrid,
  knownByMs?: number
): Promise<MarketPoint[]> {
  if (grid.starts.length === 0) return []
  const one = scope.market !== null
  const src =
    knownByMs === undefined
      ? { from: sourceTable(source, grid), params: {} }
      : await knownSource(store, source, grid, knownByMs)
  const rows = await store.query<MarketPoint>(
    `SELECT exchange, symbol, toUnixTimestamp(b) * 1000 AS t, ${SOURCES[source].expr} AS v
     FROM ${src.from}
     WHERE base = {base:String} ${one ? 'AND exchange = {exchange:String} AND symbol = {symbol:String}' : ''}
       AND bucket >= toDateTime({from:UInt32}, 'UTC') AND bucket < toDateTime({to:UInt32}, 'UTC')
     GROUP BY exchange, symbol, ${bucketSql('bucket', grid.interval)} AS b ORDER BY t, exchange, symbol`,
    {
      base: scope.base,
      ...(scope.market ? { exchange: scope.market.exchange, symbol: scope.market.symbol } : {}),
      from: seconds(grid.from),
      to: seconds(grid.end),
      ...src.params
    }
  )
  return rows.map((r) => ({ ...r, t: Number(r.t) }))
}
