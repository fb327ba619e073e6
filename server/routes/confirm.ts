/**
 * @module
 * `GET /v1/confirm`: confirms or vetoes a long/short idea from derivatives, on-chain and whale inputs
 * (docs/confirm.md). Advice only. `symbol` is read by the one symbol resolver (engine/symbols/resolve.ts:
 * BTC, BTCUSDT, BTC/USDT:USDT, BTC-USDT-SWAP, BINANCE:BTCUSDT.P, ...) against the live screener's bases; the
 * answer is per base asset, so a TradingView venue prefix only names the base. The answer carries both
 * published shapes.
 */
import { confirm, type Direction } from '../../engine/confirm/confirm.js'
import { buildConfirmInputs } from '../../engine/live/confirm-inputs.js'
import { screenerBases } from '../../engine/symbols/known-bases.js'
import { resolveBase } from '../../engine/symbols/resolve.js'
import { ConfirmQuery, ConfirmResponse } from '../../schemas/api/confirm.js'
import { AccessControl } from '../access/access-control.js'
import type { ServerContext } from '../context.js'
import { JSON_HEADERS, type HttpResponse, type Route } from '../http/types.js'

/**
 * Longest a computed answer is reused, ms: inputs with 24 h windows slide with time. Any new record
 * (live-state version) invalidates it at once; concurrent requests then share one recomputation.
 */
const ANSWER_TTL_MS = 1_000
/** Answers cached at most (bases x 2 directions). */
const ANSWER_CACHE_MAX = 1_000

interface Answer {
  readonly version: number
  /** epoch ms the answer was computed */
  readonly at: number
  /** the response, shared by every request it answers (never mutated) */
  readonly res: HttpResponse
}

export function confirmRoutes(ctx: Pick<ServerContext, 'live' | 'log'>): Route[] {
  const live = ctx.live
  const known = screenerBases(live.screener)
  const answers = new Map<string, Answer>()
  /**
   * Computations under way. A miss joins one only while it is as fresh as a cached answer would be (same
   * live-state version, started under ANSWER_TTL_MS ago): concurrent misses share one computation (no
   * stampede when an answer expires), yet a request never gets an answer older than the cache promises.
   */
  const pending = new Map<
    string,
    { readonly version: number; readonly at: number; readonly res: Promise<HttpResponse> }
  >()
  const compute = async (key: string, base: string, direction: Direction, version: number, now: number) => {
    const inputs = await buildConfirmInputs(base, now, live)
    const body = JSON.stringify(confirm(base, direction, inputs, now))
    const res: HttpResponse = { status: 200, headers: JSON_HEADERS, body }
    const cached = answers.get(key)
    // a slower computation that started earlier never replaces a newer answer
    if (!cached || cached.at <= now) {
      if (answers.size >= ANSWER_CACHE_MAX) answers.clear()
      answers.set(key, { version, at: now, res })
    }
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
        const direction = req.q['direction'] as Direction
        const key = direction === 'long' ? `${base}|long` : `${base}|short`
        const hit = answers.get(key)
        if (hit && hit.version === live.version && Date.now() - hit.at < ANSWER_TTL_MS) return hit.res
        const now = Date.now()
        const running = pending.get(key)
        if (running && running.version === live.version && now - running.at < ANSWER_TTL_MS) return running.res
        const started = { version: live.version, at: now, res: compute(key, base, direction, live.version, now) }
        pending.set(key, started)
        const forget = (): void => {
          if (pending.get(key) === started) pending.delete(key)
        }
        started.res.then(forget, forget)
        return started.res
      }
    }
  ]
}
