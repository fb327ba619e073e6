/**
 * @module
 * `GET /v1/historical/ohlcv` (paged by cursor), `/ohlcv/multi` (latest closed candle per timeframe) and
 * `/ohlcv/resample` (merging a timeframe's candles into any whole multiple). Only closed candles are
 * served: a bucket is included when it has ended at the time of the request. Choices: docs/history.md.
 */
import { resolveKnownBy, knownByMeta } from '../../../engine/asof/known-by.js'
import { readCandles, latestCandles, type LatestProbe } from '../../../engine/history/candles.js'
import { readCandlesKnown } from '../../../engine/history/candles-known.js'
import { candleFrom } from '../../../engine/history/known-sources.js'
import { findGaps, historyEnvelope, marketScope } from '../../../engine/history/envelope.js'
import { checkPlanDepth, planDepthStart, resolveRange } from '../../../engine/history/range.js'
import {
  ceilTo,
  describeSpan,
  floorTo,
  formatSpan,
  isWholeMultiple,
  minus,
  parseSpan,
  plus
} from '../../../engine/history/span.js'
import { TIMEFRAMES, TIMEFRAME_NAMES, type TimeframeName } from '../../../engine/history/timeframes.js'
import { ApiError } from '../../../engine/errors.js'
import {
  OhlcvMultiQuery,
  OhlcvMultiResponse,
  OhlcvQuery,
  OhlcvResponse,
  ResampleQuery,
  ResampleResponse
} from '../../../schemas/api/history.js'
import { AccessControl } from '../../access/access-control.js'
import type { ServerContext } from '../../context.js'
import { json, type Route } from '../../http/types.js'

const opt = <T>(v: unknown): T | undefined => v as T | undefined

