/**
 * The solana source against a local JSON-RPC node that answers like a busy or messy mainnet node (docs/sources.md;
 * ingest/sources/chain/solana-source.ts, "Messy answers"):
 *
 * - more new signatures than one page (`SOLANA_SIGNATURES_LIMIT=3`, 8 new): every one is read, by paging back
 *   with `before` to the checkpoint (reading only the newest page would move the checkpoint past the
 *   rest);
 * - a transaction answered null twice (not there yet), one answered a JSON-RPC error once: read on a later poll;
 * - a transaction without its fee, one whose post balances miss accounts, one with a token balance of "" units
 *   (none can become correct events): skipped and counted once each, the rest goes on;
 * - a transaction without `meta.err`: a success;
 * - a stop after the detail rows of a transaction were stored and before its flow rows were: the next run still
 *   writes the flow rows (finding the detail rows must not leave the events out of the flows for good);
 * - a transaction the node never gives: waited for while polls come within seconds, skipped (and counted) once
 *   it was missing at 3 polls over 5 minutes of the source's clock, and the signatures after it are read;
 * - a stop while the node holds a request open ends the run at once, not after the request's 10 s timeout.
 *
 * Real parts: a local HTTP JSON-RPC server on 127.0.0.1 (test/helpers/chain/solana-node.ts), a migrated chDB
 * store, the watch list from files, and the source driven by runSource through a real IngestPipeline with its
 * journal. USDC transfers of 5,000,000 between two watched wallets (priced at 1: no trades needed), two events
 * each.
 */
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { silentLogger } from '../../engine/log.js'
import type { FileInsert, InsertBatch, Store } from '../../engine/store/store.js'
import { WatchlistRegistry } from '../../engine/watchlist/registry.js'
import { BatchJournal } from '../../ingest/journal.js'
import { IngestPipeline } from '../../ingest/pipeline.js'
import { runSource } from '../../ingest/run-source.js'
import { chainSourcesConfig } from '../../ingest/sources/chain/chain-settings.js'
import { SolanaWhaleSource, type SolanaWhaleSourceOptions } from '../../ingest/sources/chain/solana-source.js'
import { until } from '../fixtures/evm/whales/harness.js'
import { key, sig, solanaNode, USDC, type TxPlan } from '../helpers/chain/solana-node.js'
import { useMigratedStore } from '../helpers/migrated-store.js'

const env = useMigratedStore()
const log = silentLogger()

const nodes: Array<{ close(): Promise<void> }> = []
afterAll(async () => {
  await Promise.all(nodes.map((n) => n.close()))
})

/** watch lists of two whales of one pair and USDC in their own directory */
function watchlist(name: string, a: string, b: string): string {
  const dir = path.join(env.dir, `lists-${name}`)
  fs.mkdirSync(dir, { recursive: true })
  const src = 'https://example.test/solana'
  fs.writeFileSync(
    path.join(dir, 'sol.wallets.csv'),
    `chain,address,label,entity,owner,source\nsolana,${a},Whale ${name} A,whale,A,${src}\nsolana,${b},Whale ${name} B,whale,B,${src}\n`
  )
  fs.writeFileSync(
    path.join(dir, 'sol.tokens.csv'),
    `chain,address,symbol,decimals,price_asset,source\nsolana,${USDC},USDC,6,USD,${src}\n`
  )
  return dir
}

let runs = 0

/** the source on `url` with `lists`, its own pipeline and journal, until `done` holds; then stopped */
async function runUntil(
  url: string,
  lists: string,
  done: (s: SolanaWhaleSource) => Promise<boolean>,
  store: Store = env.store,
  clock: Pick<SolanaWhaleSourceOptions, 'now' | 'requestTimeoutMs'> = {}
): Promise<{ source: SolanaWhaleSource; error: unknown }> {
  const settings = chainSourcesConfig({
    SOLANA_RPC_URL: url,
    SOLANA_POLL_MS: '30',
    SOLANA_SIGNATURES_LIMIT: '3',
    WATCHLIST_DIR: lists
  })
  const source = new SolanaWhaleSource({
    settings: settings.solana,
    store,
    watchlists: new WatchlistRegistry(settings.watchlistDir),
    log,
    ...clock
  })
  const pipeline = new IngestPipeline(
    store,
    { batchRows: 50_000, flushMs: 50, queueRows: 500_000 },
    log,
    new BatchJournal(path.join(env.dir, `journal-solana-${runs++}`))
  )
  const stop = new AbortController()
  let error: unknown = null
  let ended = false
  const running = runSource(source, pipeline, stop.signal, log)
    .catch((err: unknown) => (error = err))
    .finally(() => (ended = true))
  try {
    await until('the source', async () => ended || (await done(source)), 30_000)
  } finally {
    stop.abort()
    await running
    await pipeline.close(Date.now() + 5_000)
  }
  return { source, error }
}

