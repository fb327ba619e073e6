/**
 * `GET /v1/options/chain` on the live chain is answered synchronously (no promise per request, so the HTTP
 * adapter ends the response inside uWS' handler) with the live book's cached bytes, one response object per
 * cached body.
 */
import { describe, expect, it } from 'vitest'
import { LiveState } from '../../engine/live/live-state.js'
import type { OptionQuoteRecord } from '../../engine/records/types.js'
import type { Store } from '../../engine/store/store.js'
import { formatExpiryCode } from '../../engine/options/instrument.js'
import { optionsRoutes } from '../../server/routes/options.js'
import type { HttpResponse, RouteRequest } from '../../server/http/types.js'

const STORE = { kind: 'chdb', query: async () => [] } as unknown as Store
const DAY = 86_400_000

function quote(strike: number, type: 'C' | 'P', ts: number): OptionQuoteRecord {
  const expiry = Math.floor(ts / DAY) * DAY + 2 * DAY + 8 * 3_600_000
  return {
    kind: 'option_quote',
    ts,
    exchange: 'deribit',
    instrument: `BTC-${formatExpiryCode(expiry)}-${strike}-${type}`,
    underlying_price: 100_000,
    mark_price: 0.01,
    open_interest: 5,
    volume_24h: 1,
    mark_iv: 50
  }
}

describe('GET /v1/options/chain, live', () => {
  it('answers synchronously with the live book bytes, the same response object while the chain is unchanged', () => {
    const live = new LiveState(STORE)
    const now = Date.now()
    live.apply([quote(90_000, 'C', now), quote(110_000, 'P', now)])
    const handler = optionsRoutes({ live, store: STORE })[0]!.handler
    const req = { q: { currency: 'BTC' }, plan: null } as unknown as RouteRequest
    const a = handler(req)
    expect(a).not.toBeInstanceOf(Promise)
    const res = a as HttpResponse
    expect(res.status).toBe(200)
    expect((res.body as Buffer).equals(live.options.chainJson('BTC', Date.now()))).toBe(true)
    expect(JSON.parse(String(res.body)).currency).toBe('BTC')
    expect(handler(req)).toBe(res)
  })
})
