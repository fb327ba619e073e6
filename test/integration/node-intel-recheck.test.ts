/**
 * Re-checks of watched tokens in the running server (server/start.ts wiring) against a real anvil node
 * (chain id 56, a block per transaction) and a real HTTPS receiver (docs/node-intel.md, "Watch list and
 * re-checks"): a key watches a fee token; its owner raises the sell tax to 99 %; the re-check finds the
 * verdict changed from ok to honeypot, stores a verdict-history row, pushes it on `tokenrisk:bsc` and
 * delivers TOKEN_RISK_CHANGED, signed, with both verdicts and the owner's transaction. A token whose
 * guardian (not its owner) pauses sells is caught by its Paused(address) event. And the bad input: a
 * malformed address, a wrong checksum, an address without code, one token over the key's limit, the
 * history of a token never checked, removing a token not watched. A token listed while the server runs is
 * watched as a new pair without any key registering it, and its change reaches the webhook too.
 *
 * Trust: the receiver's certificate comes from a test CA added to this process's default trust, as
 * NODE_EXTRA_CA_CERTS does for a spawned server (see test/integration/alert-to-webhook.test.ts).
 */
import tls from 'node:tls'
import { FormatRegistry } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { toFunctionSelector, type Address } from 'viem'
import { deliveryBodySchema, TOKEN_RISK_CHANGED } from '../../catalog/webhook-events.js'
import { EVM_CHAINS } from '../../engine/chain/chains.js'
import {
  deployRecheckFixtures,
  GUARDIAN,
  listFeeToken,
  listGuardedToken,
  send,
  type RecheckFixtures
} from '../../bench/node/evm/recheck-fixtures.js'
import { startAnvil, type Anvil } from '../helpers/evm/anvil.js'
import { jsonBody, startTestServer, TEST_ADMIN_TOKEN } from '../helpers/server.js'
import { StreamClient } from '../helpers/stream-client.js'
import { until } from '../helpers/until.js'
import { makeTestCa, WebhookReceiver, type TestCa } from '../helpers/webhook-receiver.js'

const SECRET = 'token-risk-webhook-secret-0123456'
/** bound on every wait: a re-check takes milliseconds, the 2-core machine may be busy */
const WAIT_MS = 30_000

if (!FormatRegistry.Has('date-time'))
  FormatRegistry.Set(
    'date-time',
    (v) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/.test(v) && !Number.isNaN(Date.parse(v))
  )

function trustInProcess(caPem: string): () => void {
  const original = tls.createSecureContext
  const patched: typeof tls.createSecureContext = (options) =>
    original(options?.ca === undefined ? { ...options, ca: [...tls.rootCertificates, caPem] } : options)
  Object.defineProperty(tls, 'createSecureContext', { value: patched, writable: true, configurable: true })
  return () =>
    Object.defineProperty(tls, 'createSecureContext', { value: original, writable: true, configurable: true })
}

let anvil: Anvil
let fx: RecheckFixtures
let srv: Awaited<ReturnType<typeof startTestServer>>
let ca: TestCa
let untrust: () => void
let receiver: WebhookReceiver
let key: string
let feeToken: Address
let guarded: Address

