/**
 * The webhook wiring of the real server (in process, server/start.ts): an event published on the server's
 * signal bus (as the signal engine or a forwarded alert publishes) reaches the outbox and is attempted
 * against the registered receiver over a real socket; a `key_id` event reaches only that key's webhooks;
 * the registration API and the admin counters answer through the uWS adapter. The receiver's test CA is
 * not in this process's trust store (NODE_EXTRA_CA_CERTS is read at start; the e2e crash test covers it),
 * so the attempt is seen as a TCP connection and a TLS refusal in the log.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SignalEvent } from '../../engine/signals/signal-event.js'
import { startTestServer, TEST_ADMIN_TOKEN } from '../helpers/server.js'
import { makeTestCa, until, WebhookReceiver, type TestCa } from '../helpers/webhook-receiver.js'

describe('webhooks in the running server', () => {
  let server: Awaited<ReturnType<typeof startTestServer>>
  let tls: TestCa
  let r: WebhookReceiver
  let url: string

  beforeAll(async () => {
    tls = makeTestCa()
    r = new WebhookReceiver(tls, 'server-test-secret-0123')
    url = await r.start()
    server = await startTestServer({ WEBHOOK_ALLOW_PRIVATE: '127.0.0.1/32', WEBHOOK_TIMEOUT_MS: '2000' })
  })
  afterAll(async () => {
    await server.stop()
    await r.stop()
    tls.cleanup()
  })

  const call = async (method: string, path: string, key: string | null, body?: unknown) => {
    const res = await fetch(`${server.base}${path}`, {
      method,
      headers: key ? { 'x-api-key': key } : { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    return { status: res.status, body: (await res.json()) as any }
  }

  it('delivers events published on the signal bus, key_id events only to that key', async () => {
    const mine = (await call('POST', '/v1/admin/keys', null, { plan: 'pro' })).body
    const other = (await call('POST', '/v1/admin/keys', null, { plan: 'enterprise' })).body
    const reg = await call('POST', '/v1/webhooks', mine.key, {
      url,
      events: ['SIGNAL'],
      symbols: ['*'],
      secret: 'server-test-secret-0123'
    })
    expect(reg.status).toBe(201)
    const bus = server.running.ctx.signals!.bus
    const e = (over: Partial<SignalEvent>): SignalEvent => ({
      id: `srv-${Math.random()}`,
      event: 'SIGNAL',
      ts: Date.now(),
      symbol: 'SOL',
      direction: 'long',
      confidence: 'MEDIUM',
      composite: 0.3,
      action: 'CONFIRM',
      source: 'alert:tradingview',
      ...over
    })
    bus.publish(e({ key_id: other.id }))
    bus.publish(e({ key_id: mine.id, id: 'for-mine' }))
    const stats = async () => (await call('GET', '/v1/admin/webhooks/stats', null)).body
    await until(async () => (await stats()).attempts >= 1, 10_000, 'an attempt')
    expect(r.connections).toBeGreaterThanOrEqual(1)
    const log = await call('GET', `/v1/webhooks/${reg.body.webhook_id}/deliveries`, mine.key)
    expect(log.status).toBe(200)
    expect(log.body.deliveries).toHaveLength(1)
    expect(log.body.deliveries[0]).toMatchObject({ event_id: 'for-mine', event: 'SIGNAL', symbol: 'SOL' })
    // this process does not trust the test CA: the attempt fails at TLS, and is retried
    expect(log.body.deliveries[0].attempt_log[0].error).toMatch(/certificate|self.signed|issuer/i)
    expect((await stats()).events).toBe(1)
  })

  it('a free key is refused with 403 naming the plan', async () => {
    const free = (await call('POST', '/v1/admin/keys', null, { plan: 'free' })).body
    const res = await call('GET', '/v1/webhooks', free.key)
    expect(res.status).toBe(403)
    expect(res.body.error.message).toMatch(/pro/)
  })
})
