import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { RECORD_KINDS } from '../../engine/records/fields.js'
import { Type } from '@sinclair/typebox'
import { startTestServer, jsonBody, TEST_ADMIN_TOKEN } from '../helpers/server.js'
import { App } from '../../server/app.js'
import { AccessControl } from '../../server/access/access-control.js'
import { startHttpServer, type HttpServer } from '../../server/http/uws-server.js'
import { json, type Route } from '../../server/http/types.js'
import { IpThrottle } from '../../engine/access/ip-throttle.js'
import { QuotaCounter } from '../../engine/access/quota.js'
import { secondsToUtcMidnight } from '../../engine/access/utc-day.js'
import { silentLogger } from '../../engine/log.js'
import { EnumParam } from '../../schemas/api/params.js'

let srv: Awaited<ReturnType<typeof startTestServer>>
const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' }

async function createKey(plan: string, name = 't'): Promise<{ id: string; key: string }> {
  const res = await fetch(`${srv.base}/v1/admin/keys`, {
    method: 'POST',
    headers: admin,
    body: JSON.stringify({ plan, name })
  })
  expect(res.status).toBe(201)
  return jsonBody(res)
}

// A second app on the same store and key registry, with hot test routes standing in for the data
// endpoints that later issues add: the access rules under test do not depend on what a handler returns.
let test: { server: HttpServer; base: string; quota: QuotaCounter }
const testRoutes: Route[] = [
  {
    method: 'GET',
    path: '/v1/test/chain',
    access: 'public',
    feature: 'options',
    summary: 'public',
    tags: ['test'],
    query: Type.Object({ currency: EnumParam(['BTC', 'ETH', 'DOGE'] as const, { description: 'c', default: 'BTC' }) }),
    symbolParam: 'currency',
    handler: (r) => json(200, { currency: r.q['currency'] })
  },
  {
    method: 'GET',
    path: '/v1/test/screener',
    access: 'key',
    feature: 'screener',
    summary: 'keyed',
    tags: ['test'],
    handler: () => json(200, { ok: true })
  }
]

function startTestApp(
  hops: number,
  perMinute: number
): Promise<{ server: HttpServer; base: string; quota: QuotaCounter }> {
  const quota = new QuotaCounter(srv.running.ctx.store)
  const access = new AccessControl({
    registry: srv.running.ctx.keys,
    quota,
    throttle: new IpThrottle(perMinute),
    adminToken: TEST_ADMIN_TOKEN,
    trustedProxyHops: hops
  })
  const app = new App(testRoutes, silentLogger(), access)
  return startHttpServer(app, '127.0.0.1', 0).then((server) => ({
    server,
    base: `http://127.0.0.1:${server.port}`,
    quota
  }))
}

beforeAll(async () => {
  srv = await startTestServer()
  test = await startTestApp(0, 5)
})
afterAll(async () => {
  test.server.close()
  await srv.stop()
})

describe('API keys', () => {
  it('are created, listed without secrets, and stop working at once when revoked', async () => {
    const { id, key } = await createKey('pro', 'desk')
    expect(key).toMatch(new RegExp(`^tw_live_${id}_[A-Za-z0-9_-]{43}$`))
    const list = await jsonBody(await fetch(`${srv.base}/v1/admin/keys`, { headers: admin }))
    const entry = list.keys.find((k: { id: string }) => k.id === id)
    expect(entry).toMatchObject({ id, name: 'desk', plan: 'pro', revoked_at: null })
    expect(JSON.stringify(list)).not.toContain(key.slice(-43))
    expect((await fetch(`${srv.base}/v1/usage`, { headers: { 'x-api-key': key } })).status).toBe(200)
    const del = await fetch(`${srv.base}/v1/admin/keys/${id}`, { method: 'DELETE', headers: admin })
    expect(await jsonBody(del)).toEqual({ id, revoked: true })
    expect((await fetch(`${srv.base}/v1/usage`, { headers: { 'x-api-key': key } })).status).toBe(401)
  })

  it('validate the creation body and answer 404 for unknown ids', async () => {
    const bad = await fetch(`${srv.base}/v1/admin/keys`, { method: 'POST', headers: admin, body: '{"plan":"gold"}' })
    expect(bad.status).toBe(400)
    expect((await jsonBody(bad)).error).toEqual({
      code: 'invalid_parameter',
      message: 'plan must be one of free, trader, pro, enterprise',
      param: 'plan'
    })
    const extra = await fetch(`${srv.base}/v1/admin/keys`, {
      method: 'POST',
      headers: admin,
      body: '{"plan":"free","x":1}'
    })
    expect((await jsonBody(extra)).error.param).toBe('x')
    const notJson = await fetch(`${srv.base}/v1/admin/keys`, { method: 'POST', headers: admin, body: '{plan' })
    expect((await jsonBody(notJson)).error.code).toBe('invalid_body')
    const gone = await fetch(`${srv.base}/v1/admin/keys/zzzzzzzzzz`, { method: 'DELETE', headers: admin })
    expect(gone.status).toBe(404)
    expect((await fetch(`${srv.base}/v1/admin/keys`)).status).toBe(401)
  })

  it('answer missing, malformed, unknown, wrong-secret and revoked keys with the same 401', async () => {
    const { id, key } = await createKey('free')
    const revoked = await createKey('free')
    await fetch(`${srv.base}/v1/admin/keys/${revoked.id}`, { method: 'DELETE', headers: admin })
    const variants: (string | undefined)[] = [
      undefined,
      'nonsense',
      `tw_live_${id}_short`,
      `tw_live_aaaaaaaaaa_${'A'.repeat(43)}`,
      `tw_live_${id}_${'B'.repeat(43)}`,
      revoked.key
    ]
    const bodies = new Set<string>()
    for (const v of variants) {
      const res = await fetch(`${srv.base}/v1/usage`, { headers: v === undefined ? {} : { 'x-api-key': v } })
      expect(res.status, String(v)).toBe(401)
      expect(res.headers.get('www-authenticate')).toBe('ApiKey realm="tidewatch", header="X-API-Key"')
      bodies.add(await res.text())
    }
    expect(bodies.size).toBe(1)
    expect((await fetch(`${srv.base}/v1/usage`, { headers: { 'x-api-key': key } })).status).toBe(200)
  })
})

