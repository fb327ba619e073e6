/**
 * @module
 * Options endpoints. `GET /v1/options/chain` serves the cached snapshot of the live chain: a lookup. One
 * response object per cached body, so a hot read allocates none and the synthetic label's copy (cached by
 * the response's identity, server/app.ts) is reused.
 */
import type { OptionsCurrency } from '../../engine/options/chain-types.js'
import { ChainQuery, ChainResponse } from '../../schemas/api/options.js'
import type { ServerContext } from '../context.js'
import { JSON_HEADERS, type HttpResponse, type Route } from '../http/types.js'

export function optionsRoutes(ctx: Pick<ServerContext, 'live'>): Route[] {
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
        "Instruments are parsed from Deribit names (expiry 08:00 UTC); expired ones are excluded. Max pain per expiry: the strike among that expiry's strikes with the lowest payout to holders (calls below plus puts above, times OI); ties go to the lower strike.",
      tags: ['options'],
      query: ChainQuery,
      response: ChainResponse,
      handler: (req) => response(ctx.live.options.chainJson(req.q['currency'] as OptionsCurrency, Date.now()))
    }
  ]
}
