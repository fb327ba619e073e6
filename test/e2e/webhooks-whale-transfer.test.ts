/**
 * The `whale.transfer` event end to end, on the built server as a user runs it: whale-transfer records
 * loaded through the admin ingest reach the live state; the one at or above the high significance
 * threshold is delivered to the webhooks registered for it (by type and symbol), signed in both schemes, its
 * body what the catalog's schema describes (TypeBox `Value.Check`); the smaller one, and webhooks for other
 * types or symbols, get nothing. A token off the watch list (named by its contract address, its amount in
 * raw units) is flagged `decimals_unknown: "token"`; a known one `null`. The receiver is a real HTTPS server trusted through NODE_EXTRA_CA_CERTS.
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
/** a buy of a token off the watch list: named by its contract address, amount in raw units, valued on the side paid */
const UNLISTED = {
  ...BIG,
  log_index: 114,
  event_type: 'swap',
  token: '0x6982508145454ce325ddbe47a25d4ec3d2311933',
  amount: 1.5e21,
  usd_value: 3_100_000
}

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
      const anyWhale = await reg(['whale.transfer'], ['*'])

      const ingest = await fetch(`${s.base}/v1/admin/ingest/whale_transfer`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN}` },
        // the small transfer first: once the big one's delivery exists, the small one has been judged
        body: [SMALL, BIG, UNLISTED].map((r) => JSON.stringify(r)).join('\n') + '\n'
      })
      expect(ingest.status).toBe(201)
      // BIG to `whales` and `anyWhale`, UNLISTED to `anyWhale`
      await until(() => receiver.received.length >= 3, 30_000, 'the whale.transfer deliveries')

      const bodyOf = (r: { body: Buffer }) => JSON.parse(r.body.toString('utf8')) as Record<string, unknown>
      for (const r of receiver.received) {
        expect(r.serviceSignatureOk).toBe(true)
        expect(r.standardOk).toBe(true)
        expect(r.headers['x-service-event']).toBe('whale.transfer')
        expect(Value.Check(deliveryBodySchema(WHALE_TRANSFER), bodyOf(r))).toBe(true)
      }
      const got = receiver.received.find((r) => bodyOf(r).webhook_id === whales)!
      const eventId = `${BIG.chain}:${BIG.tx_hash}:${BIG.log_index}:${BIG.address}`
      expect(got.headers['webhook-id']).toBe(deliveryId(eventId, whales))
      expect(got.body.toString('utf8')).toBe(
        JSON.stringify({
          event: 'whale.transfer',
          ts: new Date(BIG.ts).toISOString(),
          symbol: 'USDC',
          chain: 'ethereum',
          direction: 'transfer_out',
          amount: 3_000_000,
          decimals_unknown: null,
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
      const unlisted = receiver.received.find((r) => bodyOf(r).symbol === UNLISTED.token)!
      expect(unlisted.body.toString('utf8')).toBe(
        JSON.stringify({
          event: 'whale.transfer',
          ts: new Date(UNLISTED.ts).toISOString(),
          symbol: UNLISTED.token,
          chain: 'ethereum',
          direction: 'swap',
          amount: 1.5e21,
          decimals_unknown: 'token',
          usd_value: 3_100_000,
          significance: 'high',
          address: BIG.address,
          counterparty: BIG.counterparty,
          tx_hash: BIG.tx_hash,
          log_index: 114,
          block_number: 23845120,
          webhook_id: anyWhale
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
      let all: any[] = []
      await until(
        async () => (all = await log(anyWhale)).filter((d) => d.state === 'delivered').length === 2,
        30_000,
        'both deliveries of the webhook for every symbol in the log'
      )
      expect(receiver.received).toHaveLength(3)
      expect(mine.map((d) => [d.event, d.symbol, d.state])).toEqual([['whale.transfer', 'USDC', 'delivered']])
      expect(all.map((d) => d.symbol).sort()).toEqual(['USDC', UNLISTED.token].sort())
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