describe('plans', () => {
  it('answer 403 naming the plan that has a missing feature', async () => {
    const free = await createKey('free')
    const res = await fetch(`${test.base}/v1/test/screener`, { headers: { 'x-api-key': free.key } })
    expect(res.status).toBe(403)
    expect((await jsonBody(res)).error.message).toBe(
      '/v1/test/screener needs the trader plan or higher; this key is on the free plan'
    )
    const trader = await createKey('trader')
    expect((await fetch(`${test.base}/v1/test/screener`, { headers: { 'x-api-key': trader.key } })).status).toBe(200)
  })

  it('answer 403 for a symbol outside the plan', async () => {
    const free = await createKey('free')
    const res = await fetch(`${test.base}/v1/test/chain?currency=DOGE`, { headers: { 'x-api-key': free.key } })
    expect(res.status).toBe(403)
    expect((await jsonBody(res)).error).toMatchObject({ code: 'forbidden', param: 'currency' })
    expect(
      (await fetch(`${test.base}/v1/test/chain?currency=ETH`, { headers: { 'x-api-key': free.key } })).status
    ).toBe(200)
  })
})

describe('daily quota', () => {
  it('is exact under concurrency: 250 calls on a fresh free key give 200 successes and 50 x 429', async () => {
    const { id, key } = await createKey('free')
    const results = await Promise.all(
      Array.from({ length: 250 }, () => fetch(`${test.base}/v1/test/chain`, { headers: { 'x-api-key': key } }))
    )
    const ok = results.filter((r) => r.status === 200)
    const limited = results.filter((r) => r.status === 429)
    expect(ok).toHaveLength(200)
    expect(limited).toHaveLength(50)
    const remaining = ok.map((r) => Number(r.headers.get('ratelimit-remaining'))).sort((a, b) => a - b)
    expect(remaining).toEqual(Array.from({ length: 200 }, (_, i) => i))
    const retry = Number(limited[0]!.headers.get('retry-after'))
    expect(Math.abs(retry - secondsToUtcMidnight(Date.now()))).toBeLessThanOrEqual(5)
    expect(limited[0]!.headers.get('ratelimit-limit')).toBe('200')
    expect((await jsonBody(limited[0]!)).error.code).toBe('quota_exceeded')
    expect(test.quota.used(id)).toBe(200)
  })

  it("keeps today's counts across a restart (persisted in the store)", async () => {
    const { id, key } = await createKey('trader')
    for (let i = 0; i < 7; i++) await fetch(`${test.base}/v1/test/chain`, { headers: { 'x-api-key': key } })
    await test.quota.flush()
    const fresh = new QuotaCounter(srv.running.ctx.store)
    await fresh.load()
    expect(fresh.used(id)).toBe(7)
    expect(fresh.take(id, 3000)).toEqual({ ok: true, used: 8, remaining: 2992 })
  })

  it('does not count /v1/usage, and reports plan, calls and reset', async () => {
    const { id, key } = await createKey('free', 'bot')
    await fetch(`${test.base}/v1/test/chain`, { headers: { 'x-api-key': key } })
    const res = await fetch(`${srv.base}/v1/usage`, { headers: { 'x-api-key': key } })
    await fetch(`${srv.base}/v1/usage`, { headers: { 'x-api-key': key } })
    const body = await jsonBody(res)
    // the test app counts in its own counter; the server's counter saw only uncounted usage calls
    expect(body).toMatchObject({ key_id: id, name: 'bot', plan: 'free', calls_today: 0, limit: 200, remaining: 200 })
    expect(body).toMatchObject({ history_days: 30, symbols: ['BTC', 'ETH', 'SOL'] })
    expect(new Date(body.resets_at).getUTCHours()).toBe(0)
    expect(res.headers.get('ratelimit-limit')).toBe('200')
  })
})

