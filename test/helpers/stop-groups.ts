/**
 * The server groups of the stop tests (test/e2e/signal-stops.test.ts): each group is one data directory over
 * all its server's runs, with its API key and webhook and what its workloads had acknowledged; the workloads
 * (admin ingest, usage-counted API calls, webhook events, a slowly read streaming export, whale transfers on
 * the chain the server follows) run against a server until it stops answering; and the checks of what a
 * group's acknowledgements left in its store and delivery log.
 */
import { expect } from 'vitest'
import { ChdbStore } from '../../engine/store/chdb/chdb-store.js'
import { deliveryId } from '../../engine/webhooks/delivery.js'
import { ACCOUNTS, E18, transfer, type Scenario } from '../fixtures/evm/whales/scenario.js'
import { mulberry32 } from './mulberry32.js'
import { poll, type Npm } from './npm-start.js'
import { tmpDir } from './tmp-dir.js'
import { tradeBatch } from './trade-batch.js'

export const ADMIN = 'e2e-admin-token-signal-stops'
/** rows of each admin ingest batch */
const ROWS = 200
const T0 = Date.UTC(2026, 10, 10)

/** the JSON body of an answer */
export async function body(res: Promise<Response>): Promise<any> {
  return (await res).json()
}

/** A call with the admin token, or with `key` when given. */
export async function call(base: string, method: string, p: string, body?: string, key?: string): Promise<Response> {
  const auth: Record<string, string> = key ? { 'x-api-key': key } : { authorization: `Bearer ${ADMIN}` }
  return fetch(`${base}${p}`, { method, headers: { ...auth, 'content-type': 'application/json' }, body })
}

/** the admin ingest bodies of the stop runs (batch numbers after 's' in the trade ids) */
const BATCHES = { rows: ROWS, t0: T0, prefix: 's' }

/** One server's data directory, over all its runs, and what its workloads had acknowledged. */
export interface Group {
  /** the run's seed (STOP_SEED), named in the failures */
  readonly seed: number
  readonly name: string
  readonly data: ReturnType<typeof tmpDir>
  /** the random moments of this group's stops */
  readonly rnd: () => number
  /** the API key and webhook the group's first start creates */
  key: string
  webhookId: number
  readonly acked: { batches: Set<number>; events: Set<string>; calls: number }
  /** calls sent (answered or not): the most the stored count may hold */
  callsSent: number
  nextBatch: number
  nextEvent: number
}

/** group `i` of a run seeded `seed` */
export function group(i: number, seed: number): Group {
  return {
    seed,
    name: 'AB'[i]!,
    data: tmpDir(`tw-signal-stops-${i}-`),
    rnd: mulberry32(seed + i),
    key: '',
    webhookId: 0,
    acked: { batches: new Set(), events: new Set(), calls: 0 },
    callsSent: 0,
    nextBatch: 0,
    nextEvent: 0
  }
}

/** the groups' transfers one after another: the deployer's nonces come from anvil, one at a time */
let chainTurn: Promise<unknown> = Promise.resolve()

/** Runs every workload against `s` until it stops answering; resolves when all have ended. */
export function workloads(s: Npm, g: Group, chain: Scenario): Promise<unknown> {
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
      const i = g.nextBatch++
      const res = await call(s.base, 'POST', '/v1/admin/ingest/trade', tradeBatch(i, BATCHES))
      if (res.status === 201) g.acked.batches.add(i)
      await res.arrayBuffer()
    }),
    loop(async () => {
      g.callsSent++
      const res = await call(s.base, 'GET', '/v1/options/chain', undefined, g.key)
      if (res.status === 200) g.acked.calls++
      await res.arrayBuffer()
    }),
    loop(async () => {
      const id = `stop-${g.name}-${g.nextEvent++}`
      const body = JSON.stringify({ id, event: 'SIGNAL', symbol: 'ETH', direction: 'long' })
      const res = await call(s.base, 'POST', '/v1/admin/webhooks/events', body)
      if (res.status === 202) g.acked.events.add(id)
      await res.arrayBuffer()
    }),
    loop(async () => {
      // a streaming export of the candles the ingest builds, read slowly so one is in progress at the stop
      const q = `symbols=ETH&timeframe=1m&format=csv&start_time=${T0}&end_time=${T0 + 30 * 86_400_000}`
      g.callsSent++
      const res = await call(s.base, 'GET', `/v1/backtest/export?${q}`, undefined, g.key)
      if (res.status === 200) g.acked.calls++
      const reader = res.body!.getReader()
      while (!(await reader.read()).done) await new Promise((r) => setTimeout(r, 20))
    }),
    loop(async () => {
      // the chain source follows anvil: whale transfers mined while the server runs
      const mine = chainTurn.then(() =>
        transfer(chain, chain.usdc, chain.deployer, ACCOUNTS.exchange1, 2_000_000n * E18)
      )
      chainTurn = mine.catch(() => undefined)
      await mine
      await new Promise((r) => setTimeout(r, 200))
      if (s.child.exitCode !== null || s.child.signalCode !== null) throw new Error('stopped')
    })
  ])
}

/** Every batch answered 201 is stored whole, once (read with the group's server stopped). */
export async function verifyBatches(g: Group): Promise<void> {
  const store = new ChdbStore({ path: g.data.dir, poolSize: 1 })
  try {
    const rows = await store.query<{ b: string; n: number }>(
      "SELECT splitByChar('-', trade_id)[1] AS b, count() AS n FROM trades GROUP BY b"
    )
    const found = new Map(rows.map((r) => [Number(r.b.slice(1)), Number(r.n)]))
    for (const i of g.acked.batches) expect(found.get(i), `seed ${g.seed}, group ${g.name}, batch ${i}`).toBe(ROWS)
  } finally {
    await store.close()
  }
}

/** Every webhook event answered 202 has its delivery in the log, and each ends delivered. */
export async function verifyOutbox(s: Npm, g: Group): Promise<void> {
  const states = async (): Promise<Map<string, string>> => {
    const out = new Map<string, string>()
    let cursor: string | null = null
    do {
      const p: string = `/v1/webhooks/${g.webhookId}/deliveries?limit=100${cursor ? `&cursor=${cursor}` : ''}`
      const page = await body(call(s.base, 'GET', p, undefined, g.key))
      for (const d of page.deliveries) out.set(d.delivery_id, d.state)
      cursor = page.next_cursor
    } while (cursor)
    return out
  }
  await poll(
    'acknowledged webhook events delivered',
    async () => {
      const st = await states()
      const missing = [...g.acked.events].filter((e) => st.get(deliveryId(e, g.webhookId)) !== 'delivered')
      return missing.length === 0 ? true : undefined
    },
    60_000,
    s
  )
}
