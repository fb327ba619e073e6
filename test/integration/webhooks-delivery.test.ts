/**
 * Webhook delivery end to end in process (docs/webhooks.md): real HTTPS receivers with a test CA, the real
 * undici transport and a real chDB outbox. Every delivery is verified as a third party would (the spec's
 * signature recomputed from the raw secret, Standard Webhooks headers through the `standardwebhooks`
 * library). Receivers that answer 500, 410, 301 and 429, that are down, and that are slow; the attempt log,
 * the test operation and redelivery; one slow receiver not delaying another.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SignalBus, type SignalEvent } from '../../engine/signals/signal-event.js'
import { freePort } from '../helpers/spawn-server.js'
import { makeTestCa, until, WebhookReceiver, type TestCa } from '../helpers/webhook-receiver.js'
import { webhookApp, type WebhookApp } from '../helpers/webhook-app.js'

const SECRET = 'receiver-secret-0123456789'
/** symbols of the two concurrent real-time tests' webhooks and events (no other test uses them) */
const OWN_500 = 'SOL'
const OWN_TIMEOUT = 'XRP'
let seq = 0
const event = (over: Partial<SignalEvent> = {}): SignalEvent => ({
  id: `evt-${process.pid}-${++seq}`,
  event: 'HIGH',
  ts: Date.UTC(2026, 0, 2, 3, 4, 5, 678),
  symbol: 'BTC',
  direction: 'long',
  confidence: 'HIGH',
  composite: 0.72,
  action: 'CONFIRM',
  source: 'engine',
  ...over
})

