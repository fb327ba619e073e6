/**
 * @module
 * Re-check latency benchmark (`npm run bench -- recheck`, docs/node-intel.md "Watch list and re-checks"):
 * anvil (chain id 56) mining a block every second, the built server in its own process with its default
 * NODEINTEL_RECHECK_POLL_MS, an HTTPS receiver in this process that checks each delivery's
 * X-Service-Signature. Per token, one at a time: the owner raises the sell tax to 99 % (`setFees`), this
 * process polls the receipt every RECEIPT_POLL_MS (the "confirmed" time: the receipt is visible; so the
 * figure errs short by at most that much), then waits for the TOKEN_RISK_CHANGED delivery of the token.
 * Reported: confirmed → delivery received, and sent → received, p50 and max; the same run's references:
 * the honeypot check through the API (`?fresh=1`) and a test delivery's duration. Target: confirmed →
 * received <= 5 s.
 */
import crypto from 'node:crypto'
import fs from 'node:fs'
import https from 'node:https'
import type net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import type { Address, Hex } from 'viem'
import { EVM_CHAINS } from '../../engine/chain/chains.js'
import { BENCH_ADMIN, startBenchServer } from '../http/bench-server.js'
import { makeBenchTls } from '../webhooks/tls.js'
import { startAnvil } from './evm/anvil.js'
import { deployRecheckFixtures, listFeeToken, send } from './evm/recheck-fixtures.js'

const PORT = 19243
/** tokens whose tax is raised, one measurement each */
const TOKENS = Number(process.env['BENCH_RECHECK_TOKENS'] ?? 10)
const RECEIPT_POLL_MS = 10
const SECRET = 'bench-recheck-secret-0123456789'
const r1 = (n: number): number => Math.round(n * 10) / 10

function pct(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}

interface Delivery {
  readonly at: number
  readonly token: string
  readonly signatureOk: boolean
  readonly before: string
  readonly after: string
}

function startReceiver(tls: { key: string; cert: string }, onDelivery: (d: Delivery) => void): Promise<https.Server> {
  const key = crypto.createHash('sha256').update(SECRET).digest('hex')
  const server = https.createServer({ key: tls.key, cert: tls.cert, keepAliveTimeout: 60_000 }, (req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const at = performance.now()
      const body = Buffer.concat(chunks)
      const want = crypto.createHmac('sha256', key).update(body).digest('hex')
      const b = JSON.parse(body.toString('utf8')) as {
        token?: string
        before?: { verdict: string }
        after?: { verdict: string }
      }
      onDelivery({
        at,
        token: b.token ?? '',
        signatureOk: req.headers['x-service-signature'] === want,
        before: b.before?.verdict ?? '',
        after: b.after?.verdict ?? ''
      })
      res.writeHead(200, { 'content-type': 'text/plain' })
      res.end('ok')
    })
  })
  return new Promise((r) => server.listen(0, '127.0.0.1', () => r(server)))
}

async function waitFor<T>(what: string, get: () => T | undefined, timeoutMs: number, everyMs = 5): Promise<T> {
  const end = performance.now() + timeoutMs
  for (;;) {
    const v = get()
    if (v !== undefined) return v
    if (performance.now() > end) throw new Error(`${what}: not after ${timeoutMs} ms`)
    await new Promise((r) => setTimeout(r, everyMs))
  }
}

