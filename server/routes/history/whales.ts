/**
 * @module
 * `GET /v1/historical/whales` (an asset's whale flows per bucket) and `/v1/historical/whales/price-correlation`
 * (Pearson correlation of whale net flow with the next buckets' price returns, lags 0 to 24). Both serve
 * closed buckets only, in the historical envelope. Choices, units and limits: docs/history-whales.md.
 */
import { knownByMeta, resolveKnownBy } from '../../../engine/asof/known-by.js'
import { perpVenueIdList } from '../../../catalog/venues.js'
import { bucketReturns, lagCorrelations, MAX_LAG } from '../../../engine/history/correlation.js'
import { findGaps, historyEnvelope } from '../../../engine/history/envelope.js'
import type { Market } from '../../../engine/history/markets.js'
import { readMarketSeries, sourceTable } from '../../../engine/history/snapshot-series.js'
import { resolveGrid, type BucketGrid } from '../../../engine/history/snapshot-grid.js'
import { readExchangeFlows, readWhaleFlows, requireWhaleAsset } from '../../../engine/history/whale-flows.js'
import { netFlowSeries, whaleHistoryRecords, type WhaleMetric } from '../../../engine/history/whale-history.js'
import { ApiError } from '../../../engine/errors.js'
import { EXCHANGE_HOT_WALLET_ADDRESSES } from '../../../engine/whales/exchange-wallets.js'
import {
  PriceCorrelationQuery,
  PriceCorrelationResponse,
  WhaleHistoryQuery,
  WhaleHistoryResponse
} from '../../../schemas/api/history-whales.js'
import type { ServerContext } from '../../context.js'
import { json, type Route } from '../../http/types.js'

/** lookback when none is given */
const DEFAULT_LOOKBACK = { n: 30, unit: 'd' } as const

const opt = (v: unknown): string | undefined => v as string | undefined

/** The served range of a bucket grid, as the envelope states it. */
const served = (grid: BucketGrid) => ({ timeframe: grid.name, start: grid.from, end: grid.end })

export function whaleHistoryRoutes(
  ctx: Pick<ServerContext, 'store' | 'markets' | 'live'>,
  now: () => number = Date.now
): Route[] {
  const common = {
    method: 'GET',
    access: 'key',
    feature: 'history',
    symbolParam: 'asset',
    tags: ['historical']
  } as const
  return [
    {
      ...common,
      path: '/v1/historical/whales',
      summary: "An asset's whale flows per bucket: the chosen metric, active whales, exchange in/outflow",
      description:
        'Closed buckets, oldest first; a bucket without whale rows has null fields (listed in gaps). Exchange inflow/outflow need raw rows (90 days) and are null beyond.',
      query: WhaleHistoryQuery,
      response: WhaleHistoryResponse,
      handler: async (req) => {
        const q = req.q
        const asset = (q['asset'] as string).toUpperCase()
        const metric = q['metric'] as WhaleMetric
        const grid = resolveGrid(
          { interval: q['interval'] as string, lookback: opt(q['lookback']) },
          DEFAULT_LOOKBACK,
          req.plan,
          now()
        )
        const knownBy = resolveKnownBy(opt(q['known_by']), now())
        const tokens = await requireWhaleAsset(ctx.store, asset)
        const [flows, exchange] = await Promise.all([
          readWhaleFlows(ctx.store, tokens, grid, knownBy),
          readExchangeFlows(ctx.store, tokens, EXCHANGE_HOT_WALLET_ADDRESSES, grid, knownBy)
        ])
        const data = whaleHistoryRecords(asset, metric, grid.starts, flows, exchange)
        const source = `${grid.daily ? 'whale_flows_1d' : 'whale_flows_1h'}, whale_transfers`
        return json(
          200,
          historyEnvelope({
            data,
            scope: { symbol: null, base: asset, exchange: null },
            ...served(grid),
            source,
            extra: { tokens, ...knownByMeta(knownBy) },
            gaps: findGaps(
              flows.map((f) => f.t),
              grid.from,
              grid.end,
              grid.interval
            )
          })
        )
      }
    },
    {
      ...common,
      path: '/v1/historical/whales/price-correlation',
      summary: `Pearson correlation of whale net flow and price returns at lags 0 to ${MAX_LAG} buckets`,
      description:
        'Lag k pairs the net flow of bucket t with the return of bucket t + k (close / previous close - 1). Buckets missing either side are skipped; samples counts the pairs used. Correlation is null below 3 samples or when a side is constant.',
      query: PriceCorrelationQuery,
      response: PriceCorrelationResponse,
      handler: async (req) => {
        const q = req.q
        const asset = (q['asset'] as string).toUpperCase()
        const grid = resolveGrid(
          { interval: q['interval'] as string, lookback: opt(q['lookback']) },
          DEFAULT_LOOKBACK,
          req.plan,
          now()
        )
        const knownBy = resolveKnownBy(opt(q['known_by']), now())
        const tokens = await requireWhaleAsset(ctx.store, asset)
        const market = await priceMarket(ctx, asset)
        const [flows, closes] = await Promise.all([
          readWhaleFlows(ctx.store, tokens, grid, knownBy),
          readMarketSeries(ctx.store, 'close', { base: market.base, market }, grid, knownBy)
        ])
        const closeAt = new Map(closes.map((c) => [c.t, c.v]))
        const closeSeries = grid.starts.map((t) => closeAt.get(t) ?? null)
        const flowSeries = netFlowSeries(grid.starts, flows)
        const data = lagCorrelations(flowSeries, bucketReturns(closeSeries), MAX_LAG)
        const both = grid.starts.filter((_, i) => flowSeries[i] !== null && closeSeries[i] !== null)
        const source = `${grid.daily ? 'whale_flows_1d' : 'whale_flows_1h'}, ${sourceTable('close', grid)}`
        return json(
          200,
          historyEnvelope({
            data,
            scope: { symbol: market.symbol, base: asset, exchange: market.exchange },
            ...served(grid),
            source,
            extra: {
              tokens,
              buckets: grid.starts.length,
              flow_buckets: flowSeries.filter((v) => v !== null).length,
              price_buckets: closeSeries.filter((v) => v !== null).length,
              ...knownByMeta(knownBy)
            },
            gaps: findGaps(both, grid.from, grid.end, grid.interval)
          })
        )
      }
    }
  ]
}

/** The market whose closes price the asset (the first perpetual venue listing it); 400 when it has none. */
async function priceMarket(ctx: Pick<ServerContext, 'markets'>, asset: string): Promise<Market> {
  try {
    return await ctx.markets.resolve(asset, undefined, 'asset')
  } catch (err) {
    if (!(err instanceof ApiError)) throw err
    throw new ApiError(
      'unknown_symbol',
      `no price history for ${asset}: the correlation needs candles of a ${asset} market (${perpVenueIdList('or')})`,
      { param: 'asset', cause: err }
    )
  }
}
