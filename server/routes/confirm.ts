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
import { json, type Route } from '../http/types.js'

export function confirmRoutes(ctx: Pick<ServerContext, 'live' | 'log'>): Route[] {
  const live = ctx.live
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
        const now = Date.now()
        const inputs = await buildConfirmInputs(base, now, live)
        return json(200, confirm(base, req.q['direction'] as Direction, inputs, now))
      }
    }
  ]
}