describe('webhook delivery to real HTTPS receivers', () => {
  let tls: TestCa
  let w: WebhookApp
  let key: string
  const receivers: WebhookReceiver[] = []

  beforeAll(async () => {
    tls = makeTestCa()
    // the spec's 10 s attempt timeout (WEBHOOK_TIMEOUT_MS unset)
    w = await webhookApp({ ca: [tls.ca], env: { WEBHOOK_ALLOW_PRIVATE: '127.0.0.1/32' } })
    key = (await w.key('pro')).key
  })
  afterAll(async () => {
    await w.close()
    for (const r of receivers) await r.stop()
    tls.cleanup()
  })

  async function receiver(): Promise<{ r: WebhookReceiver; url: string }> {
    const r = new WebhookReceiver(tls, SECRET)
    receivers.push(r)
    return { r, url: await r.start() }
  }

  async function register(url: string, body: Record<string, unknown> = {}): Promise<number> {
    const res = await w.call('POST', '/v1/webhooks', {
      key,
      body: { url, events: ['*'], symbols: ['*'], secret: SECRET, ...body }
    })
    expect(res.status, JSON.stringify(res.body)).toBe(201)
    return res.body.webhook_id as number
  }

  const log = async (id: number) => (await w.call('GET', `/v1/webhooks/${id}/deliveries?limit=100`, { key })).body

  it('delivers the spec payload with both signatures, verifiable by a third party', async () => {
    const { r, url } = await receiver()
    const id = await register(url)
    const bus = new SignalBus()
    w.service.subscribe(bus)
    const e = event()
    bus.publish(e)
    await until(() => r.received.length === 1, 30_000, 'one delivery')
    const got = r.received[0]!
    expect(got.serviceSignatureOk).toBe(true)
    expect(got.standardOk).toBe(true)
    expect(got.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'ServiceAPI-Webhook/1.0',
      'x-service-event': 'HIGH'
    })
    expect(got.headers['webhook-id']).toMatch(/^msg_[0-9a-f]{32}$/)
    expect(Math.abs(Number(got.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(30)
    expect(got.body.toString()).toBe(
      `{"event":"HIGH","ts":"2026-01-02T03:04:05.678Z","symbol":"BTC","direction":"long","confidence":"HIGH","composite":0.72,"webhook_id":${id}}`
    )
    // the receiver has the request before the sender has its answer: the log says delivered once that came
    await until(async () => (await log(id)).deliveries[0]?.state === 'delivered', 30_000, 'logged delivered')
    const page = await log(id)
    expect(page.deliveries[0]).toMatchObject({ state: 'delivered', attempts: 1, event: 'HIGH', event_id: e.id })
    expect(page.deliveries[0].attempt_log[0]).toMatchObject({ attempt: 1, status_code: 200, response_excerpt: 'ok' })
    await w.call('DELETE', `/v1/webhooks/${id}`, { key })
  })

  it('matches events and symbols; key_id events go only to that key', async () => {
    const { r, url } = await receiver()
    const id = await register(url, { events: ['VETO'], symbols: ['ETH'] })
    const other = await w.key('enterprise')
    for (const e of [
      event({ event: 'HIGH', symbol: 'ETH' }),
      event({ event: 'VETO', symbol: 'BTC' }),
      event({ event: 'VETO', symbol: 'ETH', key_id: other.id }),
      event({ event: 'VETO', symbol: 'ETH', id: 'wanted' })
    ]) {
      await w.service.outbox.accept(e)
    }
    await until(() => r.received.length >= 1, 30_000, 'the matching delivery')
    // deliveries are made when an event is accepted: the log holds all there will be
    expect((await log(id)).deliveries.map((d: { event_id: string }) => d.event_id)).toEqual(['wanted'])
    expect(r.received).toHaveLength(1)
    expect(JSON.parse(r.received[0]!.body.toString())).toMatchObject({ event: 'VETO', symbol: 'ETH' })
    await w.call('DELETE', `/v1/webhooks/${id}`, { key })
  })

  it('410: the delivery fails and the webhook is disabled, visibly', async () => {
    const { r, url } = await receiver()
    r.answer = () => ({ status: 410, body: 'gone' })
    const id = await register(url)
    await w.service.outbox.accept(event())
    await until(
      async () => (await w.call('GET', `/v1/webhooks/${id}`, { key })).body.state === 'disabled',
      30_000,
      'disabled'
    )
    const info = (await w.call('GET', `/v1/webhooks/${id}`, { key })).body
    expect(info.state_reason).toMatch(/410/)
    expect(r.received).toHaveLength(1)
    await w.service.outbox.accept(event())
    await new Promise((res) => setTimeout(res, 300))
    expect(r.received).toHaveLength(1) // nothing sent to a disabled webhook
    expect((await log(id)).deliveries.map((d: { state: string }) => d.state)).toEqual(['failed'])
  })

  it('301: a failure, the redirect is not followed', async () => {
    const target = await receiver()
    const { r, url } = await receiver()
    r.answer = (_req, n) => (n === 1 ? { status: 301, headers: { location: target.url } } : { status: 200 })
    const id = await register(url)
    await w.service.outbox.accept(event())
    await until(async () => (await log(id)).deliveries[0]?.state === 'delivered', 30_000, 'delivered on the retry')
    expect(target.r.received).toHaveLength(0)
    const attempts = (await log(id)).deliveries[0].attempt_log
    expect(attempts.map((a: { status_code: number }) => a.status_code)).toEqual([301, 200])
    await w.call('DELETE', `/v1/webhooks/${id}`, { key })
  })

  it('429: the retry waits Retry-After (bounded), not the 1 s schedule', async () => {
    const { r, url } = await receiver()
    r.answer = (_req, n) => (n === 1 ? { status: 429, headers: { 'retry-after': '3' } } : { status: 200 })
    const id = await register(url)
    await w.service.outbox.accept(event())
    await until(() => r.received.length === 2, 30_000, 'the retry')
    const gap = r.received[1]!.at - r.received[0]!.at
    // the wait is at least Retry-After (a lower bound holds on any machine); its exact length, and the
    // bound, are asserted on a fake clock in test/unit/webhook-outbox.test.ts
    expect(gap).toBeGreaterThanOrEqual(2_900)
    await w.call('DELETE', `/v1/webhooks/${id}`, { key })
  })

  it('one slow receiver never delays another', async () => {
    const slow = await receiver()
    slow.r.answer = () => ({ status: 200, delayMs: 1_000 })
    const fast = await receiver()
    const slowId = await register(slow.url)
    const fastId = await register(fast.url)
    for (let i = 0; i < 40; i++) await w.service.outbox.accept(event())
    // the fast receiver has all 40 while the slow one, answering one request a second, has not: had the slow
    // one held the fast one's turns, the fast one would get its last one after the slow one got its last
    await until(() => fast.r.received.length === 40, 30_000, 'fast receiver got all')
    expect(slow.r.received.length).toBeLessThan(40)
    await w.call('DELETE', `/v1/webhooks/${slowId}`, { key })
    await w.call('DELETE', `/v1/webhooks/${fastId}`, { key })
  })

  it('POST /v1/webhooks/test: signed test delivery, the receiver’s status, latency and a 1 KiB excerpt', async () => {
    const { r, url } = await receiver()
    r.answer = () => ({ status: 202, body: 'é'.repeat(2_000) })
    const id = await register(url)
    const res = await w.call('POST', '/v1/webhooks/test', { key, body: { webhook_id: id } })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ webhook_id: id, delivered: true, status_code: 202, error: null })
    expect(res.body.duration_ms).toBeGreaterThan(0)
    expect(Buffer.byteLength(res.body.response_excerpt)).toBeLessThanOrEqual(1024)
    expect(res.body.response_excerpt.length).toBe(512)
    expect(r.received[0]).toMatchObject({ serviceSignatureOk: true, standardOk: true })
    expect(r.received[0]!.headers['x-service-event']).toBe('TEST')
    const d = (await log(id)).deliveries[0]
    expect(d).toMatchObject({ trigger: 'test', state: 'delivered', delivery_id: res.body.delivery_id })
    await w.call('DELETE', `/v1/webhooks/${id}`, { key })
  })

  it('deleting a webhook ends its waiting deliveries as failed; nothing is sent after', async () => {
    const { r, url } = await receiver()
    r.answer = () => ({ status: 503 })
    const id = await register(url)
    await w.service.outbox.accept(event())
    await until(() => r.received.length === 1, 30_000, 'first attempt')
    await w.call('PATCH', `/v1/webhooks/${id}`, { key, body: { state: 'disabled' } })
    const states = (await log(id)).deliveries.map((d: { state: string; last_error: string }) => [d.state, d.last_error])
    expect(states).toEqual([['failed', 'webhook_disabled: disabled through the API']])
    await new Promise((res) => setTimeout(res, 1_500))
    expect(r.received).toHaveLength(1)
  })

  it('pages the delivery log with next_cursor', async () => {
    const { url } = await receiver()
    const id = await register(url)
    for (let i = 0; i < 5; i++) await w.service.outbox.accept(event())
    await until(
      async () => (await log(id)).deliveries.filter((d: { state: string }) => d.state === 'delivered').length === 5,
      30_000,
      'five delivered'
    )
    const seen: string[] = []
    let cursor: string | null = null
    do {
      const q: string = cursor === null ? '' : `&cursor=${cursor}`
      const page = (await w.call('GET', `/v1/webhooks/${id}/deliveries?limit=2${q}`, { key })).body
      expect(page.deliveries.length).toBeLessThanOrEqual(2)
      seen.push(...page.deliveries.map((d: { delivery_id: string }) => d.delivery_id))
      cursor = page.next_cursor
    } while (cursor !== null)
    expect(new Set(seen).size).toBe(5)
    const bad = await w.call('GET', `/v1/webhooks/${id}/deliveries?cursor=nope`, { key })
    expect(bad.status).toBe(400)
    expect(bad.body.error.param).toBe('cursor')
  })

  // The two real-time tests below wait on the spec's retry schedule (about 21 s) and its 10 s timeout; they
  // run at the same time, after the others, each with a webhook of its own symbol so neither sees the other's
  // events (the tests above end or delete their webhooks; one left active only receives).
  it.concurrent(
    '500: retried after about 1 s, 4 s and 16 s (real time, ±20% jitter), then failed, in the log, redeliverable',
    async ({ expect }) => {
      const { r, url } = await receiver()
      r.answer = () => ({ status: 500, body: 'boom' })
      const id = await register(url, { symbols: [OWN_500] })
      await w.service.outbox.accept(event({ symbol: OWN_500 }))
      await until(async () => (await log(id)).deliveries[0]?.state === 'failed', 50_000, 'failed')
      expect(r.received).toHaveLength(4)
      expect(r.ids().size).toBe(1) // the same webhook-id in every attempt
      const gaps = [1, 2, 3].map((i) => r.received[i]!.at - r.received[i - 1]!.at)
      // never sooner than the schedule (jitter -20%, timer slack); a loaded machine only makes gaps longer, so no
      // upper bound here: the schedule itself is pinned under a fake clock in test/unit/webhook-outbox.test.ts
      for (const [i, base] of [1_000, 4_000, 16_000].entries()) {
        expect(gaps[i]!, `gap ${i + 1}: ${gaps.join(', ')} ms`).toBeGreaterThanOrEqual(base * 0.8 - 50)
      }
      const d = (await log(id)).deliveries[0]
      expect(d.attempt_log.map((a: { status_code: number }) => a.status_code)).toEqual([500, 500, 500, 500])
      expect(d.attempt_log[0].response_excerpt).toBe('boom')
      expect(d.attempt_log[0].next_retry_at).not.toBeNull()
      expect(d.attempt_log[3].next_retry_at).toBeNull()
      expect(d.next_retry_at).toBeNull()
      // redelivery: a new round, same webhook-id, delivered now the receiver is fixed
      r.answer = () => ({ status: 204 })
      const again = await w.call('POST', `/v1/webhooks/${id}/deliveries/${d.delivery_id}/redeliver`, { key })
      expect(again.status).toBe(202)
      expect(again.body).toMatchObject({ delivery_id: d.delivery_id, state: 'pending', trigger: 'manual' })
      await until(async () => (await log(id)).deliveries[0]?.state === 'delivered', 30_000, 'redelivered')
      expect(r.ids().size).toBe(1)
      expect((await log(id)).deliveries[0].attempts).toBe(5)
      await w.call('DELETE', `/v1/webhooks/${id}`, { key })
    },
    90_000
  )

  it.concurrent(
    'down (connection refused) and slow (past the spec 10 s timeout): the attempt fails with the reason; the retry about 1 s later is delivered',
    async ({ expect }) => {
      const port = await freePort()
      const downId = await register(`https://127.0.0.1:${port}/down`, { symbols: [OWN_TIMEOUT] })
      const { r, url } = await receiver()
      r.answer = (_req, n) => (n === 1 ? { status: 200, delayMs: 11_000 } : { status: 200 })
      const slowId = await register(url, { symbols: [OWN_TIMEOUT] })
      await w.service.outbox.accept(event({ symbol: OWN_TIMEOUT }))
      // a retry at all shows the attempt was cut: answered at 11 s, it would have been delivered at once; a
      // loaded machine only makes the gap longer, so it has a lower bound only
      await until(() => r.received.length === 2, 40_000, 'the retry')
      const gap = r.received[1]!.at - r.received[0]!.at
      expect(gap).toBeGreaterThanOrEqual(10_000 + 800 - 50)
      await until(
        async () => (await log(slowId)).deliveries[0]?.state === 'delivered',
        30_000,
        'slow delivered on retry'
      )
      const slow = (await log(slowId)).deliveries[0].attempt_log
      // cut by the timeout (no status, a timeout error), not answered after the receiver's 11 s delay
      expect(slow[0].status_code).toBeNull()
      expect(slow[0].error).toMatch(/timeout: no answer within 10000 ms/)
      expect(slow[0].duration_ms).toBeGreaterThanOrEqual(9_900)
      const down = (await log(downId)).deliveries[0].attempt_log
      expect(down[0].error).toMatch(/ECONNREFUSED/)
      await w.call('DELETE', `/v1/webhooks/${downId}`, { key })
      await w.call('DELETE', `/v1/webhooks/${slowId}`, { key })
    },
    90_000
  )
})
