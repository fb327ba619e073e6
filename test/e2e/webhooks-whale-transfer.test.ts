/**
 * The `whale.transfer` event end to end, on the built server as a user runs it: whale-transfer records
 * loaded through the admin ingest reach the live state; the one at or above the high significance
 * threshold is delivered to the webhooks registered for it (by type and symbol), signed in both schemes, its
 * body what the catalog's schema describes (TypeBox `Value.Check`); the smaller one, and webhooks for other
 * types or symbols, get nothing. The receiver is a real HTTPS server trusted through NODE_EXTRA_CA_CERTS.
 */
import crypto from 'node:crypto'
import { FormatRegistry } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { describe, expect, it } from 'vitest'
import { deliveryBodySchema, WHALE_TRANSFER } from '../../catalog/webhook-events.js'
import { deliveryId } from '../../engine/webhooks/delivery.js'
import { freePort, spawnServer, waitForHealth } from '../helpers/spawn-server.js'
import { tmpDir } from '../helpers/tmp-dir.js'
import { makeTestCa, until, WebhookReceiver } from '../helpers/webhook-receiver.js'

const ADMIN = 'e2e-admin-token-whale-transfer-01'
const SECRET = 'whale-transfer-secret-0123456789'

const BIG = {
  kind: 'whale_transfer',
  ts: Date.UTC(2026, 10, 28, 12, 0, 0, 250),
  chain: 'ethereum',
  tx_hash: '0x5c9a1e0b7d3f4a2e8c6b9d0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d',
  log_index: 112,
  block_number: 23845120,
  address: '0x3f5ce5fbfe3e9af3971dd833d26ba9b5c936f0be',
  counterparty: '0x903df65bfecf74b0cfccc38d1b565b75f5305668',
  event_type: 'transfer_out',
  token: 'USDC',
  amount: 3_000_000,
  usd_value: 2_999_700.5
}
const SMALL = { ...BIG, log_index: 113, amount: 200_000, usd_value: 199_980 }

// TypeBox checks only the formats it is given: `ts` is RFC 3339 date-time in UTC, as toISOString writes it
if (!FormatRegistry.Has('date-time'))
  FormatRegistry.Set(
    'date-time',
    (v) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/.test(v) && !Number.isNaN(Date.parse(v))
  )

describe('whale.transfer webhook event', () => {
  it('is delivered signed, with the payload the catalog describes, to the webhooks that match it', async () => {
    const tls = makeTestCa()
    const data = tmpDir('tw-whale-transfer-')
    const receiver = new WebhookReceiver(tls, SECRET)
    const url = await receiver.start()
    const s = spawnServer(
      {
        DATA_DIR: data.dir,
        SOURCES: 'none',
        ADMIN_TOKEN: ADMIN,
        LOG_LEVEL: 'warn',
        NODE_EXTRA_CA_CERTS: tls.caFile,
        WEBHOOK_ALLOW_PRIVATE: '127.0.0.1/32',
        WEBHOOK_KEY: crypto.randomBytes(32).toString('hex')
      },
      await freePort()
    )
    const api = async (method: string, path: string, body?: unknown, key?: string) => {
      const res = await fetch(`${s.base}${path}`, {
        method,
        headers: {
          ...(key ? { 'x-api-key': key } : { authorization: `Bearer ${ADMIN}` }),
          'content-type': 'application/json'
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) })
      })
      return { status: res.status, body: (await res.json()) as any }
    }
    try {
      await waitForHealth(s)
      const key = (await api('POST', '/v1/admin/keys', { plan: 'pro' })).body.key as string
      const reg = async (events: string[], symbols: string[]) => {
        const r = await api('POST', '/v1/webhooks', { url, events, symbols, secret: SECRET }, key)
        expect(r.status).toBe(201)
        return r.body.webhook_id as number
      }
      const whales = await reg(['whale.transfer'], ['USDC'])
      const signalsOnly = await reg(['HIGH', 'VETO'], ['*'])
      const otherSymbol = await reg(['whale.transfer'], ['SOL'])

      const ingest = await fetch(`${s.base}/v1/admin/ingest/whale_transfer`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN}` },
        // the small transfer first: once the big one's delivery exists, the small one has been judged
        body: [SMALL, BIG].map((r) => JSON.stringify(r)).join('\n') + '\n'
      })
      expect(ingest.status).toBe(201)
      await until(() => receiver.received.length >= 1, 30_000, 'the whale.transfer delivery')

      const got = receiver.received[0]!
      expect(got.serviceSignatureOk).toBe(true)
      expect(got.standardOk).toBe(true)
      expect(got.headers['x-service-event']).toBe('whale.transfer')
      const eventId = `${BIG.chain}:${BIG.tx_hash}:${BIG.log_index}:${BIG.address}`
      expect(got.headers['webhook-id']).toBe(deliveryId(eventId, whales))
      const body = JSON.parse(got.body.toString('utf8')) as unknown
      expect(Value.Check(deliveryBodySchema(WHALE_TRANSFER), body)).toBe(true)
      expect(got.body.toString('utf8')).toBe(
        JSON.stringify({
          event: 'whale.transfer',
          ts: new Date(BIG.ts).toISOString(),
          symbol: 'USDC',
          chain: 'ethereum',
          direction: 'transfer_out',
          amount: 3_000_000,
          usd_value: 2_999_700.5,
          significance: 'high',
          address: BIG.address,
          counterparty: BIG.counterparty,
          tx_hash: BIG.tx_hash,
          log_index: 112,
          block_number: 23845120,
          webhook_id: whales
        })
      )

      // the smaller transfer is no whale.transfer event; the other webhooks match neither type nor symbol
      const log = async (id: number) =>
        (await api('GET', `/v1/webhooks/${id}/deliveries?limit=10`, undefined, key)).body.deliveries as any[]
      let mine: any[] = []
      await until(
        async () => (mine = await log(whales)).some((d) => d.state === 'delivered'),
        30_000,
        'the delivered whale.transfer in the log'
      )
      expect(receiver.received).toHaveLength(1)
      expect(mine.map((d) => [d.event, d.symbol, d.state])).toEqual([['whale.transfer', 'USDC', 'delivered']])
      expect(await log(signalsOnly)).toEqual([])
      expect(await log(otherSymbol)).toEqual([])
    } finally {
      s.child.kill('SIGTERM')
      await s.exited
      await receiver.stop()
      tls.cleanup()
      data.cleanup()
    }
  }, 120_000)
})