const api = async (method: string, path: string, body?: unknown, k: string | null = key) => {
  const res = await fetch(`${srv.base}${path}`, {
    method,
    headers: {
      ...(k ? { 'x-api-key': k } : { authorization: `Bearer ${TEST_ADMIN_TOKEN}` }),
      'content-type': 'application/json'
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  return { status: res.status, body: await jsonBody(res) }
}

beforeAll(async () => {
  anvil = await startAnvil({ chainId: 56 })
  fx = await deployRecheckFixtures(anvil.url, EVM_CHAINS.bsc.wrappedNative)
  feeToken = await listFeeToken(fx, 'Rug')
  guarded = await listGuardedToken(fx)
  ca = makeTestCa()
  untrust = trustInProcess(ca.ca)
  receiver = new WebhookReceiver(ca, SECRET)
  const url = await receiver.start()
  srv = await startTestServer({
    BSC_RPC_URL: anvil.url,
    BSC_DEX_ROUTER: fx.uni.router,
    BSC_DEX_FACTORY: fx.uni.factory,
    NODEINTEL_NEW_PAIRS_POLL_MS: '200',
    NODEINTEL_RECHECK_POLL_MS: '200',
    NODEINTEL_WATCH_PER_KEY: '2',
    WEBHOOK_ALLOW_PRIVATE: '127.0.0.1/32',
    WEBHOOK_TIMEOUT_MS: '5000'
  })
  key = (await api('POST', '/v1/admin/keys', { plan: 'pro', name: 'recheck' }, null)).body.key
  const hook = await api('POST', '/v1/webhooks', {
    url,
    events: ['TOKEN_RISK_CHANGED'],
    symbols: ['*'],
    secret: SECRET
  })
  expect(hook.status).toBe(201)
}, 120_000)

afterAll(async () => {
  await srv?.stop()
  if (receiver?.port) await receiver.stop()
  untrust?.()
  ca?.cleanup()
  await anvil?.stop()
})

const deliveries = () => receiver.received.map((r) => ({ r, body: JSON.parse(r.body.toString('utf8')) }))

describe('re-checks of watched tokens', () => {
  it('the owner raises the sell tax to 99%: a history row, a stream update and a signed webhook with both verdicts', async () => {
    const c = await StreamClient.connect(`ws://127.0.0.1:${srv.running.port}/v1/stream?key=${key}`)
    try {
      await c.next((f) => f.type === 'welcome')
      c.send({ op: 'subscribe', id: 1, channels: ['tokenrisk:bsc'] })
      expect(await c.next((f) => f.type === 'ack')).toMatchObject({ channels: ['tokenrisk:bsc'], errors: [] })
      await c.next((f) => f.type === 'snapshot' && f.channel === 'tokenrisk:bsc')

      const w = await api('POST', '/v1/node/bsc/watch', { token: feeToken.toLowerCase() })
      expect(w.status).toBe(201)
      expect(w.body).toMatchObject({ chain: 'bsc', token: feeToken, created: true, watched: 1, limit: 2 })
      expect(w.body.verdict).toMatchObject({ verdict: 'ok', is_honeypot: false })
      const first = await api('GET', `/v1/node/bsc/token-history/${feeToken}`)
      expect(first.status).toBe(200)
      expect(first.body.history.map((h: any) => [h.verdict, h.trigger.kind])).toEqual([['ok', 'watch']])

      const tx = await send(fx, fx.testToken, feeToken, 'setFees', [0n, 9900n])
      await until('the TOKEN_RISK_CHANGED delivery', () => deliveries().some((d) => d.body.token === feeToken), WAIT_MS)
      const { r, body } = deliveries().find((d) => d.body.token === feeToken)!
      expect(r.serviceSignatureOk).toBe(true)
      expect(r.standardOk).toBe(true)
      expect(r.headers['x-service-event']).toBe('TOKEN_RISK_CHANGED')
      expect(Value.Check(deliveryBodySchema(TOKEN_RISK_CHANGED), body)).toBe(true)
      expect(body).toMatchObject({
        event: 'TOKEN_RISK_CHANGED',
        chain: 'bsc',
        token: feeToken,
        before: { verdict: 'ok', is_honeypot: false },
        after: { verdict: 'honeypot', is_honeypot: true },
        trigger: {
          kind: 'owner_tx',
          tx_hash: tx,
          detail: toFunctionSelector('function setFees(uint256,uint256)'),
          from: fx.uni.account
        }
      })
      expect(body.changed).toEqual(expect.arrayContaining(['verdict', 'sell_tax_pct']))
      expect(body.before.sell_tax_pct).toBeLessThan(1)
      expect(body.after.sell_tax_pct).toBeGreaterThan(98)

      const pushed = await c.next(
        (f) => f.type === 'update' && f.channel === 'tokenrisk:bsc' && f.data.some((x: any) => x.token === feeToken),
        WAIT_MS
      )
      expect(pushed.data.find((x: any) => x.token === feeToken)).toMatchObject({
        before: { verdict: 'ok' },
        after: { verdict: 'honeypot' },
        trigger: { kind: 'owner_tx', tx_hash: tx }
      })

      const h = await api('GET', `/v1/node/bsc/token-history/${feeToken}`)
      expect(h.body.total).toBe(2)
      expect(h.body.history.map((x: any) => [x.verdict, x.trigger.kind, x.trigger.tx_hash])).toEqual([
        ['honeypot', 'owner_tx', tx],
        ['ok', 'watch', null]
      ])
      expect(h.body.history[0].changed).toEqual(expect.arrayContaining(['verdict', 'sell_tax_pct']))

      // the node health shows the chain's re-check counters
      const health = await api('GET', '/v1/node/health?chain=bsc')
      const rechecks = health.body.chains[0].rechecks
      expect(rechecks.watched).toBeGreaterThanOrEqual(1)
      expect(rechecks.changes).toBeGreaterThanOrEqual(1)
      expect(rechecks.triggers).toBeGreaterThanOrEqual(1)
      expect(rechecks.last_block).toBeGreaterThan(0)
    } finally {
      c.close()
    }
  }, 90_000)

  it('a pause by a guardian who is not the owner is caught by its Paused(address) event', async () => {
    const w = await api('POST', '/v1/node/bsc/watch', { token: guarded })
    expect(w.status).toBe(201)
    expect(w.body.verdict).toMatchObject({ verdict: 'ok' })
    const tx = await send(fx, fx.guarded, guarded, 'pause', [], GUARDIAN)
    await until('the delivery for the pause', () => deliveries().some((d) => d.body.token === guarded), WAIT_MS)
    const { r, body } = deliveries().find((d) => d.body.token === guarded)!
    expect(r.serviceSignatureOk).toBe(true)
    expect(body).toMatchObject({
      before: { verdict: 'ok' },
      after: { verdict: 'honeypot' },
      trigger: { kind: 'log', tx_hash: tx, detail: 'Paused(address)', from: null }
    })
  }, 60_000)

  it('bad input: malformed, wrong checksum, no code, over the limit, never checked, not watched', async () => {
    const malformed = await api('POST', '/v1/node/bsc/watch', { token: '0x12' })
    expect(malformed.status).toBe(400)
    // one hex letter of the checksummed address in the other case: still mixed case, the checksum wrong
    const i = feeToken.slice(2).search(/[a-fA-F]/) + 2
    const ch = feeToken[i]!
    const flipped =
      feeToken.slice(0, i) + (ch === ch.toUpperCase() ? ch.toLowerCase() : ch.toUpperCase()) + feeToken.slice(i + 1)
    const badSum = await api('POST', '/v1/node/bsc/watch', { token: flipped })
    expect(badSum.status).toBe(400)
    expect(badSum.body.error).toMatchObject({ code: 'invalid_parameter', param: 'token' })

    // the key watches 2 tokens, its limit: a third is refused before the node is asked
    const third = await listFeeToken(fx, 'Third')
    const over = await api('POST', '/v1/node/bsc/watch', { token: third })
    expect(over.status).toBe(403)
    expect(over.body.error.code).toBe('forbidden')
    expect(over.body.error.message).toMatch(/at most 2 tokens \(NODEINTEL_WATCH_PER_KEY\)/)
    // the same token again is no new registration
    const again = await api('POST', '/v1/node/bsc/watch', { token: feeToken })
    expect(again).toMatchObject({ status: 201, body: { created: false, watched: 2 } })

    const removed = await api('DELETE', `/v1/node/bsc/watch/${guarded}`)
    expect(removed).toMatchObject({ status: 200, body: { watching: false } })
    const notWatched = await api('DELETE', `/v1/node/bsc/watch/${guarded}`)
    expect(notWatched.status).toBe(404)
    const list = await api('GET', '/v1/node/bsc/watch')
    expect(list.body).toMatchObject({ watched: 1, limit: 2 })
    expect(list.body.tokens.map((t: any) => [t.token, t.verdict.verdict])).toEqual([[feeToken, 'honeypot']])

    const noCode = await api('POST', '/v1/node/bsc/watch', { token: '0x000000000000000000000000000000000000bEEF' })
    expect(noCode.status).toBe(404)
    expect(noCode.body.error.code).toBe('not_a_contract')

    // a contract never checked on the watch list (the router: no pair of its own)
    const never = await api('GET', `/v1/node/bsc/token-history/${fx.uni.router}`)
    expect(never.status).toBe(404)
    expect(never.body.error.code).toBe('not_found')
    // a history survives the end of the watch
    expect((await api('GET', `/v1/node/bsc/token-history/${guarded}`)).body.total).toBe(2)
  }, 60_000)

  it('a new pair is watched without a registration: its owner raising the tax is delivered too', async () => {
    const fresh = await listFeeToken(fx, 'Fresh')
    await until(
      'the new pair in the verdict history',
      async () => {
        const h = await api('GET', `/v1/node/bsc/token-history/${fresh}`)
        return h.status === 200 && h.body.history[0].trigger.kind === 'watch'
      },
      WAIT_MS
    )
    const tx = await send(fx, fx.testToken, fresh, 'setFees', [0n, 9900n])
    await until('the delivery for the new pair', () => deliveries().some((d) => d.body.token === fresh), WAIT_MS)
    const { r, body } = deliveries().find((d) => d.body.token === fresh)!
    expect(r.serviceSignatureOk).toBe(true)
    // the owner's setPair may still have a check queued or running when setFees lands; the change is then
    // attributed to that earlier owner transaction (docs/node-intel.md, "Limits")
    expect(body).toMatchObject({
      before: { verdict: 'ok' },
      after: { verdict: 'honeypot' },
      trigger: { kind: 'owner_tx', from: fx.uni.account }
    })
    const mined = await fx.uni.publicClient.getTransactionReceipt({ hash: tx })
    expect(body.after.block_number).toBeGreaterThanOrEqual(Number(mined.blockNumber))
    expect((await api('GET', '/v1/node/bsc/watch')).body.tokens.map((t: any) => t.token)).not.toContain(fresh)
  }, 60_000)
})
