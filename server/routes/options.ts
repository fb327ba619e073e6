/**
 * @module
 * Options endpoints. `GET /v1/options/chain` serves the cached snapshot of the live chain: a lookup. One
 * response object per cached body, so a hot read allocates none and the synthetic label's copy (cached by
 * the response's identity, server/app.ts) is reused. With `as_of` the chain at that moment is read from the
 * store (engine/options/chain-as-of.ts).
 */
import { resolvePointInTime } from '../../engine/asof/point-in-time.js'
import { chainAsOf } from '../../engine/options/chain-as-of.js'
import type { OptionsCurrency } from '../../engine/options/chain-types.js'
import { ChainQuery, ChainResponse } from '../../schemas/api/options.js'
import type { ServerContext } from '../context.js'
import { JSON_HEADERS, json, type HttpResponse, type Route } from '../http/types.js'

export function optionsRoutes(ctx: Pick<ServerContext, 'live' | 'store'>): Route[] {
  const responses = new WeakMap<Buffer, HttpResponse>()
  const response = (body: Buffer): HttpResponse => {
    let res = responses.get(body)
    if (!res) responses.set(body, (res = { status: 200, headers: JSON_HEADERS, body }))
    return res
  }
  return [
    {
      method: 'GET',
      path: '/v1/options/chain',
      access: 'public',
      feature: 'options',
      symbolParam: 'currency',
      summary: 'Options chain snapshot: open interest by strike, put/call ratios, max pain per expiry',
      description:
        "The chain is the newest whole-chain snapshot of the currency (its instruments are the ones listed then), minus instruments expired since. Instruments are parsed from Deribit names (expiry 08:00 UTC). Max pain per expiry: the strike among that expiry's strikes with the lowest payout to holders (calls below plus puts above, times OI); ties go to the lower strike. With as_of: the chain at that moment from the quotes received by known_by, plus point_in_time.",
      tags: ['options'],
      query: ChainQuery,
      response: ChainResponse,
      // synchronous for the live chain: a hot read is a lookup, with no promise, abort hook or later cork
      handler: (req) => {
        const currency = req.q['currency'] as OptionsCurrency
        const now = Date.now()
        const pit = resolvePointInTime(req.q, req.plan, now)
        if (pit === null) return response(ctx.live.options.chainJson(currency, now))
        return chainAsOf(ctx.store, currency, pit, now).then((chain) => json(200, chain))
      }
    }
  ]
}