async function flowRows(hashes: string[]): Promise<Array<{ tx_hash: string; address: string; n: number }>> {
  return env.store.query(
    `SELECT tx_hash, address, count() AS n FROM whale_transfers
     WHERE chain = 'solana' AND tx_hash IN {h:Array(String)} GROUP BY tx_hash, address ORDER BY tx_hash, address`,
    { h: hashes }
  )
}

async function checkpointOf(wallet: string): Promise<string | null> {
  const rows = await env.store.query<{ v: string }>(
    `SELECT argMax(value, updated) AS v FROM engine_state WHERE key = {k:String} GROUP BY key`,
    { k: `chain:solana:${wallet}` }
  )
  return rows[0]?.v ?? null
}

/**
 * A node holding `plans` for the wallet pair `name`A/`name`B, its watch list, and wallet A's checkpoint at the
 * signature before the first plan (`<name>0`), so a first run reads the plans the node shows (`visible`)
 */
async function resumedPair(name: string, plans: TxPlan[], visible: number) {
  const A = key(`${name}A`)
  const B = key(`${name}B`)
  const node = await solanaNode(plans, A, B)
  nodes.push(node)
  const lists = watchlist(name, A, B)
  await env.store.command(`INSERT INTO engine_state (key, value, updated) VALUES ({k:String}, {v:String}, now64(3))`, {
    k: `chain:solana:${A}`,
    v: sig(`${name}0`)
  })
  node.state.visible = visible
  return { A, B, node, lists }
}

describe('solana source on a busy, messy node', () => {
  const A = key('busyA')
  const B = key('busyB')
  const shapes: Record<number, TxPlan['shape']> = { 5: 'empty-amount', 6: 'no-fee', 7: 'no-err', 8: 'short-post' }
  const plans: TxPlan[] = [1, 2, 3, 4, 5, 6, 7, 8, 9].map((i) => ({
    signature: sig(`busy${i}`),
    slot: 300_000_000 + i,
    nulls: i === 4 ? 2 : 0,
    errors: i === 2 ? 1 : 0,
    shape: shapes[i] ?? 'ok',
    // one transfer to an unwatched wallet: B's signature list lacks it, so A's and B's chunks hold different
    // transactions, and only the lookup of stored flow rows keeps the shared ones from being written twice
    ...(i === 3 ? { to: key('busyX') } : {})
  }))
  let node: Awaited<ReturnType<typeof solanaNode>>

  beforeAll(async () => {
    node = await solanaNode(plans, A, B)
    nodes.push(node)
  })

  it('reads every signature since the checkpoint, waits for a missing transaction, skips a malformed one', async () => {
    const lists = watchlist('busy', A, B)
    // first start: no checkpoint, one signature on the node: the wallets are followed from it
    node.state.visible = 1
    await runUntil(node.url, lists, async () => (await checkpointOf(A)) === plans[0]!.signature)
    // eight more than a page of three arrive while the source is down
    node.state.visible = 9
    const { source, error } = await runUntil(
      node.url,
      lists,
      async () => (await checkpointOf(A)) === plans[8]!.signature && (await checkpointOf(B)) === plans[8]!.signature
    )
    expect(error).toBeNull()
    const malformed = new Set(['no-fee', 'short-post', 'empty-amount'])
    const stored = plans.filter((p) => !malformed.has(p.shape))
    const rows = await flowRows(plans.map((p) => p.signature))
    // every transaction but the malformed ones: both watched wallets' events, once each (A's alone when the
    // receiver is not watched)
    expect(rows.map((r) => [r.tx_hash, r.address, Number(r.n)])).toEqual(
      stored.flatMap((p) => (p.to === undefined ? [A, B].sort() : [A]).map((w) => [p.signature, w, 1]))
    )
    const health = source.status().chain
    expect(health.malformed_transactions).toBe(3)
    expect(health.transactions_unavailable).toBe(0)
    // the transaction answered null twice, and the one answered an error once, were asked again on later polls
    expect(plans[3]!.nulls).toBe(0)
    expect(plans[1]!.errors).toBe(0)
  })
})

