/**
 * @module
 * `GET /v1/confirm/history`: the confirm answers as they would have been answered at each step of a range,
 * for backtests (docs/confirm.md, "History"); paged with a cursor like the candle history.
 * `GET /v1/confirm/evaluation`: the walk-forward evaluation of those answers against the forward returns
 * of the stored candles (docs/confirm.md, "Evaluation"). Both read `symbol` with the one symbol resolver
 * against the live screener's bases, as `GET /v1/confirm` does.
 */
import { confirmSeries } from '../../engine/asof/confirm-at.js'
import { parseMoment } from '../../engine/asof/point-in-time.js'
import type { Direction } from '../../engine/confirm/types.js'
import { ApiError } from '../../engine/errors.js'
import { topBasesByVolume } from '../../engine/evaluation/bases.js'
import { MAX_EVALUATION_STEPS, MAX_HISTORY_STEPS } from '../../engine/evaluation/limits.js'
import { runEvaluation, type ConfirmSeries } from '../../engine/evaluation/run.js'
import { resolveStepRange } from '../../engine/evaluation/step-range.js'
import {
  intervalMs,
  parseHorizon,
  priceTimeframe,
  stepCount,
  stepGrid,
  type Horizon,
  type StepInterval
} from '../../engine/evaluation/steps.js'
import type { Market } from '../../engine/history/markets.js'
import { screenerBases } from '../../engine/symbols/known-bases.js'
import { resolveBase } from '../../engine/symbols/resolve.js'
import {
  ConfirmEvaluationQuery,
  ConfirmEvaluationResponse,
  ConfirmHistoryQuery,
  ConfirmHistoryResponse
} from '../../schemas/api/confirm-history.js'
import { AccessControl } from '../access/access-control.js'
import type { ServerContext } from '../context.js'
import { json, type Route } from '../http/types.js'

const opt = <T>(v: unknown): T | undefined => v as T | undefined
const iso = (ms: number): string => new Date(ms).toISOString()
const thousands = (n: number): string => n.toLocaleString('en-US')

/** The first step of a page: the range start, or a cursor that is one of the range's steps (400 otherwise). */
function pageStart(cursor: number | undefined, startMs: number, endMs: number, stepMs: number): number {
  if (cursor === undefined) return startMs
  if (cursor % stepMs !== 0 || cursor < startMs || cursor >= endMs) {
    throw new ApiError(
      'invalid_parameter',
      'cursor must be the next_cursor of a previous page: a step inside the requested range; pass the same start, end and interval as the first page',
      { param: 'cursor' }
    )
  }
  return cursor
}

/** A fixed `known_by`, epoch ms (400 when malformed or in the future), or undefined: each step its own. */
function fixedKnownBy(text: string | undefined, nowMs: number): number | undefined {
  if (text === undefined) return undefined
  const ms = parseMoment(text, 'known_by')
  if (ms > nowMs) throw new ApiError('invalid_parameter', `known_by ${iso(ms)} is in the future`, { param: 'known_by' })
  return ms
}

