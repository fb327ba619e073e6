/**
 * The confirm route's answer cache: cached answers are served synchronously as prebuilt bytes; concurrent
 * misses share one computation. The freshness rule itself: confirm-answers.test.ts.
 */
import { describe, expect, it } from 'vitest'
import { silentLogger } from '../../engine/log.js'
import { LiveState } from '../../engine/live/live-state.js'
import type { FundingRecord } from '../../engine/records/types.js'
import type { Store } from '../../engine/store/store.js'
import { confirmRoutes } from '../../server/routes/confirm.js'
import type { HttpResponse, RouteRequest } from '../../server/http/types.js'

/** A store whose queries (the funding history) wait until `release()`; counts them. */
function gatedStore(): { store: Store; release: () => void; queries: () => number } {
  let open: () => void = () => undefined
  let gate = new Promise<void>((r) => (open = r))
  let n = 0
  const store = {
    kind: 'chdb',
    async query() {
      n++
      await gate
      return []
    }
  } as unknown as Store
  return {
    store,
    release: () => {
      open()
      gate = Promise.resolve()
    },
    queries: () => n
  }
}

function funding(rate: number, ts: number): FundingRecord {
  return {
    kind: 'funding',
    ts,
    exchange: 'binance',
    symbol: 'BTCUSDT',
    base: 'BTC',
    funding_rate: rate,
    interval_hours: 8
  }
}

const req = { q: { symbol: 'BTC', direction: 'long' }, plan: null } as unknown as RouteRequest

function fundingOf(res: HttpResponse): number {
  return (JSON.parse(res.body as string) as { derivatives: { funding_rate: number } }).derivatives.funding_rate
}

describe('confirm answer cache', () => {
  it('shares one computation among concurrent misses, and serves the cached answer synchronously', async () => {
    const g = gatedStore()
    const live = new LiveState(g.store)
    live.apply([funding(0.0001, Date.now())])
    const handler = confirmRoutes({ live, log: silentLogger(), store: g.store })[0]!.handler
    const a = handler(req)
    const b = handler(req)
    expect(a).toBeInstanceOf(Promise)
    expect(b).toBe(a) // joined
    g.release()
    expect(fundingOf(await a)).toBe(0.0001)
    const c = handler(req)
    expect(c).not.toBeInstanceOf(Promise) // a cache hit is answered synchronously
    expect(fundingOf(c as HttpResponse)).toBe(0.0001)
    // one computation: one funding history load, which is two statements (engine/live/funding-tail.ts)
    expect(g.queries()).toBe(2)
  })

  it('serves the answer bytes prebuilt: the same Buffer on every hit, equal to the answer encoded', async () => {
    const g = gatedStore()
    g.release()
    const live = new LiveState(g.store)
    live.apply([funding(0.0002, Date.now())])
    const handler = confirmRoutes({ live, log: silentLogger(), store: g.store })[0]!.handler
    const first = await handler(req)
    const again = handler(req) as HttpResponse
    expect(Buffer.isBuffer(first.body)).toBe(true)
    expect(again.body).toBe(first.body) // no encoding per request
    expect((first.body as Buffer).equals(Buffer.from(JSON.stringify(JSON.parse(String(first.body)))))).toBe(true)
  })
})
