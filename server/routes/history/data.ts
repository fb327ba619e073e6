/**
 * @module
 * `GET /v1/historical/correlated-data` (one asset, several datasets on one interval grid) and
 * `GET /v1/backtest/data` (several symbols on a timeframe grid). Both answer every bucket of every market
 * with the requested fields, null where nothing was recorded (engine/history/aligned.ts). Dates are UTC
 * days, the end date inclusive; buckets not yet closed are left out. At most 100,000 rows per call. With
 * `known_by`, only the records received by then (docs/history.md "Known by").
 */
import { knownByMeta, resolveKnownBy } from '../../../engine/asof/known-by.js'
import {
  alignedRows,
  candleSourceFor,
  parseAlignedInterval,
  type AlignedField
} from '../../../engine/history/aligned.js'
import { findGaps, historyEnvelope } from '../../../engine/history/envelope.js'
import type { Market } from '../../../engine/history/markets.js'
import { resolveDateRange } from '../../../engine/history/range.js'
import { bucketStarts, floorTo, formatSpan, parseSpan, type Span } from '../../../engine/history/span.js'
import { TIMEFRAMES, type TimeframeName } from '../../../engine/history/timeframes.js'
import { ApiError } from '../../../engine/errors.js'
import { AlignedResponse, BacktestDataQuery, CorrelatedQuery } from '../../../schemas/api/history.js'
import { AccessControl } from '../../access/access-control.js'
import type { ServerContext } from '../../context.js'
import { json, type Route } from '../../http/types.js'

/** Most rows (markets x buckets) one call answers; larger pulls belong to /v1/backtest/export. */
export const MAX_ALIGNED_ROWS = 100_000
const MAX_SYMBOLS = 20

/** Request names of datasets -> the canonical field. */
const FIELD_ALIAS: Readonly<Record<string, AlignedField>> = {
  ohlcv: 'ohlcv',
  whale_accumulation: 'whale_flow',
  whale_flow: 'whale_flow',
  funding_rates: 'funding_rate',
  funding_rate: 'funding_rate',
  oi: 'open_interest',
  open_interest: 'open_interest',
  liquidations: 'liquidations'
}

interface Grid {
  readonly markets: readonly Market[]
  readonly span: Span
  readonly fromMs: number
  readonly toMs: number
  readonly fields: ReadonlySet<AlignedField>
  readonly timeframe: string
  readonly source: string
  readonly knownByMs: number | undefined
}

async function answer(ctx: Pick<ServerContext, 'store'>, g: Grid, param: string) {
  const buckets = bucketStarts(g.fromMs, g.toMs, g.span, MAX_ALIGNED_ROWS + 1).length
  if (buckets * g.markets.length > MAX_ALIGNED_ROWS) {
    throw new ApiError(
      'invalid_parameter',
      `this asks for ${buckets * g.markets.length} rows (${g.markets.length} market(s) x ${buckets} buckets); at most ${MAX_ALIGNED_ROWS} per call: narrow the dates, widen the interval or use /v1/backtest/export`,
      { param }
    )
  }
  const data = g.toMs > g.fromMs ? await alignedRows(ctx.store, g) : []
  // a bucket is a gap when no requested field has a value in it for any market
  const present = data.filter((r) => Object.entries(r).some(([k, v]) => v !== null && !META_KEYS.has(k)))
  const single = g.markets.length === 1 ? g.markets[0]! : null
  return json(
    200,
    historyEnvelope({
      data,
      scope: { symbol: single?.symbol ?? null, base: single?.base ?? null, exchange: single?.exchange ?? null },
      timeframe: g.timeframe,
      start: g.fromMs,
      end: Math.max(g.fromMs, g.toMs),
      source: g.source,
      extra: { markets: g.markets, fields: [...g.fields], ...knownByMeta(g.knownByMs) },
      gaps:
        g.toMs > g.fromMs
          ? findGaps(new Set(present.map((r) => r['timestamp'] as number)), g.fromMs, g.toMs, g.span)
          : []
    })
  )
}

const META_KEYS = new Set(['timestamp', 'symbol', 'base', 'exchange'])

export function alignedDataRoutes(
  ctx: Pick<ServerContext, 'store' | 'markets'>,
  now: () => number = Date.now
): Route[] {
  const common = { method: 'GET', access: 'key', feature: 'history' } as const
  return [
    {
      ...common,
      path: '/v1/historical/correlated-data',
      tags: ['historical'],
      summary: 'One asset: candles, whale flow, funding, OI and liquidations aligned on one interval grid',
      query: CorrelatedQuery,
      response: AlignedResponse,
      handler: async (req) => {
        const q = req.q
        const span = parseAlignedInterval(q['interval'] as string)
        const src = candleSourceFor(span)
        const tf = TIMEFRAMES[src.timeframe as TimeframeName]
        const t = now()
        const range = resolveDateRange(
          q['start_time'] as string,
          q['end_time'] as string,
          { start: 'start_time', end: 'end_time' },
          {
            maxLookback: { span: tf.maxLookback, what: `interval ${formatSpan(span)} (read from ${tf.name} candles)` },
            plan: req.plan
          },
          t
        )
        const knownByMs = resolveKnownBy(q['known_by'] as string | undefined, t)
        const market = await ctx.markets.resolve(q['asset'] as string, q['exchange'] as string | undefined, 'asset')
        AccessControl.checkSymbol(req.plan, market.base, 'asset')
        const fields = new Set((q['include'] as string[]).map((f) => FIELD_ALIAS[f]!))
        return answer(
          ctx,
          {
            markets: [market],
            span,
            fromMs: range.fromMs,
            toMs: Math.min(range.toMs, floorTo(t, span)),
            fields,
            timeframe: formatSpan(span),
            source: src.table,
            knownByMs
          },
          'end_time'
        )
      }
    },
    {
      ...common,
      path: '/v1/backtest/data',
      tags: ['backtest'],
      summary: 'Several symbols on one timeframe grid with the requested fields, for backtests',
      query: BacktestDataQuery,
      response: AlignedResponse,
      handler: async (req) => {
        const q = req.q
        const tf = TIMEFRAMES[q['timeframe'] as TimeframeName]
        const symbols = q['symbols'] as string[]
        if (symbols.length > MAX_SYMBOLS) {
          throw new ApiError('invalid_parameter', `symbols may name at most ${MAX_SYMBOLS} symbols per call`, {
            param: 'symbols'
          })
        }
        const t = now()
        const range = resolveDateRange(
          q['start'] as string,
          q['end'] as string,
          { start: 'start', end: 'end' },
          { maxLookback: { span: tf.maxLookback, what: `timeframe ${tf.name}` }, plan: req.plan },
          t
        )
        const knownByMs = resolveKnownBy(q['known_by'] as string | undefined, t)
        const markets = await ctx.markets.resolveList(symbols, q['exchange'] as string | undefined, {
          param: 'symbols',
          everyVenue: false,
          check: (base) => AccessControl.checkSymbol(req.plan, base, 'symbols')
        })
        const fields = new Set((q['fields'] as string[]).map((f) => FIELD_ALIAS[f]!))
        return answer(
          ctx,
          {
            markets,
            span: tf.span,
            fromMs: range.fromMs,
            toMs: Math.min(range.toMs, floorTo(t, tf.span)),
            fields,
            timeframe: tf.name,
            source: tf.table,
            knownByMs
          },
          'end'
        )
      }
    }
  ]
}
