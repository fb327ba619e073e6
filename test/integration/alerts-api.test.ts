/**
 * Inbound alerts over a real socket (docs/alerts.md): TradingView's text/plain body, the secret's 401s,
 * the duplicate window and its quota, symbols in exchange form, ALERT_SOURCES, the sender allow-list behind
 * a proxy (TRUSTED_PROXY_HOPS=1, X-Forwarded-For), rotation, and forwarding as a SIGNAL on the bus.
 */
import crypto from 'node:crypto'
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { startTestServer, jsonBody, ingestRecords, TEST_ADMIN_TOKEN } from '../helpers/server.js'
import type { SignalEvent } from '../../engine/signals/signal-event.js'
import { TRADINGVIEW_SENDER_IPS } from '../../engine/alerts/sender-allow-list.js'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'

// ajv-formats is CommonJS with `exports.default` (as in test/helpers/openapi-document.ts)
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as unknown as (
  ajv: Ajv2020
) => Ajv2020

let srv: Awaited<ReturnType<typeof startTestServer>>
const HOUR = 3_600_000
const now = Date.now()

interface Key {
  readonly id: string
  readonly key: string
}
let pro: Key
let free: Key
let proSecret = ''
let freeSecret = ''

async function createKey(plan: string): Promise<Key> {
  const res = await fetch(`${srv.base}/v1/admin/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
    body: JSON.stringify({ plan, name: `alerts-${plan}` })
  })
  expect(res.status).toBe(201)
  return jsonBody(res)
}

async function newSecret(k: Key): Promise<string> {
  const res = await fetch(`${srv.base}/v1/alerts/secret`, { method: 'POST', headers: { 'x-api-key': k.key } })
  expect(res.status).toBe(201)
  return (await jsonBody(res)).secret
}

/** POSTs an alert as TradingView does: the message as written, text/plain. */
function alert(body: string | object, opts: { source?: string; forwardedFor?: string } = {}): Promise<Response> {
  return fetch(`${srv.base}/v1/${opts.source ?? 'tradingview'}/webhook`, {
    method: 'POST',
    headers: {
      'content-type': 'text/plain; charset=utf-8',
      ...(opts.forwardedFor ? { 'x-forwarded-for': opts.forwardedFor } : {})
    },
    body: typeof body === 'string' ? body : JSON.stringify(body)
  })
}

const callsToday = async (k: Key): Promise<number> =>
  (await jsonBody(await fetch(`${srv.base}/v1/usage`, { headers: { 'x-api-key': k.key } }))).calls_today

beforeAll(async () => {
  srv = await startTestServer({
    ALERT_SOURCES: 'trendspider',
    // the test client is 127.0.0.1; behind one trusted proxy, X-Forwarded-For names the sender
    ALERT_ALLOWED_IPS: 'tradingview,127.0.0.1',
    TRUSTED_PROXY_HOPS: '1'
  })
  for (const [exchange, symbol, base, price] of [
    ['binance', 'BTCUSDT', 'BTC', 64_000],
    ['binance', 'DOGEUSDT', 'DOGE', 0.1]
  ] as const) {
    const m = { exchange, symbol, base }
    await ingestRecords(srv.base, 'funding', [{ ...m, ts: now - 60_000, funding_rate: 0.0004, interval_hours: 8 }])
    await ingestRecords(srv.base, 'long_short', [{ ...m, ts: now - 60_000, long_short_ratio: 2.5 }])
    await ingestRecords(srv.base, 'trade', [
      { ...m, ts: now - 25 * HOUR, market: 'perp', quote: 'USDT', side: 'buy', price, qty: 10, trade_id: '1' },
      { ...m, ts: now - 60_000, market: 'perp', quote: 'USDT', side: 'buy', price: price * 1.1, qty: 10, trade_id: '2' }
    ])
  }
  pro = await createKey('pro')
  free = await createKey('free')
  proSecret = await newSecret(pro)
  freeSecret = await newSecret(free)
})
afterAll(async () => {
  await srv.stop()
})

describe('POST /v1/{alert_source}/webhook', () => {
  it('answers a TradingView text/plain alert with the confirmation (both shapes) and an alert id', async () => {
    const res = await alert(
      `{"secret":"${proSecret}","symbol":"BINANCE:BTCUSDT.P","direction":"long","timeframe":"15","strategy":"breakout","price":64001.5}`
    )
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('application/json')
    const body = await jsonBody(res)
    expect(body).toMatchObject({
      duplicate: false,
      source: 'tradingview',
      forwarded: false,
      alert: { symbol: 'BINANCE:BTCUSDT.P', timeframe: '15', strategy: 'breakout', price: 64001.5 },
      symbol: 'BTC',
      direction: 'long',
      derivatives: { funding_rate: 0.0004 }
    })
    expect(body.alert_id).toMatch(/^alert_[A-Za-z0-9_-]{16}$/)
    for (const k of ['ts', 'composite', 'confidence', 'action', 'size_mult', 'reasons']) expect(body).toHaveProperty(k)
    for (const k of ['confirmation', 'score', 'smart_money', 'as_of']) expect(body).toHaveProperty(k)
    // the same numbers as GET /v1/confirm
    const confirm = await jsonBody(
      await fetch(`${srv.base}/v1/confirm?symbol=BTC&direction=long`, { headers: { 'x-api-key': pro.key } })
    )
    expect(body.composite).toBe(confirm.composite)
    expect(res.headers.get('ratelimit-limit')).toBe('15000')
    // the answer is what the OpenAPI document says
    const doc = await jsonBody(await fetch(`${srv.base}/v1/openapi.json`))
    const schema = doc.paths['/v1/{alert_source}/webhook'].post.responses['200'].content['application/json'].schema
    const validate = addFormats(new Ajv2020({ strict: false, allErrors: true })).compile(schema)
    expect(validate(body), JSON.stringify(validate.errors)).toBe(true)
  })

  it('reads BTCUSDT and BTC/USDT as BTC, and buy/sell as long/short', async () => {
    for (const [symbol, direction, expected] of [
      ['BTCUSDT', 'buy', 'long'],
      ['BTC/USDT', 'SELL', 'short'],
      ['btc', 'Short', 'short'],
      ['BTCUSDT.P', 'long', 'long']
    ] as const) {
      const body = await jsonBody(await alert({ secret: proSecret, symbol, direction, price: Math.random() + 1 }))
      expect(body, symbol).toMatchObject({ symbol: 'BTC', direction: expected })
    }
  })

  it('answers a repeat within the window with the first answer, duplicate: true, counted once', async () => {
    const sent = { secret: freeSecret, symbol: 'BTCUSDT', direction: 'short', timeframe: '60', price: '63000' }
    const before = await callsToday(free)
    const first = await alert(sent)
    const firstText = await first.text()
    expect(await callsToday(free)).toBe(before + 1)
    const again = await alert(sent)
    expect(again.status).toBe(200)
    const repeat = await jsonBody(again)
    const original = JSON.parse(firstText)
    expect(repeat.duplicate).toBe(true)
    expect(repeat.alert_id).toBe(original.alert_id)
    expect({ ...repeat, duplicate: false }).toEqual(original)
    expect(await callsToday(free)).toBe(before + 1)
    // another price is another alert
    const other = await jsonBody(await alert({ ...sent, price: '63001' }))
    expect(other.duplicate).toBe(false)
    expect(other.alert_id).not.toBe(original.alert_id)
    expect(await callsToday(free)).toBe(before + 2)
  })

  it('answers 400 for a body that is not JSON, naming the field at fault otherwise', async () => {
    const notJson = await alert(`{"secret":"${proSecret}","symbol":"BTC","direction":"long","price":{{close}}}`)
    expect(notJson.status).toBe(400)
    expect((await jsonBody(notJson)).error.code).toBe('invalid_body')
    for (const [fields, param] of [
      [{ direction: 'up' }, 'direction'],
      [{ direction: undefined }, 'direction'],
      [{ symbol: undefined }, 'symbol'],
      [{ price: 'NaN' }, 'price'],
      [{ timeframe: '15 min' }, 'timeframe'],
      [{ ticker: 'ETHUSDT' }, 'ticker'],
      [{ symbol: 'ETH/BTC' }, 'symbol'],
      [{ symbol: 'NOPEUSDT' }, 'symbol']
    ] as const) {
      const res = await alert({ secret: proSecret, symbol: 'BTC', direction: 'long', ...fields })
      expect(res.status, JSON.stringify(fields)).toBe(400)
      expect((await jsonBody(res)).error.param, JSON.stringify(fields)).toBe(param)
    }
  })

  it('answers one 401 for a missing, wrong, malformed or revoked secret', async () => {
    const fields = { symbol: 'BTC', direction: 'long' }
    const wrong = proSecret.slice(0, -4) + (proSecret.endsWith('AAAA') ? 'BBBB' : 'AAAA')
    const answers: string[] = []
    for (const body of [
      fields,
      { ...fields, secret: wrong },
      { ...fields, secret: 'hunter2' },
      { ...fields, secret: 7 }
    ]) {
      const res = await alert(body)
      expect(res.status).toBe(401)
      answers.push(await res.text())
    }
    expect(new Set(answers).size).toBe(1)
    expect(JSON.parse(answers[0]!).error.code).toBe('unauthorized')
    const gone = await createKey('trader')
    const goneSecret = await newSecret(gone)
    expect((await alert({ ...fields, secret: goneSecret })).status).toBe(200)
    await fetch(`${srv.base}/v1/admin/keys/${gone.id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` }
    })
    const revoked = await alert({ ...fields, secret: goneSecret, price: 2 })
    expect(revoked.status).toBe(401)
    expect(await revoked.text()).toBe(answers[0])
  })

  it('serves the sources of ALERT_SOURCES and answers 404 for others', async () => {
    const res = await alert({ secret: proSecret, symbol: 'DOGEUSDT', direction: 'long' }, { source: 'trendspider' })
    expect(res.status).toBe(200)
    expect(await jsonBody(res)).toMatchObject({ source: 'trendspider', symbol: 'DOGE' })
    const unknown = await alert({ secret: proSecret, symbol: 'BTC', direction: 'long' }, { source: 'elsewhere' })
    expect(unknown.status).toBe(404)
    expect((await jsonBody(unknown)).error.code).toBe('not_found')
  })

  it('refuses senders outside ALERT_ALLOWED_IPS (the client address behind one trusted proxy)', async () => {
    const fields = { secret: proSecret, symbol: 'BTC', direction: 'long', strategy: 'allow-list' }
    const outside = await alert(fields, { forwardedFor: '203.0.113.9' })
    expect(outside.status).toBe(403)
    expect((await jsonBody(outside)).error.message).toContain('203.0.113.9')
    // the proxy appends the address it saw: the spoofed first entry is not the client
    const spoofed = await alert(fields, { forwardedFor: `${TRADINGVIEW_SENDER_IPS[0]}, 203.0.113.9` })
    expect(spoofed.status).toBe(403)
    const tradingview = await alert(fields, { forwardedFor: `203.0.113.9, ${TRADINGVIEW_SENDER_IPS[1]}` })
    expect(tradingview.status).toBe(200)
  })

  it('stops the old secret when the key rotates it', async () => {
    const k = await createKey('trader')
    const old = await newSecret(k)
    const fields = { symbol: 'BTC', direction: 'long', strategy: 'rotation' }
    expect((await alert({ ...fields, secret: old })).status).toBe(200)
    const fresh = await newSecret(k)
    expect(fresh).not.toBe(old)
    expect((await alert({ ...fields, secret: old, price: 1 })).status).toBe(401)
    expect((await alert({ ...fields, secret: fresh, price: 1 })).status).toBe(200)
    // removed: 401 until a new one exists
    const del = await fetch(`${srv.base}/v1/alerts/secret`, { method: 'DELETE', headers: { 'x-api-key': k.key } })
    expect((await jsonBody(del)).has_secret).toBe(false)
    expect((await alert({ ...fields, secret: fresh, price: 2 })).status).toBe(401)
  })

  it('forwards an alert as a SIGNAL event of the key when the key asks for it', async () => {
    // the server's signal bus: what the store writer, the push stream and webhook delivery read
    const bus = srv.running.ctx.signals!.bus
    expect(srv.running.ctx.alerts!.bus).toBe(bus)
    const events: SignalEvent[] = []
    // only the alerts' events: the bus also carries the signal engine's own (a live verdict that moves)
    const off = bus.subscribe((e) => {
      if (e.source.startsWith('alert:')) events.push(e)
    })
    try {
      const refused = await fetch(`${srv.base}/v1/alerts/settings`, {
        method: 'PUT',
        headers: { 'x-api-key': free.key },
        body: '{"forward":true}'
      })
      expect(refused.status).toBe(403)
      expect((await jsonBody(refused)).error.message).toContain('pro plan')
      const set = await fetch(`${srv.base}/v1/alerts/settings`, {
        method: 'PUT',
        headers: { 'x-api-key': pro.key },
        body: '{"forward":true}'
      })
      expect(await jsonBody(set)).toMatchObject({ key_id: pro.id, forward: true, has_secret: true })
      const body = await jsonBody(
        await alert({ secret: proSecret, symbol: 'BYBIT:DOGEUSDT.P', direction: 'short', strategy: 'fwd' })
      )
      expect(body.forwarded).toBe(true)
      expect(events).toEqual([
        {
          id: body.alert_id,
          event: 'SIGNAL',
          ts: Date.parse(body.received_at),
          symbol: 'DOGE',
          direction: 'short',
          confidence: body.confirmation,
          composite: body.composite,
          action: body.action,
          source: 'alert:tradingview',
          key_id: pro.id
        }
      ])
      // a duplicate is not forwarded again
      await alert({ secret: proSecret, symbol: 'BYBIT:DOGEUSDT.P', direction: 'short', strategy: 'fwd' })
      expect(events).toHaveLength(1)
    } finally {
      off()
    }
  })

  it('refuses a symbol outside the plan (403) and an exhausted quota (429) without counting them', async () => {
    const k = await createKey('free')
    const secret = await newSecret(k)
    const outside = await alert({ secret, symbol: 'DOGE', direction: 'long' })
    expect(outside.status).toBe(403)
    expect((await jsonBody(outside)).error.param).toBe('symbol')
    expect(await callsToday(k)).toBe(0)
    const quota = srv.running.ctx.quota
    while (quota.used(k.id) < 200) quota.take(k.id, 200)
    const over = await alert({ secret, symbol: 'BTC', direction: 'long' })
    expect(over.status).toBe(429)
    expect((await jsonBody(over)).error.code).toBe('quota_exceeded')
    expect(over.headers.get('retry-after')).toMatch(/^\d+$/)
    expect(await callsToday(k)).toBe(200)
  })
})

describe('alert secrets in the store', () => {
  it('stores only the digest, and a reload from the store keeps the secret working', async () => {
    const ctx = srv.running.ctx
    const rows = await ctx.store.query<{ key_id: string; secret_sha256: string }>(
      'SELECT key_id, secret_sha256 FROM alert_settings FINAL WHERE key_id = {id:String}',
      { id: free.id }
    )
    expect(rows).toHaveLength(1)
    const random = freeSecret.slice(`tw_alert_${free.id}_`.length)
    expect(rows[0]!.secret_sha256).toBe(crypto.createHash('sha256').update(random).digest('hex'))
    const all = JSON.stringify(await ctx.store.query('SELECT * FROM alert_settings'))
    expect(all).not.toContain(random)
    await ctx.alerts!.settings.load()
    expect(ctx.alerts!.settings.authenticate(freeSecret)).toBe(free.id)
    expect((await alert({ secret: freeSecret, symbol: 'BTC', direction: 'long', strategy: 'reload' })).status).toBe(200)
  })
})

describe('/v1/alerts/settings', () => {
  it("shows the key's settings and alert paths, never the secret", async () => {
    const res = await fetch(`${srv.base}/v1/alerts/settings`, { headers: { 'x-api-key': free.key } })
    const body = await jsonBody(res)
    expect(body).toMatchObject({
      key_id: free.id,
      has_secret: true,
      forward: false,
      forwarding_available: false,
      webhook_paths: ['/v1/tradingview/webhook', '/v1/trendspider/webhook'],
      duplicate_window_s: 60,
      sender_allow_list: true
    })
    expect(JSON.stringify(body)).not.toContain('tw_alert_')
    expect((await fetch(`${srv.base}/v1/alerts/settings`)).status).toBe(401)
  })
})
