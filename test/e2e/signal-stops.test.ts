/**
 * Stopping `npm start` the way a terminal does: SIGINT (Ctrl-C) or SIGTERM to the whole process group, so the
 * server gets the signal once from the kernel and once more forwarded by npm. 20 such stops, each at a random
 * (seeded) moment of live work — admin ingest, usage-counted API calls, webhook deliveries to a local HTTPS
 * receiver, a streaming export and an EVM chain source following anvil — and a restart after each. Every stop
 * is one clean stop: exit 0 (never 1, never 134/139), within the hard deadline; and after the restarts, every
 * ingest batch answered 201, every call answered 200 and every webhook event answered 202 is there.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import crypto from 'node:crypto'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { projectRoot } from '../../engine/paths.js'
import { ChdbStore } from '../../engine/store/chdb/chdb-store.js'
import { deliveryId } from '../../engine/webhooks/delivery.js'
import { HARD_STOP_MS } from '../../server/stop-signals.js'
import { startAnvil, type Anvil } from '../helpers/evm/anvil.js'
import { BEHIND } from '../fixtures/evm/whales/harness.js'
import {
  ACCOUNTS,
  deployScenario,
  E18,
  transfer,
  writeWatchlist,
  type Scenario
} from '../fixtures/evm/whales/scenario.js'
import { mulberry32 } from '../helpers/mulberry32.js'
import { freePort } from '../helpers/spawn-server.js'
import { tmpDir } from '../helpers/tmp-dir.js'
import { tradeBatch } from '../helpers/trade-batch.js'
import { makeTestCa, WebhookReceiver, type TestCa } from '../helpers/webhook-receiver.js'

const STOPS = 20
const ADMIN = 'e2e-admin-token-signal-stops'
const SECRET = 'signal-stops-secret-0123456789'
const ROWS = 200
const T0 = Date.UTC(2026, 10, 10)
const SEED = Number(process.env['STOP_SEED'] ?? crypto.randomInt(1, 2 ** 31))

interface Npm {
  readonly child: ChildProcess
  readonly base: string
  out: string
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

/** `npm start` in its own process group (as a terminal runs it: npm and the server in one group). */
function npmStart(env: Record<string, string>, port: number): Npm {
  const child = spawn('npm', ['start', '--silent'], {
    cwd: projectRoot(),
    detached: true,
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/tmp', PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  const s: Npm = {
    child,
    base: `http://127.0.0.1:${port}`,
    out: '',
    exited: new Promise((r) => child.on('exit', (code, signal) => r({ code, signal })))
  }
  child.stdout!.on('data', (d: Buffer) => (s.out += d.toString()))
  child.stderr!.on('data', (d: Buffer) => (s.out += d.toString()))
  return s
}

async function poll<T>(what: string, fn: () => Promise<T | undefined>, ms: number, s?: Npm): Promise<T> {
  const end = Date.now() + ms
  for (;;) {
    const v = await fn().catch(() => undefined)
    if (v !== undefined) return v
    if (s && s.child.exitCode !== null)
      throw new Error(`${what}: npm exited ${s.child.exitCode}\n${s.out.slice(-3000)}`)
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms\n${s?.out.slice(-3000) ?? ''}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

/** the JSON body of an answer */
async function body(res: Promise<Response>): Promise<any> {
  return (await res).json()
}

async function call(base: string, method: string, p: string, body?: string, key?: string): Promise<Response> {
  const auth: Record<string, string> = key ? { 'x-api-key': key } : { authorization: `Bearer ${ADMIN}` }
  return fetch(`${base}${p}`, { method, headers: { ...auth, 'content-type': 'application/json' }, body })
}

/** the admin ingest bodies of the stop runs (batch numbers after 's' in the trade ids) */
const BATCHES = { rows: ROWS, t0: T0, prefix: 's' }

/** What the workloads had acknowledged, over every run. */
const acked = { batches: new Set<number>(), events: new Set<string>(), calls: 0 }
/** calls sent (answered or not): the most the stored count may hold */
let callsSent = 0
let nextBatch = 0
let nextEvent = 0

/** Runs every workload against `s` until it stops answering; resolves when all have ended. */
function workloads(s: Npm, key: string, chain: Scenario): Promise<unknown> {
  const loop = (fn: () => Promise<void>) =>
    (async () => {
      for (;;) {
        try {
          await fn()
        } catch {
          return // the server is gone
        }
      }
    })()
  return Promise.all([
    loop(async () => {
      const i = nextBatch++
      const res = await call(s.base, 'POST', '/v1/admin/ingest/trade', tradeBatch(i, BATCHES))
      if (res.status === 201) acked.batches.add(i)
      await res.arrayBuffer()
    }),
    loop(async () => {
      callsSent++
      const res = await call(s.base, 'GET', '/v1/options/chain', undefined, key)
      if (res.status === 200) acked.calls++
      await res.arrayBuffer()
    }),
    loop(async () => {
      const id = `stop-${nextEvent++}`
      const body = JSON.stringify({ id, event: 'SIGNAL', symbol: 'ETH', direction: 'long' })
      const res = await call(s.base, 'POST', '/v1/admin/webhooks/events', body)
      if (res.status === 202) acked.events.add(id)
      await res.arrayBuffer()
    }),
    loop(async () => {
      // a streaming export of the candles the ingest builds, read slowly so one is in progress at the stop
      const q = `symbols=ETH&timeframe=1m&format=csv&start_time=${T0}&end_time=${T0 + 30 * 86_400_000}`
      callsSent++
      const res = await call(s.base, 'GET', `/v1/backtest/export?${q}`, undefined, key)
      if (res.status === 200) acked.calls++
      const reader = res.body!.getReader()
      while (!(await reader.read()).done) await new Promise((r) => setTimeout(r, 20))
    }),
    loop(async () => {
      // the chain source follows anvil: whale transfers mined while the server runs
      await transfer(chain, chain.usdc, chain.deployer, ACCOUNTS.exchange1, 2_000_000n * E18)
      await new Promise((r) => setTimeout(r, 200))
      if (s.child.exitCode !== null || s.child.signalCode !== null) throw new Error('stopped')
    })
  ])
}

let anvil: Anvil
let chain: Scenario
let tls: TestCa
let receiver: WebhookReceiver
const data = tmpDir('tw-signal-stops-')
const lists = tmpDir('tw-signal-stops-lists-')
let env: Record<string, string>
/** the API key and webhook the first start creates */
let key = ''
let webhookId = 0

beforeAll(async () => {
  anvil = await startAnvil({ chainId: 1, args: BEHIND() })
  chain = await deployScenario(anvil.url, 'ethereum')
  writeWatchlist(path.join(lists.dir, 'w'), 'ethereum', chain)
  const start = Number(BigInt(await anvil.rpc<string>('eth_blockNumber')))
  tls = makeTestCa()
  receiver = new WebhookReceiver(tls, SECRET)
  receiver.answer = () => ({ status: 200, body: 'ok', delayMs: 100 })
  env = {
    DATA_DIR: data.dir,
    ADMIN_TOKEN: ADMIN,
    LOG_LEVEL: 'info',
    SOURCES: 'evm:ethereum',
    ETHEREUM_RPC_URL: anvil.url,
    ETHEREUM_CONFIRMATIONS: '1',
    ETHEREUM_START_BLOCK: String(start + 1),
    ETHEREUM_POLL_MS: '50',
    WATCHLIST_DIR: path.join(lists.dir, 'w'),
    NODE_EXTRA_CA_CERTS: tls.caFile,
    WEBHOOK_ALLOW_PRIVATE: '127.0.0.1/32',
    WEBHOOK_KEY: crypto.randomBytes(32).toString('hex')
  }
}, 120_000)

afterAll(async () => {
  await receiver?.stop()
  await anvil?.stop()
  tls?.cleanup()
  data.cleanup()
  lists.cleanup()
})

describe('group SIGINT/SIGTERM through npm start', () => {
  it(`${STOPS} stops at random moments of live work: each one clean stop, nothing acknowledged lost`, async () => {
    console.log(`signal-stops seed ${SEED} (STOP_SEED=${SEED} repeats the run)`)
    const rnd = mulberry32(SEED)
    let repeatsSeen = 0
    /** the log of the run stopped last (what a count missing after its restart points at) */
    let lastLog = ''
    const running = new Set<Npm>()
    try {
      for (let stop = 0; stop <= STOPS; stop++) {
        const s = npmStart(env, await freePort())
        running.add(s)
        await poll(
          'ready',
          async () => {
            const r = await fetch(`${s.base}/v1/ready`)
            return r.status === 200 ? true : undefined
          },
          90_000,
          s
        )
        if (stop === 0) {
          key = (await body(call(s.base, 'POST', '/v1/admin/keys', '{"plan":"pro"}'))).key
          const reg = JSON.stringify({ url: await receiver.start(), events: ['*'], symbols: ['*'], secret: SECRET })
          webhookId = (await body(call(s.base, 'POST', '/v1/webhooks', reg, key))).webhook_id
          acked.calls++ // the registration is a counted call of the key
          callsSent++
        }
        // after each restart: the previous run's end is on /v1/health
        const health = await body(fetch(`${s.base}/v1/health`))
        expect(health.last_stop, `seed ${SEED}, start ${stop}`).toEqual(
          stop === 0 ? null : { kind: 'clean', at: expect.any(String) }
        )
        // every call answered before the stops is counted (no more than were sent)
        const usage = await body(call(s.base, 'GET', '/v1/usage', undefined, key))
        expect(usage.calls_today, `seed ${SEED}, start ${stop}\n${lastLog}`).toBeGreaterThanOrEqual(acked.calls)
        expect(usage.calls_today, `seed ${SEED}, start ${stop}`).toBeLessThanOrEqual(callsSent)
        if (stop === STOPS) {
          await verifyOutbox(s, key, webhookId)
          s.child.kill('SIGTERM') // npm alone: it forwards to the server
          expect(await s.exited).toEqual({ code: 0, signal: null })
          running.delete(s)
          break
        }

        const work = workloads(s, key, chain)
        await poll('work under way', async () => (acked.batches.size > 0 ? true : undefined), 30_000, s)
        await new Promise((r) => setTimeout(r, 100 + rnd() * 1_400)) // the random moment, not a synchronisation
        const sig = rnd() < 0.5 ? 'SIGINT' : 'SIGTERM'
        const signalledAt = Date.now()
        process.kill(-s.child.pid!, sig) // the whole group: npm forwards its copy to the server
        const ended = await Promise.race([
          s.exited,
          new Promise<'hung'>((r) => setTimeout(() => r('hung'), HARD_STOP_MS + 20_000))
        ])
        const where = `seed ${SEED}, stop ${stop} (${sig}, ${Date.now() - signalledAt} ms)\n${s.out.slice(-3000)}`
        expect(ended, where).not.toBe('hung')
        expect(ended, where).toEqual({ code: 0, signal: null })
        expect(s.out, where).toContain('stopped cleanly')
        if (s.out.includes(`${sig} again: the same stop`)) repeatsSeen++
        running.delete(s)
        lastLog = s.out.slice(-4000)
        await work
      }
    } finally {
      for (const s of running) if (s.child.exitCode === null) process.kill(-s.child.pid!, 'SIGKILL')
    }
    // npm's forwarded copy did reach the server (the double delivery this is about)
    expect(repeatsSeen, `seed ${SEED}`).toBeGreaterThan(0)
    console.log(
      `signal-stops: ${STOPS} stops, ${repeatsSeen} with npm's repeat logged; acknowledged ${acked.batches.size} batches, ${acked.calls} calls, ${acked.events.size} webhook events`
    )

    await verifyBatches()
  }, 600_000)

  it('a distinct second signal forces: exit status 137 (SIGKILL, no native crash), logged with what it left', async () => {
    const s = npmStart(env, await freePort())
    try {
      await poll(
        'ready',
        async () => ((await fetch(`${s.base}/v1/ready`)).status === 200 ? true : undefined),
        90_000,
        s
      )
      // webhook answers held 5 s: the stop waits for the attempts in flight, so the second signal finds it under way
      receiver.answer = () => ({ status: 200, body: 'ok', delayMs: 5_000 })
      const seen = receiver.received.length
      const work = workloads(s, key, chain)
      await poll('a delivery in flight', async () => (receiver.received.length > seen ? true : undefined), 30_000, s)
      process.kill(-s.child.pid!, 'SIGINT')
      await poll('stop under way', async () => (s.out.includes('shutting down') ? true : undefined), 30_000, s)
      process.kill(-s.child.pid!, 'SIGTERM') // a different signal: forces
      const ended = await s.exited
      // the server killed itself with SIGKILL; npm re-raises its child's signal on itself
      expect(ended, s.out.slice(-3000)).toEqual({ code: null, signal: 'SIGKILL' })
      expect(s.out).not.toContain('stopped cleanly')
      const line = s.out.split('\n').find((l) => l.includes('forced exit'))
      expect(line, s.out.slice(-3000)).toBeDefined()
      const forced = JSON.parse(line!)
      expect(forced).toMatchObject({ reason: 'SIGTERM during the stop', exit_status: 137 })
      expect(forced.left_unwritten).toMatchObject({ queued_rows: expect.any(Number), usage_calls: expect.any(Number) })
      expect(forced.left_unwritten.webhooks.in_flight).toBeGreaterThan(0)
      await work
      receiver.answer = () => ({ status: 200, body: 'ok', delayMs: 100 })

      // the restart: everything acknowledged is there but the usage counts the log says were left unwritten
      const again = npmStart(env, await freePort())
      try {
        await poll(
          'ready',
          async () => ((await fetch(`${again.base}/v1/ready`)).status === 200 ? true : undefined),
          90_000,
          again
        )
        // /v1/health keeps what the forced exit left unwritten
        const health = await body(fetch(`${again.base}/v1/health`))
        expect(health.last_stop).toEqual({
          kind: 'forced',
          at: expect.any(String),
          reason: 'SIGTERM during the stop',
          left_unwritten: forced.left_unwritten
        })
        const usage = await body(call(again.base, 'GET', '/v1/usage', undefined, key))
        expect(usage.calls_today).toBeGreaterThanOrEqual(acked.calls - forced.left_unwritten.usage_calls)
        expect(usage.calls_today).toBeLessThanOrEqual(callsSent)
        await verifyOutbox(again, key, webhookId)
        again.child.kill('SIGTERM')
        expect(await again.exited).toEqual({ code: 0, signal: null })
      } finally {
        if (again.child.exitCode === null) process.kill(-again.child.pid!, 'SIGKILL')
      }
      await verifyBatches()
    } finally {
      if (s.child.exitCode === null && s.child.signalCode === null) process.kill(-s.child.pid!, 'SIGKILL')
    }
  }, 300_000)
})

/** Every batch answered 201 is stored whole, once (read with the server stopped). */
async function verifyBatches(): Promise<void> {
  const store = new ChdbStore({ path: data.dir, poolSize: 1 })
  try {
    const rows = await store.query<{ b: string; n: number }>(
      "SELECT splitByChar('-', trade_id)[1] AS b, count() AS n FROM trades GROUP BY b"
    )
    const found = new Map(rows.map((r) => [Number(r.b.slice(1)), Number(r.n)]))
    for (const i of acked.batches) expect(found.get(i), `seed ${SEED}, batch ${i}`).toBe(ROWS)
  } finally {
    await store.close()
  }
}

/** Every webhook event answered 202 has its delivery in the log, and each ends delivered. */
async function verifyOutbox(s: Npm, key: string, webhookId: number): Promise<void> {
  const states = async (): Promise<Map<string, string>> => {
    const out = new Map<string, string>()
    let cursor: string | null = null
    do {
      const p: string = `/v1/webhooks/${webhookId}/deliveries?limit=100${cursor ? `&cursor=${cursor}` : ''}`
      const page = await body(call(s.base, 'GET', p, undefined, key))
      for (const d of page.deliveries) out.set(d.delivery_id, d.state)
      cursor = page.next_cursor
    } while (cursor)
    return out
  }
  await poll(
    'acknowledged webhook events delivered',
    async () => {
      const st = await states()
      const missing = [...acked.events].filter((e) => st.get(deliveryId(e, webhookId)) !== 'delivered')
      return missing.length === 0 ? true : undefined
    },
    60_000,
    s
  )
}
