/**
 * The SSRF guard at connect time (docs/webhooks.md): the address checked is the address connected to. A
 * name that resolved to a public address at registration and to loopback at delivery (DNS rebinding) is
 * refused before any TCP connection; so are literal loopback forms and `localhost` reaching the transport
 * directly. The receiver listens on 127.0.0.1 and counts TCP connections: a broken guard would show there.
 * With WEBHOOK_ALLOW_PRIVATE=127.0.0.1/32 the same receiver is reached.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AddressPolicy } from '../../engine/webhooks/address-policy.js'
import { UndiciTransport } from '../../server/webhooks/undici-transport.js'
import { makeTestCa, until, WebhookReceiver, type TestCa } from '../helpers/webhook-receiver.js'
import { stubResolve, webhookApp } from '../helpers/webhook-app.js'

const SECRET = 'ssrf-test-secret-0123456789'

describe('SSRF guard at connect time', () => {
  let tls: TestCa
  let r: WebhookReceiver
  let url: string

  beforeAll(async () => {
    tls = makeTestCa()
    r = new WebhookReceiver(tls, SECRET)
    url = await r.start()
  })
  afterAll(async () => {
    await r.stop()
    tls.cleanup()
  })

  it('DNS rebinding: public at registration, loopback at delivery: refused, no connection made', async () => {
    const hosts: Record<string, string[]> = { 'rebind.example.com': ['93.184.215.14'] }
    const w = await webhookApp({ ca: [tls.ca], hosts })
    try {
      const key = (await w.key('pro')).key
      const reg = await w.call('POST', '/v1/webhooks', {
        key,
        body: { url: `https://rebind.example.com:${r.port}/hook`, events: ['*'], symbols: ['*'], secret: SECRET }
      })
      expect(reg.status).toBe(201)
      hosts['rebind.example.com'] = ['127.0.0.1']
      const before = r.connections
      const test = await w.call('POST', '/v1/webhooks/test', { key, body: { webhook_id: reg.body.webhook_id } })
      expect(test.body).toMatchObject({ delivered: false, status_code: null })
      expect(test.body.error).toMatch(/refused: rebind\.example\.com resolves to 127\.0\.0\.1 is a loopback address/)
      await w.service.outbox.accept({
        id: 'rebind-1',
        event: 'HIGH',
        ts: Date.now(),
        symbol: 'BTC',
        direction: 'long',
        confidence: 'HIGH',
        composite: 0.5,
        action: 'CONFIRM',
        source: 'engine'
      })
      await until(() => w.service.outbox.stats().attempts >= 2, 5_000, 'an attempt')
      expect(r.connections).toBe(before)
    } finally {
      await w.close()
    }
  })

  it('literal loopback forms and localhost are refused by the transport itself', async () => {
    const t = new UndiciTransport({ policy: new AddressPolicy(), perReceiver: 2, timeoutMs: 2_000, ca: [tls.ca] })
    const before = r.connections
    try {
      for (const target of [
        `https://127.0.0.1:${r.port}/hook`,
        `https://[::ffff:127.0.0.1]:${r.port}/hook`,
        `https://localhost:${r.port}/hook`,
        `https://2130706433:${r.port}/hook`
      ]) {
        const res = await t.send({ url: target, headers: {}, body: Buffer.from('{}'), timeoutMs: 2_000 })
        expect(res.status, target).toBeNull()
        expect(res.error, target).toMatch(/refused: .*loopback/)
      }
      expect(r.connections).toBe(before)
    } finally {
      await t.close()
    }
  })

  it('a stub name resolving to loopback is refused at connect; allowed once 127.0.0.1/32 is listed', async () => {
    const resolve = stubResolve({ 'receiver.test': ['127.0.0.1'] })
    const closed = new UndiciTransport({
      policy: new AddressPolicy(),
      perReceiver: 2,
      timeoutMs: 2_000,
      ca: [tls.ca],
      resolve
    })
    const open = new UndiciTransport({
      policy: new AddressPolicy(['127.0.0.1/32']),
      perReceiver: 2,
      timeoutMs: 2_000,
      ca: [tls.ca],
      resolve
    })
    try {
      const before = r.connections
      const refused = await closed.send({
        url: `https://receiver.test:${r.port}/x`,
        headers: {},
        body: Buffer.from('{}'),
        timeoutMs: 2_000
      })
      expect(refused.error).toMatch(/refused/)
      expect(r.connections).toBe(before)
      // the certificate names localhost and 127.0.0.1, so reach it as localhost through the stub
      const ok = await open.send({ url, headers: {}, body: Buffer.from('{}'), timeoutMs: 2_000 })
      expect(ok.status).toBe(200)
      expect(r.connections).toBe(before + 1)
    } finally {
      await closed.close()
      await open.close()
    }
  })
})
