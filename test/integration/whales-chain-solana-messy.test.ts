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
 * Real parts: a local HTTP JSON-RPC server on 127.0.0.1, a migrated chDB store, the watch list from files, and
 * the source driven by runSource through a real IngestPipeline with its journal. USDC transfers of 5,000,000
 * between two watched wallets (priced at 1: no trades needed), two events each.
 */
import fs from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
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
import { useMigratedStore } from '../helpers/migrated-store.js'

const env = useMigratedStore()
const log = silentLogger()
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'
const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGqPFXCWuBSf4VbVTBbzzmSD'
/** 5,000,000 USDC (6 decimals) */
const AMOUNT = 5_000_000_000_000n
const T0 = Math.floor(Date.now() / 1000) - 3_600

/** a base58-looking text of 88 characters, distinct per `tag` (signatures are only compared, never decoded) */
const sig = (tag: string): string => `Sig${tag}`.padEnd(88, 'x')
const key = (tag: string): string => `Key${tag}`.padEnd(44, 'z')

interface TxPlan {
  readonly signature: string
  readonly slot: number
  /** null answers before the transaction itself */
  nulls: number
  /** JSON-RPC error answers (as for a version the node cannot give) before the transaction itself */
  errors?: number
  /** getTransaction calls for it so far */
  asked?: number
  /** getTransaction for it is never answered */
  readonly hang?: boolean
  /** the receiver, when not the pair's second wallet (that wallet's signature list then leaves it out) */
  readonly to?: string
  readonly shape: 'ok' | 'no-fee' | 'no-err' | 'short-post' | 'empty-amount'
}

/** a USDC transfer of AMOUNT from `from` to `to`, as getTransaction (jsonParsed, v0) answers it */
function transaction(p: TxPlan, from: string, pairTo: string): unknown {
  const to = p.to ?? pairTo
  const meta: Record<string, unknown> = {
    err: null,
    fee: 5000,
    preBalances: [1_000_000_000, 1_000_000_000, 1, 2_039_280, 2_039_280],
    postBalances: [999_995_000, 1_000_000_000, 1, 2_039_280, 2_039_280],
    preTokenBalances: [
      { accountIndex: 3, mint: USDC, owner: from, uiTokenAmount: { amount: String(AMOUNT * 2n), decimals: 6 } },
      { accountIndex: 4, mint: USDC, owner: to, uiTokenAmount: { amount: '0', decimals: 6 } }
    ],
    postTokenBalances: [
      { accountIndex: 3, mint: USDC, owner: from, uiTokenAmount: { amount: String(AMOUNT), decimals: 6 } },
      { accountIndex: 4, mint: USDC, owner: to, uiTokenAmount: { amount: String(AMOUNT), decimals: 6 } }
    ],
    innerInstructions: []
  }
  if (p.shape === 'no-fee') delete meta['fee']
  if (p.shape === 'short-post') meta['postBalances'] = [999_995_000]
  if (p.shape === 'empty-amount')
    (meta['postTokenBalances'] as Array<{ uiTokenAmount: { amount: string } }>)[1]!.uiTokenAmount.amount = ''
  if (p.shape === 'no-err') delete meta['err']
  return {
    slot: p.slot,
    blockTime: T0 + (p.slot % 1_000),
    meta,
    transaction: {
      signatures: [p.signature],
      message: {
        accountKeys: [from, to, TOKEN_PROGRAM, key(`${p.slot}a`), key(`${p.slot}b`)].map((pubkey) => ({ pubkey })),
        instructions: []
      }
    }
  }
}

/**
 * A Solana node holding `plans` (oldest first) of which the newest `visible` are not yet shown: signature pages
 * newest first with `limit`, `before` and `until` as mainnet applies them, per wallet (a transaction is listed
 * for its sender and its receiver); getTransaction with the plan's nulls.
 */
async function solanaNode(plans: TxPlan[], from: string, to: string) {
  const state = { visible: 0, calls: new Map<string, number>() }
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString()) as { id: unknown; method: string; params: unknown[] }
      state.calls.set(body.method, (state.calls.get(body.method) ?? 0) + 1)
      let result: unknown = null
      let error: unknown
      if (body.method === 'getSlot') result = 400_000_000
      else if (body.method === 'getSignaturesForAddress') {
        const o = body.params[1] as { limit: number; before?: string; until?: string }
        // the wallet's own transactions: the sender's all, the pair's second wallet's those it receives
        const wallet = body.params[0]
        const newestFirst = plans
          .slice(0, state.visible)
          .filter((p) => wallet === from || wallet === (p.to ?? to))
          .reverse()
        let at = o.before === undefined ? 0 : newestFirst.findIndex((p) => p.signature === o.before) + 1
        const page: unknown[] = []
        for (; at < newestFirst.length && page.length < o.limit; at++) {
          const p = newestFirst[at]!
          if (p.signature === o.until) break
          page.push({ signature: p.signature, slot: p.slot, err: null, blockTime: T0 + (p.slot % 1_000) })
        }
        result = page
      } else if (body.method === 'getTransaction') {
        const p = plans.find((x) => x.signature === body.params[0])
        if (p !== undefined) p.asked = (p.asked ?? 0) + 1
        if (p?.hang === true) return // never answered: the request stays open
        if (p !== undefined && (p.errors ?? 0) > 0) {
          p.errors!--
          error = { code: -32015, message: 'Transaction version (1) is not supported' }
        } else if (p !== undefined && p.nulls > 0) p.nulls--
        else if (p !== undefined) result = transaction(p, from, to)
      }
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(
        JSON.stringify(
          error === undefined ? { jsonrpc: '2.0', id: body.id, result } : { jsonrpc: '2.0', id: body.id, error }
        )
      )
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    state,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections() // a request held open (`hang`) would keep the server from closing
        server.close(() => r())
      })
  }
}

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
