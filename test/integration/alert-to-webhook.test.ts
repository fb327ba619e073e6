/**
 * An inbound alert forwarded to the key's own outbound webhook, end to end over real sockets (docs/alerts.md
 * "Forwarding as a SIGNAL event", docs/webhooks.md): the real server in process, a TradingView-style text/plain
 * alert on a pro key with `forward: true`, and two HTTPS receivers, one per key, both registered for SIGNAL on
 * BTC. The alert's SIGNAL event reaches the alert key's receiver exactly once, signed in both schemes (checked
 * here as a third party would, from the raw secret: node:crypto and the `standardwebhooks` library), and is
 * logged as delivered; the other key's receiver gets nothing and its delivery log stays empty.
 *
 * Trust: the receivers' certificate comes from a test CA, trusted in this file's process by
 * test/helpers/trust-in-process.ts.
 */
import crypto from 'node:crypto'
import { Webhook } from 'standardwebhooks'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { MIN_INTERVAL_MS } from '../../engine/signals/signal-engine.js'
import type { SignalEvent } from '../../engine/signals/signal-event.js'
import { ingestRecords, jsonBody, startTestServer, TEST_ADMIN_TOKEN } from '../helpers/server.js'
import { makeTestCa, WebhookReceiver, type TestCa } from '../helpers/webhook-receiver.js'
import { trustInProcess } from '../helpers/trust-in-process.js'

const HOUR = 3_600_000
const SECRET_A = 'alert-key-a-webhook-secret-0123'
const SECRET_B = 'other-key-b-webhook-secret-4567'
/** bound on every wait: a loopback delivery takes milliseconds, the 2-core machine may be busy */
const WAIT_MS = 15_000

interface Key {
  readonly id: string
  readonly key: string
}