describe('solana source stopped between the detail rows and the flow rows', () => {
  const plans: TxPlan[] = [{ signature: sig('stop1'), slot: 300_100_001, nulls: 0, shape: 'ok' }]

  it('writes the flow rows on the next run', async () => {
    // a checkpoint before the transaction, so the first run reads it
    const { A, B, node, lists } = await resumedPair('stop', plans, 1)
    // the store acknowledges the detail rows, and the process "dies" before the flow rows are written: the
    // barrier fails, the run ends before the checkpoint
    let flows = 0
    const dying: Store = Object.assign(Object.create(env.store) as Store, {
      insertFile: async (b: FileInsert) => {
        if (b.table === 'whale_transfers' && flows++ === 0) throw new Error('process stopped (test)')
        await env.store.insertFile!(b)
      },
      insert: async (b: InsertBatch) => {
        if (b.table === 'whale_transfers' && flows++ === 0) throw new Error('process stopped (test)')
        await env.store.insert(b)
      }
    })
    // the run ends by itself, with the barrier's error
    const first = await runUntil(node.url, lists, async () => false, dying)
    expect(flows).toBe(1)
    expect(String(first.error)).toContain('progress not checkpointed')
    const detailRows = await env.store.query<{ n: number }>(
      `SELECT count() AS n FROM chain_whale_events FINAL WHERE chain = 'solana' AND tx_hash = {h:String}`,
      { h: plans[0]!.signature }
    )
    expect(Number(detailRows[0]!.n)).toBe(2)
    expect(await flowRows([plans[0]!.signature])).toEqual([])
    // the next run: the rows are there once, and the checkpoint moves
    await runUntil(node.url, lists, async () => (await checkpointOf(A)) === plans[0]!.signature)
    const rows = await flowRows([plans[0]!.signature])
    expect(rows.map((r) => [r.address, Number(r.n)])).toEqual([A, B].sort().map((w) => [w, 1]))
  })
})

describe('solana source and a transaction the node never gives', () => {
  const plans: TxPlan[] = [1, 2, 3].map((i) => ({
    signature: sig(`gone${i}`),
    slot: 300_200_000 + i,
    nulls: i === 2 ? Number.MAX_SAFE_INTEGER : 0,
    shape: 'ok'
  }))

  it('waits for it for 3 polls over 5 minutes, then skips it, counted, and reads on', async () => {
    const { A, node, lists } = await resumedPair('gone', plans, 3)
    // the source's clock: ten minutes pass once the transaction was asked for at 4 polls within seconds
    let offset = 0
    const { source } = await runUntil(
      node.url,
      lists,
      async (s) => {
        if ((plans[1]!.asked ?? 0) >= 4 && offset === 0) {
          // still waited for: the checkpoint stays before it
          expect(await checkpointOf(A)).toBe(plans[0]!.signature)
          expect(s.status().chain.transactions_unavailable).toBe(0)
          offset = 10 * 60_000
        }
        return (await checkpointOf(A)) === plans[2]!.signature
      },
      env.store,
      { now: () => Date.now() + offset }
    )
    expect(source.status().chain.transactions_unavailable).toBe(1)
    const rows = await flowRows(plans.map((p) => p.signature))
    expect(rows.map((r) => r.tx_hash)).toEqual(
      [plans[0]!.signature, plans[0]!.signature, plans[2]!.signature, plans[2]!.signature].sort()
    )
  })
})

describe('solana source stopped while the node holds a request', () => {
  it('ends at once instead of waiting for the request timeout', async () => {
    const plans: TxPlan[] = [{ signature: sig('hang1'), slot: 300_300_001, nulls: 0, shape: 'ok', hang: true }]
    const { node, lists } = await resumedPair('hang', plans, 1)
    // a request timeout past the test's own (60 s): the run ends within the test only if the stop ends the call
    const { error } = await runUntil(
      node.url,
      lists,
      async () => (plans[0]!.asked ?? 0) > 0, // runUntil stops the source now, with the getTransaction call in flight
      env.store,
      { requestTimeoutMs: 10 * 60_000 }
    )
    expect(error).toBeNull()
  })
})
