/**
 * @module
 * `GET /v1/historical/snapshots`: whale net flow, funding rate, open interest, price and volume of one asset
 * side by side per bucket (closed buckets, oldest first, null where a metric has no data). A base asset
 * (`BTC`) aggregates all its markets; a market symbol (`BTCUSDT`) uses that market alone. Choices, units and
 * limits: docs/history-whales.md.
 */
import { knownByMeta, resolveKnownBy } from '../../../engine/asof/known-by.js'
import { ApiError } from '../../../engine/errors.js'
import { findGaps, historyEnvelope } from '../../../engine/history/envelope.js'
import { baseOf, type Market } from '../../../engine/history/markets.js'
import { resolveGrid } from '../../../engine/history/snapshot-grid.js'
import {
  readMarketSeries,
  sourceTable,
  type MarketPoint,
  type MarketScope,
  type MarketSource
} from '../../../engine/history/snapshot-series.js'
import {
  combineMarkets,
  completeBuckets,
  seriesAt,
  snapshotRecords,
  type SnapshotMetric
} from '../../../engine/history/snapshots.js'
import { readWhaleFlows, requireWhaleAsset } from '../../../engine/history/whale-flows.js'
import { tokensOf } from '../../../engine/history/whale-assets.js'
import { netFlowSeries } from '../../../engine/history/whale-history.js'
import { SnapshotQuery, SnapshotResponse } from '../../../schemas/api/history-whales.js'
import { AccessControl } from '../../access/access-control.js'
import type { ServerContext } from '../../context.js'
import { json, type Route } from '../../http/types.js'

/** lookback when none is given */
const DEFAULT_LOOKBACK = { n: 30, unit: 'd' } as const

/** Market metrics: their per-market source and how markets fold (price: the price market alone). */
const MARKET_METRICS: Readonly<Record<Exclude<SnapshotMetric, 'whale_net_flow'>, MarketSource>> = {
  price: 'close',
  volume: 'volume',
  oi: 'oi',
  funding_rate: 'funding8h'
}

export function snapshotRoutes(
  ctx: Pick<ServerContext, 'store' | 'markets' | 'live'>,
  now: () => number = Date.now
): Route[] {
  return [
    {
      method: 'GET',
      path: '/v1/historical/snapshots',
      access: 'key',
      feature: 'history',
      tags: ['historical'],
      summary: 'Whale net flow, funding rate, open interest, price and volume of one asset per bucket',
      description:
        'Closed buckets, oldest first; a metric without data in a bucket is null (gaps list buckets with any null). A base asset aggregates its markets (funding: mean of 8-hour-equivalent rates; OI and volume: sums, USD); price is the close of meta.price_market.',
      query: SnapshotQuery,
      response: SnapshotResponse,
      handler: async (req) => {
        const q = req.q
        const symbol = q['symbol'] as string
        const metrics = q['metrics'] as SnapshotMetric[]
        const grid = resolveGrid(
          { interval: q['interval'] as string, lookback: q['lookback'] as string | undefined },
          DEFAULT_LOOKBACK,
          req.plan,
          now()
        )
        const knownBy = resolveKnownBy(q['known_by'] as string | undefined, now())
        const onlyWhales = metrics.every((m) => m === 'whale_net_flow')
        // whale net flow alone needs no market (e.g. a stablecoin); anything else does
        const market = onlyWhales
          ? await ctx.markets.resolve(symbol, undefined).catch(noMarket)
          : await ctx.markets.resolve(symbol, undefined)
        const base = market?.base ?? baseOf(symbol)
        AccessControl.checkSymbol(req.plan, base, 'symbol')
        if (!market) await requireWhaleAsset(ctx.store, base, 'symbol')
        const single = market !== null && market.symbol.toUpperCase() === symbol.trim().toUpperCase()
        const scope: MarketScope = { base, market: single ? market : null }

        const series = new Map<SnapshotMetric, ReadonlyMap<number, number>>()
        const used = new Set<string>()
        const sources = new Set<string>()
        await Promise.all(
          metrics.map(async (m) => {
            if (m === 'whale_net_flow') {
              const flows = await readWhaleFlows(ctx.store, tokensOf(base), grid, knownBy)
              series.set(m, seriesAt(grid.starts, netFlowSeries(grid.starts, flows)))
              sources.add(grid.daily ? 'whale_flows_1d' : 'whale_flows_1h')
              return
            }
            const source = MARKET_METRICS[m]
            const points = await readMarketSeries(
              ctx.store,
              source,
              m === 'price' ? { base, market } : scope,
              grid,
              knownBy
            )
            series.set(
              m,
              m === 'price' ? priceSeries(points) : combineMarkets(points, m === 'funding_rate' ? 'mean' : 'sum')
            )
            for (const p of points) if (p.v !== null) used.add(`${p.exchange}:${p.symbol}`)
            sources.add(sourceTable(source, grid))
          })
        )
        const data = snapshotRecords(grid.starts, metrics, series)
        return json(
          200,
          historyEnvelope({
            data,
            scope: { symbol: single ? market.symbol : null, base, exchange: single ? market.exchange : null },
            timeframe: grid.name,
            start: grid.from,
            end: grid.end,
            source: [...sources].sort().join(', '),
            extra: {
              metrics,
              price_market: market ? marketName(market) : null,
              markets: [...used].sort(),
              ...knownByMeta(knownBy)
            },
            gaps: findGaps(completeBuckets(data, metrics), grid.from, grid.end, grid.interval)
          })
        )
      }
    }
  ]
}

/** An unknown symbol is no market; other errors stay errors. */
function noMarket(err: unknown): null {
  if (err instanceof ApiError && err.code === 'unknown_symbol') return null
  throw err
}

const marketName = (m: Market): string => `${m.exchange}:${m.symbol}`

/** Closes of the one price market per bucket. */
function priceSeries(points: readonly MarketPoint[]): Map<number, number> {
  const out = new Map<number, number>()
  for (const p of points) if (p.v !== null) out.set(p.t, p.v)
  return out
}