describe('a forwarded TradingView alert is delivered to its key’s webhook', () => {
  let srv: Awaited<ReturnType<typeof startTestServer>>
  let ca: TestCa
  let untrust: () => void
  let receiverA: WebhookReceiver
  let receiverB: WebhookReceiver
  let urlA: string
  let urlB: string

  const api = async (method: string, path: string, key: string | null, body?: unknown) => {
    const res = await fetch(`${srv.base}${path}`, {
      method,
      headers: key ? { 'x-api-key': key } : { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    return { status: res.status, body: await jsonBody(res) }
  }

  beforeAll(async () => {
    ca = makeTestCa()
    untrust = trustInProcess(ca.ca)
    receiverA = new WebhookReceiver(ca, SECRET_A)
    receiverB = new WebhookReceiver(ca, SECRET_B)
    urlA = await receiverA.start()
    urlB = await receiverB.start()
    srv = await startTestServer({ WEBHOOK_ALLOW_PRIVATE: '127.0.0.1/32', WEBHOOK_TIMEOUT_MS: '5000' })
  })
  afterAll(async () => {
    await srv?.stop()
    for (const r of [receiverA, receiverB]) if (r?.port) await r.stop()
    untrust?.()
    ca?.cleanup()
  })

  it('A’s receiver gets one signed SIGNAL delivery; B’s receiver, same event and symbol, gets none', async () => {
    // confirm inputs for BTC (as test/integration/alerts-api.test.ts seeds them)
    const now = Date.now()
    const m = { exchange: 'binance', symbol: 'BTCUSDT', base: 'BTC' }
    await ingestRecords(srv.base, 'funding', [{ ...m, ts: now - 60_000, funding_rate: 0.0004, interval_hours: 8 }])
    await ingestRecords(srv.base, 'long_short', [{ ...m, ts: now - 60_000, long_short_ratio: 2.5 }])
    await ingestRecords(srv.base, 'trade', [
      { ...m, ts: now - 25 * HOUR, market: 'perp', quote: 'USDT', side: 'buy', price: 64_000, qty: 10, trade_id: '1' },
      { ...m, ts: now - 60_000, market: 'perp', quote: 'USDT', side: 'buy', price: 70_400, qty: 10, trade_id: '2' }
    ])
    // The signal engine re-evaluates BTC after these records and may fire its own (keyless) SIGNAL for BTC,
    // which every BTC SIGNAL webhook would receive. Register only once it has settled: all records applied
    // (at `appliedAt`), then a whole pass of the engine begun at least MIN_INTERVAL_MS later has ended well.
    // Such a pass evaluates BTC with every record unless an evaluation begun after `appliedAt` already did
    // (a dirty base is due again MIN_INTERVAL_MS after its last evaluation; passes run one at a time), and
    // nothing marks BTC dirty again (engine/signals/signal-engine.ts).
    const { live, signals } = srv.running.ctx
    await vi.waitFor(() => expect(live.queued === 0 && live.counters.applied >= 4).toBe(true), { timeout: WAIT_MS })
    const appliedAt = Date.now()
    const engine = signals!.engine
    const pass = engine.pass.bind(engine)
    let settled = false
    const spy = vi.spyOn(engine, 'pass').mockImplementation(async () => {
      const begun = Date.now()
      const ok = await pass()
      if (ok && begun >= appliedAt + MIN_INTERVAL_MS) settled = true
      return ok
    })
    try {
      await vi.waitFor(() => expect(settled).toBe(true), { timeout: WAIT_MS })
    } finally {
      spy.mockRestore()
    }
    expect(engine.stateOf('BTC', 'long')).toBeDefined()

    const keyA: Key = (await api('POST', '/v1/admin/keys', null, { plan: 'pro', name: 'alert-key-a' })).body
    const keyB: Key = (await api('POST', '/v1/admin/keys', null, { plan: 'pro', name: 'other-key-b' })).body
    const register = async (k: Key, url: string, secret: string): Promise<number> => {
      const res = await api('POST', '/v1/webhooks', k.key, { url, events: ['SIGNAL'], symbols: ['BTC'], secret })
      expect(res.status, JSON.stringify(res.body)).toBe(201)
      return res.body.webhook_id as number
    }
    const webhookA = await register(keyA, urlA, SECRET_A)
    const webhookB = await register(keyB, urlB, SECRET_B)

    const created = await api('POST', '/v1/alerts/secret', keyA.key)
    expect(created.status).toBe(201)
    const alertSecret = created.body.secret as string
    const settings = await api('PUT', '/v1/alerts/settings', keyA.key, { forward: true })
    expect(settings.status).toBe(200)
    expect(settings.body).toMatchObject({ key_id: keyA.id, forward: true, has_secret: true })

    // everything published on the server's bus from here on (engine events included)
    const published: SignalEvent[] = []
    const off = signals!.bus.subscribe((e) => published.push(e))
    try {
      const res = await fetch(`${srv.base}/v1/tradingview/webhook`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain; charset=utf-8' },
        body: JSON.stringify({ secret: alertSecret, symbol: 'BINANCE:BTCUSDT.P', direction: 'long' })
      })
      const answer = await jsonBody(res)
      expect(res.status, JSON.stringify(answer)).toBe(200)
      expect(answer).toMatchObject({ forwarded: true, duplicate: false, symbol: 'BTC', direction: 'long' })
      expect(answer.alert_id).toMatch(/^alert_[A-Za-z0-9_-]{16}$/)

      await vi.waitFor(() => expect(receiverA.received.length).toBeGreaterThanOrEqual(1), { timeout: WAIT_MS })
      // the delivery log marks it delivered once the 2xx attempt is stored
      const logA = await vi.waitFor(
        async () => {
          const log = await api('GET', `/v1/webhooks/${webhookA}/deliveries`, keyA.key)
          expect(log.status).toBe(200)
          expect(log.body.deliveries[0]?.state).toBe('delivered')
          return log.body
        },
        { timeout: WAIT_MS }
      )
      expect(receiverA.received).toHaveLength(1)
      const got = receiverA.received[0]!

      // the body: docs/webhooks.md "Deliveries", fields in order, the alert's event (docs/alerts.md)
      expect(got.body.toString('utf8')).toBe(
        JSON.stringify({
          event: 'SIGNAL',
          ts: answer.received_at,
          symbol: 'BTC',
          direction: 'long',
          confidence: answer.confirmation,
          composite: answer.composite,
          webhook_id: webhookA
        })
      )
      expect(got.headers).toMatchObject({
        'content-type': 'application/json',
        'user-agent': 'ServiceAPI-Webhook/1.0',
        'x-service-event': 'SIGNAL'
      })

      // X-Service-Signature: hex HMAC-SHA256 of the raw body, keyed with the text of SHA-256 hex of the secret
      const keyText = crypto.createHash('sha256').update(SECRET_A).digest('hex')
      const want = crypto.createHmac('sha256', keyText).update(got.body).digest('hex')
      expect(got.headers['x-service-signature']).toBe(want)
      // Standard Webhooks: secret whsec_ + base64(key text); verify() throws on a bad id/timestamp/signature
      const standard = new Webhook('whsec_' + Buffer.from(keyText).toString('base64'))
      const verified = standard.verify(got.body.toString('utf8'), {
        'webhook-id': got.headers['webhook-id'] ?? '',
        'webhook-timestamp': got.headers['webhook-timestamp'] ?? '',
        'webhook-signature': got.headers['webhook-signature'] ?? ''
      })
      expect(verified).toMatchObject({ event: 'SIGNAL', symbol: 'BTC', webhook_id: webhookA })
      // and B's secret does not verify A's delivery
      const otherKey = crypto.createHash('sha256').update(SECRET_B).digest('hex')
      expect(crypto.createHmac('sha256', otherKey).update(got.body).digest('hex')).not.toBe(want)

      // webhook-id is the delivery id (msg_ + 32 hex, docs/webhooks.md), not the alert id; the alert id is
      // the forwarded event's id (docs/alerts.md), which the delivery log shows as event_id
      expect(logA.deliveries).toHaveLength(1)
      const delivery = logA.deliveries[0]
      expect(got.headers['webhook-id']).toMatch(/^msg_[0-9a-f]{32}$/)
      expect(got.headers['webhook-id']).toBe(delivery.delivery_id)
      expect(got.headers['webhook-id']).not.toBe(answer.alert_id)
      expect(delivery).toMatchObject({
        event_id: answer.alert_id,
        event: 'SIGNAL',
        symbol: 'BTC',
        state: 'delivered',
        attempts: 1
      })
      expect(delivery.attempt_log[0]).toMatchObject({ attempt: 1, status_code: 200 })

      // B: nothing on the wire, nothing stored (deliveries are stored before their first attempt)
      expect(receiverB.received).toHaveLength(0)
      expect(receiverB.connections).toBe(0)
      const logB = await api('GET', `/v1/webhooks/${webhookB}/deliveries`, keyB.key)
      expect(logB.status).toBe(200)
      expect(logB.body.deliveries).toEqual([])

      // the only event published meanwhile was the alert's (no engine event could have reached B)
      expect(published.map((e) => [e.id, e.event, e.key_id])).toEqual([[answer.alert_id, 'SIGNAL', keyA.id]])
    } finally {
      off()
    }
  })
})