export function confirmHistoryRoutes(
  ctx: Pick<ServerContext, 'live' | 'store' | 'markets'>,
  now: () => number = Date.now,
  series: ConfirmSeries = confirmSeries
): Route[] {
  const known = screenerBases(ctx.live.screener)
  const common = { method: 'GET', access: 'key', feature: 'confirm', tags: ['confirm'] } as const
  return [
    {
      ...common,
      path: '/v1/confirm/history',
      summary: 'The confirm answers as they were at each step of a range (for backtests), paged by cursor',
      description: `Each step's answer uses only records with event time at or before the step and received by it (or by known_by). At most ${thousands(MAX_HISTORY_STEPS)} steps per page: walk next_cursor until it is null. docs/confirm.md, "History".`,
      query: ConfirmHistoryQuery,
      response: ConfirmHistoryResponse,
      handler: async (req) => {
        const q = req.q
        const base = resolveBase(q['symbol'] as string, known)
        AccessControl.checkSymbol(req.plan, base, 'symbol')
        const t = now()
        const range = resolveStepRange({ start: q['start'] as string, end: opt(q['end']) }, req.plan, t)
        const knownByMs = fixedKnownBy(opt(q['known_by']), t)
        const interval = q['interval'] as StepInterval
        const stepMs = intervalMs(interval)
        const from = pageStart(opt(q['cursor']), range.startMs, range.endMs, stepMs)
        const limit = q['limit'] as number
        const steps = stepGrid(from, range.endMs, stepMs, limit)
        const after = steps.length === limit ? steps[steps.length - 1]! + stepMs : range.endMs
        const next = after < range.endMs ? after : null
        const direction = q['direction'] as Direction
        const answers = steps.length > 0 ? await series(ctx.store, base, direction, steps, knownByMs) : []
        return json(200, {
          symbol: base,
          direction,
          interval,
          known_by: knownByMs === undefined ? 'step' : iso(knownByMs),
          data: answers.map((a, i) => ({ timestamp: steps[i]!, ...a })),
          meta: { start: steps[0] ?? from, end: next ?? range.endMs, rows: answers.length },
          next_cursor: next
        })
      }
    },
    {
      ...common,
      path: '/v1/confirm/evaluation',
      summary: 'Walk-forward evaluation of the confirm model on the stored history: forward returns per action',
      description:
        'For each step the confirm answer as it was then, and the forward return of the direction at each horizon from the stored candles; per action and confidence and for an always-confirm baseline: n, mean, median, hit rate and a 95% confidence interval of the mean. docs/confirm.md, "Evaluation".',
      query: ConfirmEvaluationQuery,
      response: ConfirmEvaluationResponse,
      handler: async (req) => {
        const q = req.q
        const t = now()
        const interval = q['interval'] as StepInterval
        const stepMs = intervalMs(interval)
        // without end: the longest range taken, or up to now
        const span = MAX_EVALUATION_STEPS * stepMs
        const range = resolveStepRange({ start: q['start'] as string, end: opt(q['end']) }, req.plan, t, span)
        const count = stepCount(range.startMs, range.endMs, stepMs)
        if (count > MAX_EVALUATION_STEPS) {
          throw new ApiError(
            'invalid_parameter',
            `the range holds ${thousands(count)} steps of ${interval}; an evaluation covers at most ${thousands(MAX_EVALUATION_STEPS)} steps per market (90 days at 1h): shorten the range or widen the interval`,
            { param: 'start' }
          )
        }
        const horizons: Horizon[] = []
        for (const text of q['horizons'] as string[]) {
          const h = parseHorizon(text, 'horizons')
          if (!horizons.some((x) => x.ms === h.ms)) horizons.push(h)
        }
        const symbol = opt<string>(q['symbol'])
        const markets: Market[] = []
        if (symbol !== undefined) {
          const base = resolveBase(symbol, known)
          AccessControl.checkSymbol(req.plan, base, 'symbol')
          markets.push(await ctx.markets.resolve(base, undefined))
        } else {
          for (const base of await topBasesByVolume(ctx.store, range.startMs, range.endMs, req.plan?.symbols ?? null)) {
            // the base's default market; a base held only in markets of other kinds (spot imports) is skipped
            const m = await ctx.markets.resolve(base, undefined).catch((e: unknown) => {
              if (e instanceof ApiError && e.code === 'unknown_symbol') return null
              throw e
            })
            if (m) markets.push(m)
          }
        }
        const knownByMs = fixedKnownBy(opt(q['known_by']), t)
        const direction = q['direction'] as Direction
        const price = priceTimeframe(stepMs, horizons)
        const stepsMs = stepGrid(range.startMs, range.endMs, stepMs, MAX_EVALUATION_STEPS)
        const report = await runEvaluation(ctx.store, series, {
          markets,
          direction,
          stepsMs,
          horizons,
          price,
          nowMs: t,
          knownByMs
        })
        return json(200, {
          direction,
          interval,
          known_by: knownByMs === undefined ? 'step' : iso(knownByMs),
          horizons: horizons.map((h) => h.name),
          start: stepsMs[0] ?? range.startMs,
          end: range.endMs,
          steps: stepsMs.length,
          markets: markets.map((m) => ({ base: m.base, exchange: m.exchange, symbol: m.symbol })),
          price_timeframe: price.name,
          interval_method: 'normal approximation of the mean: mean ± 1.96 × sample standard deviation / √n',
          ...report
        })
      }
    }
  ]
}