export async function recheckBench(): Promise<Record<string, unknown>> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tw-bench-recheck-'))
  const tls = makeBenchTls(dir)
  fs.writeFileSync(path.join(dir, 'ca-only.pem'), tls.ca)
  const deliveries: Delivery[] = []
  const receiver = await startReceiver(tls, (d) => deliveries.push(d))
  const url = `https://127.0.0.1:${(receiver.address() as net.AddressInfo).port}/hook`
  const anvil = await startAnvil({ chainId: 56 })
  let server: Awaited<ReturnType<typeof startBenchServer>> | undefined
  try {
    const fx = await deployRecheckFixtures(anvil.url, EVM_CHAINS.bsc.wrappedNative)
    const tokens: Address[] = []
    for (let i = 0; i < TOKENS; i++) tokens.push(await listFeeToken(fx, `Bench${i}`))
    // from here on a block a second, as the target states
    await anvil.rpc('evm_setAutomine', [false])
    await anvil.rpc('evm_setIntervalMining', [1])
    server = await startBenchServer(PORT, {
      SOURCES: 'none',
      BSC_RPC_URL: anvil.url,
      BSC_DEX_ROUTER: fx.uni.router,
      BSC_DEX_FACTORY: fx.uni.factory,
      NODEINTEL_NEW_PAIRS_POLL_MS: '0',
      NODE_EXTRA_CA_CERTS: path.join(dir, 'ca-only.pem'),
      WEBHOOK_ALLOW_PRIVATE: '127.0.0.1/32'
    })
    // the answers' few fields read here are checked by the tests; `any` keeps this script short
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const call = async (method: string, p: string, body?: unknown, key?: string): Promise<any> => {
      const res = await fetch(`${server!.base}${p}`, {
        method,
        headers: {
          ...(key ? { 'x-api-key': key } : { authorization: `Bearer ${BENCH_ADMIN}` }),
          'content-type': 'application/json'
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) })
      })
      const json = await res.json()
      if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(json)}`)
      return json
    }
    const key = (await call('POST', '/v1/admin/keys', { plan: 'enterprise', name: 'bench-recheck' })).key as string
    const hook = await call('POST', '/v1/webhooks', { url, events: ['*'], symbols: ['*'], secret: SECRET }, key)
    const test = await call('POST', '/v1/webhooks/test', { webhook_id: hook.webhook_id }, key)
    for (const t of tokens) await call('POST', '/v1/node/bsc/watch', { token: t }, key)
    // reference: the honeypot check itself through the API
    const checks: number[] = []
    for (const t of tokens) {
      const s = performance.now()
      await call('GET', `/v1/node/bsc/honeypot/${t}?fresh=1`, undefined, key)
      checks.push(performance.now() - s)
    }
    const confirmedToReceived: number[] = []
    const sentToReceived: number[] = []
    let badSignatures = 0
    for (const t of tokens) {
      const sent = performance.now()
      const hash: Hex = await send(fx, fx.testToken, t, 'setFees', [0n, 9900n])
      let confirmed = 0
      for (;;) {
        const receipt = await fx.uni.publicClient.getTransactionReceipt({ hash }).catch(() => null)
        if (receipt) {
          confirmed = performance.now()
          break
        }
        await new Promise((r) => setTimeout(r, RECEIPT_POLL_MS))
      }
      const d = await waitFor(`the delivery for ${t}`, () => deliveries.find((x) => x.token === t), 30_000)
      if (!d.signatureOk || d.before !== 'ok' || d.after !== 'honeypot') badSignatures++
      confirmedToReceived.push(d.at - confirmed)
      sentToReceived.push(d.at - sent)
    }
    const c = [...confirmedToReceived].sort((a, b) => a - b)
    const s = [...sentToReceived].sort((a, b) => a - b)
    const k = [...checks].sort((a, b) => a - b)
    return {
      tokens: TOKENS,
      block_time_s: 1,
      recheck_poll_ms: 1000,
      load_average: os.loadavg().map(r1),
      confirmed_to_received_ms: { p50: r1(pct(c, 50)), max: r1(c[c.length - 1]!), all: c.map(r1) },
      sent_to_received_ms: { p50: r1(pct(s, 50)), max: r1(s[s.length - 1]!) },
      deliveries_not_ok: badSignatures,
      reference: {
        honeypot_api_ms: { p50: r1(pct(k, 50)), max: r1(k[k.length - 1]!) },
        test_delivery_ms: test.duration_ms
      },
      target_ms: 5000,
      met: c[c.length - 1]! <= 5000 && badSignatures === 0
    }
  } finally {
    await server?.stop()
    await anvil.stop()
    receiver.close()
    fs.rmSync(dir, { recursive: true, force: true })
  }
}
