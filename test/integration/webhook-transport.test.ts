/**
 * The undici transport against a real HTTPS receiver (server/webhooks/undici-transport.ts and its dispatch
 * handler, answer-handler.ts): status, excerpt (at most 1 KiB, valid UTF-8), Retry-After, a 3xx not
 * followed, connections reused, a pool the agent dropped not used again, an answer past 64 KiB cut off
 * with its status kept, and the failures without an answer (reset, refused, timeout) as readable errors.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AddressPolicy, parseCidrList } from '../../engine/webhooks/address-policy.js'
import type { DeliveryResult } from '../../engine/webhooks/transport.js'
import { UndiciTransport } from '../../server/webhooks/undici-transport.js'
import { makeTestCa, WebhookReceiver, type TestCa } from '../helpers/webhook-receiver.js'

let ca: TestCa
let receiver: WebhookReceiver
let url: string
let transport: UndiciTransport

beforeAll(async () => {
  ca = makeTestCa()
  receiver = new WebhookReceiver(ca, 'a-secret-of-16-chars')
  url = await receiver.start()
  transport = new UndiciTransport({
    policy: new AddressPolicy(parseCidrList('127.0.0.1/32')),
    perReceiver: 4,
    timeoutMs: 10_000,
    ca: [ca.ca]
  })
}, 30_000)

afterAll(async () => {
  await transport.close()
  await receiver.stop()
  ca.cleanup()
})

const body = Buffer.from('{"event":"HIGH"}')
const send = (timeoutMs = 10_000, to = url): Promise<DeliveryResult> =>
  transport.send({ url: to, headers: { 'content-type': 'application/json' }, body, timeoutMs })

describe('webhook transport (undici dispatch)', () => {
  it('a 200: status, excerpt, no error; sequential deliveries reuse connections (not one each)', async () => {
    receiver.answer = () => ({ status: 200, body: 'ok' })
    const before = receiver.connections
    for (let i = 0; i < 20; i++) {
      const r = await send()
      expect(r).toMatchObject({ status: 200, error: null, excerpt: 'ok', retryAfter: null })
      expect(r.durationMs).toBeGreaterThan(0)
    }
    // the next request may be dispatched before undici marks the first connection free: at most a second
    expect(receiver.connections - before).toBeLessThanOrEqual(2)
  })

  it('the excerpt is at most 1 KiB of valid UTF-8 (a character cut at the limit is left out)', async () => {
    receiver.answer = () => ({ status: 500, body: 'é'.repeat(2_000) })
    const r = await send()
    expect(r.status).toBe(500)
    expect(r.excerpt).toBe('é'.repeat(512))
    receiver.answer = () => ({ status: 500, body: 'a' + 'é'.repeat(2_000) })
    const odd = await send()
    expect(Buffer.byteLength(odd.excerpt)).toBe(1_023)
    expect(odd.excerpt).not.toContain('\ufffd')
  })

  it('an answer past 64 KiB keeps its status and excerpt; the connection is dropped, the next delivery works', async () => {
    receiver.answer = () => ({ status: 200, body: 'x'.repeat(200 * 1024) })
    const r = await send()
    expect(r).toMatchObject({ status: 200, error: null, excerpt: 'x'.repeat(1_024) })
    receiver.answer = () => ({ status: 200, body: 'ok' })
    expect(await send()).toMatchObject({ status: 200, excerpt: 'ok' })
  })

  it('a receiver closing every connection: the agent drops the pool, the next delivery goes through a new one', async () => {
    // the transport dispatches to each origin's pool directly while it is open; once the agent has dropped
    // and closed it (its last connection gone), that pool must not be used. Its own transport: no other
    // connection keeps the pool alive
    const own = new UndiciTransport({
      policy: new AddressPolicy(parseCidrList('127.0.0.1/32')),
      perReceiver: 4,
      timeoutMs: 10_000,
      ca: [ca.ca]
    })
    const sendOwn = (): Promise<DeliveryResult> =>
      own.send({ url, headers: { 'content-type': 'application/json' }, body, timeoutMs: 10_000 })
    try {
      receiver.answer = () => ({ status: 200, headers: { connection: 'close' }, body: 'bye' })
      const before = receiver.connections
      for (let i = 0; i < 3; i++) {
        expect(await sendOwn()).toMatchObject({ status: 200, error: null, excerpt: 'bye' })
        await new Promise((r) => setTimeout(r, 100)) // the disconnect reaches the agent, which drops the pool
      }
      receiver.answer = () => ({ status: 200, body: 'ok' })
      expect(await sendOwn()).toMatchObject({ status: 200, error: null, excerpt: 'ok' })
      expect(receiver.connections - before).toBe(4)
    } finally {
      receiver.answer = () => ({ status: 200, body: 'ok' })
      await own.close()
    }
  })

  it('429 gives its Retry-After; a 301 is an answer, not followed', async () => {
    receiver.answer = () => ({ status: 429, headers: { 'retry-after': '30' }, body: 'slow down' })
    expect(await send()).toMatchObject({ status: 429, retryAfter: '30', excerpt: 'slow down' })
    const n = receiver.received.length
    receiver.answer = () => ({ status: 301, headers: { location: `${url}/elsewhere` } })
    expect(await send()).toMatchObject({ status: 301, error: null })
    expect(receiver.received.length).toBe(n + 1)
  })

  it('no answer: a dropped connection, a timeout and a refused port are errors with their reason', async () => {
    receiver.answer = () => ({ drop: true })
    const dropped = await send()
    expect(dropped.status).toBeNull()
    expect(dropped.error).toMatch(/reset|socket|closed|other side/i)
    receiver.answer = () => ({ status: 200, body: 'late', delayMs: 1_500 })
    const slow = await send(300)
    expect(slow).toMatchObject({ status: null, error: 'timeout: no answer within 300 ms (UND_ERR_HEADERS_TIMEOUT)' })
    const closed = new WebhookReceiver(ca, 'a-secret-of-16-chars')
    const gone = await closed.start()
    await closed.stop()
    expect(await send(10_000, gone)).toMatchObject({ status: null, error: 'connection refused (ECONNREFUSED)' })
  })
})