describe('public endpoints', () => {
  it("throttle per client IP without a key and use the key's limits with one", async () => {
    const results = []
    for (let i = 0; i < 6; i++) results.push(await fetch(`${test.base}/v1/test/chain`))
    expect(results.slice(0, 5).map((r) => r.status)).toEqual([200, 200, 200, 200, 200])
    expect(results[5]!.status).toBe(429)
    expect((await jsonBody(results[5]!)).error.code).toBe('rate_limited')
    expect(Number(results[5]!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    expect(results[0]!.headers.get('ratelimit-limit')).toBe('5')
    // a spoofed X-Forwarded-For does not escape the throttle when no proxy is trusted
    expect((await fetch(`${test.base}/v1/test/chain`, { headers: { 'x-forwarded-for': '9.9.9.9' } })).status).toBe(429)
    const { key } = await createKey('pro')
    expect((await fetch(`${test.base}/v1/test/chain`, { headers: { 'x-api-key': key } })).status).toBe(200)
  })

  it('take the client from X-Forwarded-For only behind a trusted proxy', async () => {
    const proxied = await startTestApp(1, 2)
    const call = (xff: string) => fetch(`${proxied.base}/v1/test/chain`, { headers: { 'x-forwarded-for': xff } })
    expect([(await call('1.1.1.1')).status, (await call('1.1.1.1')).status, (await call('1.1.1.1')).status]).toEqual([
      200, 200, 429
    ])
    expect((await call('spoofed, 2.2.2.2')).status).toBe(200) // the proxy's own entry (rightmost) is used
    proxied.server.close()
  })

  it('reject unknown and repeated query parameters', async () => {
    const { key } = await createKey('pro')
    const h = { 'x-api-key': key }
    const unknown = await jsonBody(await fetch(`${test.base}/v1/test/chain?curency=BTC`, { headers: h }))
    expect(unknown.error).toEqual({
      code: 'invalid_parameter',
      message: "unknown parameter 'curency'; this endpoint takes currency",
      param: 'curency'
    })
    const twice = await jsonBody(await fetch(`${test.base}/v1/test/chain?currency=BTC&currency=ETH`, { headers: h }))
    expect(twice.error.message).toBe('parameter currency is given more than once')
    const bad = await jsonBody(await fetch(`${test.base}/v1/test/chain?currency=XRP`, { headers: h }))
    expect(bad.error.message).toBe('currency must be one of BTC, ETH, DOGE')
  })
})

describe('GET /v1/openapi.json', () => {
  it('documents every route that exists and nothing that does not', async () => {
    const doc = await jsonBody(await fetch(`${srv.base}/v1/openapi.json`))
    expect(doc.openapi).toBe('3.1.0')
    const documented = Object.entries(doc.paths).flatMap(([p, ops]) =>
      Object.keys(ops as object).map((m) => `${m.toUpperCase()} ${p}`)
    )
    const served = srv.running.app.routes.map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, '{$1}')}`)
    expect(new Set(documented)).toEqual(new Set(served))
    for (const route of served) {
      const [method, p] = route.split(' ') as [string, string]
      const probe = await fetch(`${srv.base}${p.replace(/\{\w+\}/g, 'x')}`, { method })
      expect(probe.status, route).not.toBe(405) // the documented method is served at that path
      if (!p.includes('{')) expect(probe.status, route).not.toBe(404)
    }
    const usage = doc.paths['/v1/usage'].get
    expect(usage.security).toEqual([{ ApiKey: [] }])
    expect(Object.keys(usage.responses).sort()).toEqual(['200', '400', '401', '403', '429', '500'])
    const ingest = doc.paths['/v1/admin/ingest/{kind}'].post
    expect(ingest.responses['201']).toBeDefined()
    expect(ingest.responses['413']).toBeDefined()
    // the record kind is one of the record catalog's kinds
    expect(ingest.parameters).toMatchObject([
      { name: 'kind', in: 'path', required: true, schema: { type: 'string', enum: [...RECORD_KINDS] } }
    ])
  })
})