export function ohlcvRoutes(ctx: Pick<ServerContext, 'store' | 'markets'>, now: () => number = Date.now): Route[] {
  const common = { method: 'GET', access: 'key', feature: 'history', tags: ['historical'] } as const
  return [
    {
      ...common,
      path: '/v1/historical/ohlcv',
      summary: 'OHLCV candles of one market, paged by cursor',
      description:
        'Closed candles, oldest first. Give lookback (e.g. 30d) or start_time/end_time. Walk pages by passing next_cursor as cursor until it is null; each candle appears exactly once.',
      query: OhlcvQuery,
      response: OhlcvResponse,
      handler: async (req) => {
        const q = req.q
        const tf = TIMEFRAMES[q['timeframe'] as TimeframeName]
        const t = now()
        const range = resolveRange(
          { lookback: opt(q['lookback']), start_time: opt(q['start_time']), end_time: opt(q['end_time']) },
          {
            defaultLookback: { n: 1000 * tf.span.n, unit: tf.span.unit },
            maxLookback: { span: tf.maxLookback, what: `timeframe ${tf.name}` },
            plan: req.plan
          },
          t
        )
        const knownBy = resolveKnownBy(opt(q['known_by']), t)
        const market = await ctx.markets.resolve(q['symbol'] as string, opt(q['exchange']))
        AccessControl.checkSymbol(req.plan, market.base, 'symbol')
        // closed buckets only: a bucket is served when it has ended by now
        const end = Math.min(ceilTo(range.toMs, tf.span), floorTo(t, tf.span))
        const cursor = opt<number>(q['cursor'])
        if (cursor !== undefined && (cursor < range.fromMs || cursor > range.toMs)) {
          throw new ApiError(
            'invalid_parameter',
            'cursor is outside the requested range; pass the same range parameters as the first page (start_time/end_time keep a walk stable)',
            { param: 'cursor' }
          )
        }
        const from = ceilTo(cursor ?? range.fromMs, tf.span)
        const limit = q['limit'] as number
        const pageEnd = Math.min(end, plus(from, { n: limit * tf.span.n, unit: tf.span.unit }))
        const data =
          pageEnd <= from
            ? []
            : knownBy === undefined
              ? await readCandles(ctx.store, market, tf.table, tf.name, from, pageEnd)
              : await readCandlesKnown(ctx.store, market, tf, tf.name, from, pageEnd, knownBy)
        return json(
          200,
          historyEnvelope({
            data,
            scope: marketScope(market),
            timeframe: tf.name,
            start: from,
            end: Math.max(from, pageEnd),
            source: tf.table,
            extra: knownByMeta(knownBy),
            gaps:
              pageEnd > from
                ? findGaps(
                    data.map((c) => c.timestamp),
                    from,
                    pageEnd,
                    tf.span
                  )
                : [],
            nextCursor: pageEnd < end ? pageEnd : null
          })
        )
      }
    },
    {
      ...common,
      path: '/v1/historical/ohlcv/multi',
      summary: 'The latest closed candle of each timeframe at a moment',
      query: OhlcvMultiQuery,
      response: OhlcvMultiResponse,
      handler: async (req) => {
        const q = req.q
        const t = now()
        const at = Math.min(opt<number>(q['timestamp']) ?? t, t)
        checkPlanDepth(at, req.plan, t, 'timestamp', 'timestamp is')
        const depthFrom = planDepthStart(req.plan, t)
        const market = await ctx.markets.resolve(q['symbol'] as string, opt(q['exchange']))
        AccessControl.checkSymbol(req.plan, market.base, 'symbol')
        const knownBy = resolveKnownBy(opt(q['known_by']), t)
        const names = (opt<TimeframeName[]>(q['timeframes']) ?? [...TIMEFRAME_NAMES]).slice()
        names.sort((a, b) => TIMEFRAME_NAMES.indexOf(a) - TIMEFRAME_NAMES.indexOf(b))
        const probes: LatestProbe[] = await Promise.all(
          names.map(async (name, i) => {
            const tf = TIMEFRAMES[name]
            const probe = {
              timeframe: name,
              table: tf.table,
              atOrBeforeMs: minus(floorTo(at, tf.span), tf.span),
              notBeforeMs: Math.max(depthFrom, minus(at, tf.maxLookback))
            }
            if (knownBy === undefined || probe.atOrBeforeMs < probe.notBeforeMs) return probe
            // with known_by: the buckets of the window as known then (a late hour recomputed from raw trades)
            const from = floorTo(probe.notBeforeMs, tf.span)
            const source = await candleFrom(ctx.store, tf, from, plus(probe.atOrBeforeMs, tf.span), knownBy, `ck${i}`)
            return { ...probe, source: { ...source, span: tf.span } }
          })
        )
        const data = await latestCandles(ctx.store, market, probes)
        const found = new Set(data.map((c) => c.timeframe))
        return json(
          200,
          historyEnvelope({
            data,
            scope: marketScope(market),
            timeframe: names.join(','),
            start: at,
            end: at,
            source: names.map((n) => TIMEFRAMES[n].table).join(','),
            extra: { timestamp: at, missing: names.filter((n) => !found.has(n)), ...knownByMeta(knownBy) }
          })
        )
      }
    },
    {
      ...common,
      path: '/v1/historical/ohlcv/resample',
      summary: 'Candles of a source timeframe merged into a wider target (e.g. 1m to 3m, 1h to 12h)',
      description:
        'The target must be a whole multiple of the source (its buckets unions of whole source buckets); the lookback is limited by the source timeframe. Only target buckets wholly inside the range and closed are served.',
      query: ResampleQuery,
      response: ResampleResponse,
      handler: async (req) => {
        const q = req.q
        const src = TIMEFRAMES[q['source_timeframe'] as TimeframeName]
        const target = parseSpan(q['target_timeframe'] as string, 'target_timeframe')
        if (target.unit === 'y' || !isWholeMultiple(target, src.span)) {
          throw new ApiError(
            'invalid_parameter',
            `target_timeframe ${formatSpan(target)} is not a whole multiple of ${src.name}: every target bucket must be a union of whole ${describeSpan(src.span)} buckets (e.g. ${src.name} to ${exampleMultiple(src.name)})`,
            { param: 'target_timeframe' }
          )
        }
        const t = now()
        const range = resolveRange(
          { lookback: opt(q['lookback']) },
          {
            defaultLookback: { n: 100 * target.n, unit: target.unit },
            maxLookback: { span: src.maxLookback, what: `source_timeframe ${src.name}` },
            plan: req.plan
          },
          t
        )
        const knownBy = resolveKnownBy(opt(q['known_by']), t)
        const market = await ctx.markets.resolve(q['symbol'] as string, opt(q['exchange']))
        AccessControl.checkSymbol(req.plan, market.base, 'symbol')
        const from = ceilTo(range.fromMs, target)
        const end = Math.min(floorTo(range.toMs, target), floorTo(t, target))
        const name = formatSpan(target)
        const data =
          end <= from
            ? []
            : knownBy === undefined
              ? await readCandles(ctx.store, market, src.table, name, from, end, target)
              : await readCandlesKnown(ctx.store, market, src, name, from, end, knownBy, target)
        return json(
          200,
          historyEnvelope({
            data,
            scope: marketScope(market),
            timeframe: name,
            start: from,
            end: Math.max(from, end),
            source: src.table,
            extra: { source_timeframe: src.name, ...knownByMeta(knownBy) },
            gaps:
              end > from
                ? findGaps(
                    data.map((c) => c.timestamp),
                    from,
                    end,
                    target
                  )
                : []
          })
        )
      }
    }
  ]
}

function exampleMultiple(name: TimeframeName): string {
  const examples: Record<TimeframeName, string> = {
    '1m': '3m',
    '5m': '30m',
    '15m': '45m',
    '1h': '12h',
    '4h': '12h',
    '1d': '3d',
    '1w': '2w',
    '1M': '3M'
  }
  return examples[name]
}
