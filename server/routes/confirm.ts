/**
 * @module
 * `GET /v1/confirm`: confirms or vetoes a long/short idea from derivatives, on-chain and whale inputs
 * (docs/confirm.md). Advice only. Accepts `BTC`, `BTC/USDT` and `BTC/USDT:USDT` (CCXT style) and uses the
 * base. The answer carries both published shapes.
 */
import { confirm, type Direction } from '../../engine/confirm/confirm.js'
import { buildConfirmInputs } from '../../engine/live/confirm-inputs.js'
import { ApiError } from '../../engine/errors.js'
import { ConfirmQuery, ConfirmResponse } from '../../schemas/api/confirm.js'
import { AccessControl } from '../access/access-control.js'
import type { ServerContext } from '../context.js'
import type { Route } from '../http/types.js'

/**
 * Longest a computed answer is reused, ms: inputs with 24 h windows slide with time. Any new record
 * (live-state version) invalidates it at once.
 */
const ANSWER_TTL_MS = 1_000
/** Answers cached at most (bases x 2 directions). */
const ANSWER_CACHE_MAX = 1_000

export function confirmRoutes(ctx: Pick<ServerContext, 'live' | 'log'>): Route[] {
  const live = ctx.live
  const answers = new Map<string, { version: number; at: number; body: string }>()
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
      handler: async (req) => {
        const base = (req.q['symbol'] as string).split('/')[0]!.toUpperCase()
        AccessControl.checkSymbol(req.plan, base, 'symbol')
        if (!live.screener.hasBase(base)) {
          throw new ApiError('unknown_symbol', `no perpetual market for ${base} on Binance, Bybit or OKX`, {
            param: 'symbol'
          })
        }
        if (req.q['source'] !== undefined) ctx.log.info({ source: req.q['source'], symbol: base }, 'confirm')
        const direction = req.q['direction'] as Direction
        const key = `${base}|${direction}`
        const now = Date.now()
        const hit = answers.get(key)
        if (hit && hit.version === live.version && now - hit.at < ANSWER_TTL_MS) {
          return { status: 200, headers: { 'content-type': 'application/json' }, body: hit.body }
        }
        const version = live.version
        const inputs = await buildConfirmInputs(base, now, live)
        const body = JSON.stringify(confirm(base, direction, inputs, now))
        if (answers.size >= ANSWER_CACHE_MAX) answers.clear()
        answers.set(key, { version, at: now, body })
        return { status: 200, headers: { 'content-type': 'application/json' }, body }
      }
    }
  ]
}
