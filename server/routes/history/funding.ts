/**
 * @module
 * Funding-rate history (service spec "Historical and backtest"; docs/history-funding.md):
 * - `GET /v1/historical/derivatives/funding-heatmap`: one market's buckets, dense, null where no reading;
 * - `GET /v1/historical/derivatives/funding-heatmap/comparative`: exchanges x buckets of one base asset,
 *   with rates also on an 8-hour basis so 1h, 4h and 8h venues compare;
 * - `GET /v1/historical/derivatives/funding-stats`: statistics of the hourly series of a window.
 * All read the funding aggregates (24 months) and answer in the historical envelope.
 */
import { knownByMeta, resolveKnownBy } from '../../../engine/asof/known-by.js'
import { findGaps, historyEnvelope } from '../../../engine/history/envelope.js'
import { comparativeGrid, heatmapGrid } from '../../../engine/history/funding-grid.js'
import { fundingBuckets, fundingSource, hourlyFunding } from '../../../engine/history/funding-queries.js'
import { fundingStats, type FundingMetric } from '../../../engine/history/funding-stats.js'
import { fundingWindow, parseFundingInterval } from '../../../engine/history/funding-window.js'
import type { Market, MarketDirectory } from '../../../engine/history/markets.js'
import type { TimeRange } from '../../../engine/history/range.js'
import { HOUR, formatSpan, type Span } from '../../../engine/history/span.js'
import { HISTORY_EXCHANGES } from '../../../schemas/api/history.js'
import {
  ComparativeQuery,
  ComparativeResponse,
  HeatmapQuery,
  HeatmapResponse,
  StatsQuery,
  StatsResponse
} from '../../../schemas/api/history-funding.js'
import { AccessControl } from '../../access/access-control.js'
import type { ServerContext } from '../../context.js'
import { json, type Route, type RouteRequest } from '../../http/types.js'

/** Heatmaps default to a week: 168 hourly or 42 four-hourly cells. */
const HEATMAP_LOOKBACK: Span = { n: 7, unit: 'd' }
/** Statistics default to 30 days: enough hourly samples for a stable median, within the free plan's depth. */
const STATS_LOOKBACK: Span = { n: 30, unit: 'd' }

const PATH = '/v1/historical/derivatives'

/** A checked window for the request's lookback at bucket width `span`. */
function windowOf(req: RouteRequest, span: Span, defaultLookback: Span): TimeRange {
  const lookback = req.q['lookback'] as string | undefined
  return fundingWindow({ lookback, span, defaultLookback, plan: req.plan, nowMs: Date.now() })
}

/** The market the request's `symbol` names on its `exchange` (or the default venue), within the caller's plan. */
async function marketOf(markets: MarketDirectory, req: RouteRequest): Promise<Market> {
  const market = await markets.resolve(req.q['symbol'] as string, req.q['exchange'] as string | undefined)
  AccessControl.checkSymbol(req.plan, market.base, 'symbol')
  return market
}

/**
 * One market per exchange for a comparison: the named market itself where `symbol` is a native name of
 * that exchange, else the exchange's market of the same base asset (400 naming `exchanges` if none).
 */
async function comparedMarkets(markets: MarketDirectory, symbol: string, first: Market, exchanges?: string[]) {
  const all = await markets.list()
  const upper = symbol.trim().toUpperCase()
  const listed = new Set(all.filter((m) => m.base === first.base).map((m) => m.exchange))
  const wanted = exchanges ?? HISTORY_EXCHANGES.filter((ex) => listed.has(ex))
  return Promise.all(
    wanted.map(
      (ex) =>
        all.find((m) => m.exchange === ex && m.symbol.toUpperCase() === upper) ??
        markets.resolve(first.base, ex, 'exchanges')
    )
  )
}

export function fundingHistoryRoutes(ctx: Pick<ServerContext, 'store' | 'markets' | 'live'>): Route[] {
  const common = { method: 'GET', access: 'key', feature: 'history', tags: ['history'] } as const
  return [
    {
      ...common,
      path: `${PATH}/funding-heatmap`,
      summary: 'Funding rate per time bucket of one market: rate and annualized rate, null where no reading',
      query: HeatmapQuery,
      response: HeatmapResponse,
      handler: async (req) => {
        const span = parseFundingInterval(req.q['interval'] as string)
        const window = windowOf(req, span, HEATMAP_LOOKBACK)
        const knownBy = resolveKnownBy(req.q['known_by'] as string | undefined, Date.now())
        const market = await marketOf(ctx.markets, req)
        const rows = await fundingBuckets(ctx.store, [market], window, span, knownBy)
        const { cells, gaps } = heatmapGrid(rows, market, window, span)
        // scope: the Market itself, so meta opens base, exchange, symbol (as it always has here)
        return json(
          200,
          historyEnvelope({
            data: cells,
            scope: market,
            timeframe: formatSpan(span),
            start: window.fromMs,
            end: window.toMs,
            source: fundingSource(span),
            extra: knownByMeta(knownBy),
            gaps
          })
        )
      }
    },
    {
      ...common,
      path: `${PATH}/funding-heatmap/comparative`,
      summary: 'Funding rate per time bucket across exchanges, also normalized to an 8-hour basis',
      query: ComparativeQuery,
      response: ComparativeResponse,
      handler: async (req) => {
        const span = parseFundingInterval(req.q['interval'] as string)
        const window = windowOf(req, span, HEATMAP_LOOKBACK)
        const knownBy = resolveKnownBy(req.q['known_by'] as string | undefined, Date.now())
        const symbol = req.q['symbol'] as string
        const first = await marketOf(ctx.markets, req)
        const markets = await comparedMarkets(ctx.markets, symbol, first, req.q['exchanges'] as string[] | undefined)
        const grid = comparativeGrid(
          await fundingBuckets(ctx.store, markets, window, span, knownBy),
          markets,
          window,
          span
        )
        return json(
          200,
          historyEnvelope({
            data: grid.rows,
            scope: { symbol: null, base: first.base, exchange: null },
            timeframe: formatSpan(span),
            start: window.fromMs,
            end: window.toMs,
            source: fundingSource(span),
            extra: {
              exchanges: markets.map((m) => m.exchange),
              markets: markets.map((m, i) => ({ exchange: m.exchange, symbol: m.symbol, gaps: grid.marketGaps[i] })),
              ...knownByMeta(knownBy)
            },
            gaps: grid.gaps
          })
        )
      }
    },
    {
      ...common,
      path: `${PATH}/funding-stats`,
      summary: 'Funding statistics of a window: mean, median, std_dev, min, max, annualized mean, extremes, percentile',
      query: StatsQuery,
      response: StatsResponse,
      handler: async (req) => {
        const window = windowOf(req, HOUR, STATS_LOOKBACK)
        const knownBy = resolveKnownBy(req.q['known_by'] as string | undefined, Date.now())
        const market = await marketOf(ctx.markets, req)
        const metrics = req.q['metrics'] as FundingMetric[]
        const samples = await hourlyFunding(ctx.store, market, window, knownBy)
        return json(
          200,
          historyEnvelope({
            data: [{ ...market, ...fundingStats(samples, metrics) }],
            scope: market, // base, exchange, symbol: as the heatmap
            timeframe: '1h',
            start: window.fromMs,
            end: window.toMs,
            source: 'funding_1h',
            extra: { metrics, ...knownByMeta(knownBy) },
            gaps: findGaps(
              samples.map((s) => s.ts),
              window.fromMs,
              window.toMs,
              HOUR
            )
          })
        )
      }
    }
  ]
}
