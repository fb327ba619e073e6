/**
 * @module
 * `GET /v1/confirm`: confirms or vetoes a long/short idea from derivatives, on-chain and whale inputs
 * (docs/confirm.md). Advice only. `symbol` is read by the one symbol resolver (engine/symbols/resolve.ts:
 * BTC, BTCUSDT, BTC/USDT:USDT, BTC-USDT-SWAP, BINANCE:BTCUSDT.P, ...) against the live screener's bases; the
 * answer is per base asset, so a TradingView venue prefix only names the base. The answer carries both
 * published shapes. With `as_of`, the answer as it was then (engine/asof/confirm-at.ts) plus `point_in_time`.
 */
import type { Direction } from '../../engine/confirm/confirm.js'
import { confirmAt } from '../../engine/asof/confirm-at.js'
import { resolvePointInTime } from '../../engine/asof/point-in-time.js'
import { confirmAnswersOf, type ConfirmAnswer } from '../../engine/live/confirm-answers.js'
import { screenerBases } from '../../engine/symbols/known-bases.js'
import { resolveBase } from '../../engine/symbols/resolve.js'
import { ConfirmQuery, ConfirmResponse } from '../../schemas/api/confirm.js'
import { AccessControl } from '../access/access-control.js'
import type { ServerContext } from '../context.js'
import { JSON_HEADERS, type HttpResponse, type Route } from '../http/types.js'
import { asOfAnswers } from './as-of.js'

/** The raw tables a confirmation reads (its `point_in_time.oldest_known`). */
const CONFIRM_TABLES = [
  'funding',
  'trades',
  'open_interest',
  'long_short',
  'onchain_metrics',
  'whale_transfers'
] as const

export function confirmRoutes(ctx: Pick<ServerContext, 'live' | 'log' | 'store'>): Route[] {
  const asOf = asOfAnswers(ctx.store, 'confirm', CONFIRM_TABLES)
  const known = screenerBases(ctx.live.screener)
  // the live state's answer cache (engine/live/confirm-answers.ts), shared with inbound alerts
  const answers = confirmAnswersOf(ctx.live)
  /**
   * One response object per cached answer and one promise per shared computation: a hot read returns the
   * same object every time (the synthetic label caches its copy by identity), and concurrent misses get
   * the same promise.
   */
  const responses = new WeakMap<ConfirmAnswer, HttpResponse>()
  const computations = new WeakMap<Promise<ConfirmAnswer>, Promise<HttpResponse>>()
  const response = (a: ConfirmAnswer): HttpResponse => {
    let res = responses.get(a)
    // the answer's bytes, encoded once per answer rather than by the socket on every request
    if (!res) responses.set(a, (res = { status: 200, headers: JSON_HEADERS, body: a.bytes }))
    return res
  }
  return [
    {
      method: 'GET',
      path: '/v1/confirm',
      access: 'key',
      feature: 'confirm',
      summary: 'Confirm or veto a long/short idea (advice only): composite of derivatives, on-chain and whale scores',
      description: 'The model, its weights and thresholds are documented in docs/confirm.md.',
      tags: ['confirm'],
      query: ConfirmQuery,
      response: ConfirmResponse,
      // synchronous while the cached answer holds: a hot read is a map lookup, no promise per request
      handler: (req) => {
        // 400 for a refused form or an unknown base (with suggestions), then 403 outside the plan
        const base = resolveBase(req.q['symbol'] as string, known)
        AccessControl.checkSymbol(req.plan, base, 'symbol')
        if (req.q['source'] !== undefined) ctx.log.info({ source: req.q['source'], symbol: base }, 'confirm')
        const pit = resolvePointInTime(req.q, req.plan, Date.now())
        if (pit) {
          const q = { ...req.q, symbol: base }
          return asOf.answer(q, pit, () => confirmAt(ctx.store, base, req.q['direction'] as Direction, pit))
        }
        const a = answers.get(base, req.q['direction'] as Direction)
        if (!(a instanceof Promise)) return response(a)
        let res = computations.get(a)
        if (!res) computations.set(a, (res = a.then(response)))
        return res
      }
    }
  ]
}
