/**
 * The evm:<chain> whale source writes backfill batches in groups (ingest/sources/chain/evm-whale-source.ts,
 * "Backfill writes in groups"): the events of consecutive backfill batches are held and written with one
 * detail insert, one whale_transfers batch and one checkpoint once they number CHAIN_WRITE_EVENTS (or were held
 * CHAIN_WRITE_HOLD_MS, or the backfill ends). With the hold at 0 every batch is written on its own.
 *
 * Real parts: anvil (one per case, each with its chain's id: 1, 56, 43114, 137, 42161, 8453, 10) with the whale
 * scenario, the chain client, a migrated chDB store, the watch list, a real IngestPipeline with its BatchJournal
 * driven by runSource. The store (the source's and the pipeline's) is wrapped only to count the
 * chain_whale_events inserts and the checkpoint writes it receives.
 *
 * Shape: 6 blocks s .. s+5 with one 2,000,000 USDC transfer each (2 events per transfer: the sender's
 * transfer_out and the receiver's transfer_in), then 10 empty blocks up to the head s+15; CHAIN_BATCH_BLOCKS=2,
 * one confirmation. Batches: [s,s+1] 4 events, [s+2,s+3] 8 events (group full at CHAIN_WRITE_EVENTS=8),
 * [s+4,s+5] .. [s+12,s+13] held (4 events), [s+14,s+15] the last batch (not backfill any more: written with the
 * group).
 *
 * A third case (chain id 43114, depth 3) reorganises a transfer from block B into B + 1 while the source is
 * down, after it stored the transfer as pending: the group that retracts it at B and confirms it at B + 1
 * keeps it confirmed (the group's retractions rank below its confirmed rows).
 *
 * Three more cases put a JSON-RPC proxy (test/helpers/evm/rpc-proxy.ts) between the source and anvil: eth_getLogs
 * answered late, so the hold closes groups; eth_blockNumber answered with an older block (the head went back),
 * so the held group is written at once; a late answer during which the source is stopped with a group held.
 */
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ChainClients } from '../../engine/chain/chain-clients.js'
import type { EvmChainName } from '../../engine/chain/chains.js'
import { silentLogger } from '../../engine/log.js'
import { WatchlistRegistry } from '../../engine/watchlist/registry.js'
import { loadCheckpoint } from '../../engine/whales/chain-event-store.js'
import { BatchJournal } from '../../ingest/journal.js'
import { IngestPipeline } from '../../ingest/pipeline.js'
import { runSource } from '../../ingest/run-source.js'
import { chainSourcesConfig } from '../../ingest/sources/chain/chain-settings.js'
import { EvmWhaleSource } from '../../ingest/sources/chain/evm-whale-source.js'
import { until } from '../fixtures/evm/whales/harness.js'
import { ACCOUNTS, deployScenario, E18, transfer, writeWatchlist } from '../fixtures/evm/whales/scenario.js'
import { startAnvil, type Anvil } from '../helpers/evm/anvil.js'
import { startRpcProxy, type RpcProxy, type RpcRequest } from '../helpers/evm/rpc-proxy.js'
import { useMigratedStore } from '../helpers/migrated-store.js'
import { countingStore } from '../helpers/whales/counting-store.js'

const env = useMigratedStore()
const log = silentLogger()

const TRANSFERS = 6
const EMPTY_BLOCKS = 10
const RECEIVERS = [ACCOUNTS.exchange1, ACCOUNTS.whale, ACCOUNTS.friend] as const

const anvils: Anvil[] = []
const proxies: RpcProxy[] = []
afterAll(async () => {
  await Promise.all(proxies.map((p) => p.close()))
  await Promise.all(anvils.map((a) => a.stop()))
})

/** the last block of an eth_getLogs request, or null for any other request */
function logsTo(r: RpcRequest): number | null {
  if (r.method !== 'eth_getLogs') return null
  const f = (r.params?.[0] ?? {}) as { toBlock?: string }
  return f.toBlock === undefined ? null : Number(BigInt(f.toBlock))
}

/** `vars` with the chain's RPC URL pointing at a proxy under `rule` in front of its node (closed after all) */
async function behindProxy(
  chain: EvmChainName,
  vars: Record<string, string>,
  rule: Parameters<typeof startRpcProxy>[1]
): Promise<Record<string, string>> {
  const key = `${chain.toUpperCase()}_RPC_URL`
  const proxy = await startRpcProxy(vars[key]!, rule)
  proxies.push(proxy)
  return { ...vars, [key]: proxy.url }
}

let runs = 0

/**
 * The source of `chain` under `vars`, with its own ingest pipeline and journal on the file's store, until
 * `done` holds; then stopped. Returns what the store received from it.
 */
async function runUntil(
  chain: EvmChainName,
  vars: Record<string, string>,
  what: string,
  done: () => Promise<boolean>,
  opts: {
    /** every chain_whale_events insert fails */
    readonly failDetails?: boolean
    /** the source's clock for the write hold, ms. @default performance.now */
    readonly now?: () => number
    /** called right after the source was told to stop, before its run has ended */
    readonly onStop?: () => void
  } = {}
): Promise<ReturnType<typeof countingStore>['seen']> {
  const { failDetails = false, now, onStop } = opts
  const clients = ChainClients.fromEnv(vars)
  const { counted, seen } = countingStore(env.store, failDetails, now)
  const settings = chainSourcesConfig(vars)
  const source = new EvmWhaleSource({
    chain,
    client: () => clients.get(chain)!,
    store: counted,
    watchlists: new WatchlistRegistry(settings.watchlistDir),
    settings: settings.evm[chain],
    log,
    ...(now === undefined ? {} : { now })
  })
  const pipeline = new IngestPipeline(
    counted,
    { batchRows: 50_000, flushMs: 50, queueRows: 500_000 },
    log,
    new BatchJournal(path.join(env.dir, `journal-${chain}-${runs++}`))
  )
  const stop = new AbortController()
  // a run that ends with an error (a failed detail insert) is what one case asks for: caught at once, so its
  // rejection is never left unhandled while `done` is polled
  const running = runSource(source, pipeline, stop.signal, log).catch(() => undefined)
  try {
    await until(what, done, 30_000)
  } finally {
    stop.abort()
    onStop?.()
    await running
    await pipeline.close(Date.now() + 5_000)
    await clients.close()
  }
  return seen
}

/**
 * Transfers on a fresh anvil, then the source reads them from the block after the deployment until its
 * checkpoint reaches the head. Returns the first block read, the transfers and what the store received.
 */
/** A fresh anvil with the transfers and empty blocks, and the source's settings to read them from the start. */
async function history(chain: EvmChainName, chainId: number, vars: Record<string, string>) {
  const anvil = await startAnvil({ chainId })
  anvils.push(anvil)
  const scenario = await deployScenario(anvil.url, chain)
  const lists = path.join(env.dir, `watchlists-${chain}`)
  writeWatchlist(lists, chain, scenario)
  const start = Number(BigInt(await anvil.rpc<string>('eth_blockNumber'))) + 1
  const txs: string[] = []
  for (let i = 0; i < TRANSFERS; i++) {
    const to = RECEIVERS[i % RECEIVERS.length]!
    txs.push(await transfer(scenario, scenario.usdc, scenario.deployer, to, 2_000_000n * E18))
  }
  await anvil.rpc('anvil_mine', [`0x${EMPTY_BLOCKS.toString(16)}`])
  const head = Number(BigInt(await anvil.rpc<string>('eth_blockNumber')))
  expect(head).toBe(start + TRANSFERS + EMPTY_BLOCKS - 1)
  const p = chain.toUpperCase()
  const all = {
    [`${p}_RPC_URL`]: anvil.url,
    [`${p}_CONFIRMATIONS`]: '1',
    [`${p}_START_BLOCK`]: String(start),
    [`${p}_POLL_MS`]: '50',
    CHAIN_BATCH_BLOCKS: '2',
    WATCHLIST_DIR: lists,
    ...vars
  }
  return { start, head, txs, vars: all }
}

/** a group that neither its size (1,000 events) nor its hold (10 minutes) closes in these tests */
const HELD = { CHAIN_WRITE_EVENTS: '1000', CHAIN_WRITE_HOLD_MS: '600000' }

const reachedHead = (chain: EvmChainName, head: number) => async (): Promise<boolean> => {
  const cp = await loadCheckpoint(env.store, chain)
  return cp !== null && cp.block >= head
}

/** the history read by the source until its checkpoint reaches the head */
async function backfill(chain: EvmChainName, chainId: number, vars: Record<string, string>) {
  const h = await history(chain, chainId, vars)
  const seen = await runUntil(chain, h.vars, 'the checkpoint to reach the head', reachedHead(chain, h.head))
  return { ...h, seen }
}

const countOf = async (sql: string, chain: string, txs: readonly string[]): Promise<number> => {
  const rows = await env.store.query<{ n: number }>(sql, { chain, txs: txs.map((t) => t.toLowerCase()) })
  return Number(rows[0]!.n)
}
const WHERE = 'WHERE chain = {chain:String} AND tx_hash IN {txs:Array(String)}'

/** every transfer's two events stored once, in the detail table and in whale_transfers */
async function expectEachOnce(chain: string, txs: readonly string[]): Promise<void> {
  expect(await countOf(`SELECT count() AS n FROM chain_whale_events FINAL ${WHERE}`, chain, txs)).toBe(2 * txs.length)
  expect(await countOf(`SELECT count() AS n FROM chain_whale_events ${WHERE}`, chain, txs)).toBe(2 * txs.length)
  // whale_transfers is a plain MergeTree: a row written twice would stay twice
  const rows = await countOf(`SELECT count() AS n FROM whale_transfers ${WHERE}`, chain, txs)
  const distinct = await countOf(
    `SELECT uniqExact(tx_hash, log_index, address) AS n FROM whale_transfers ${WHERE}`,
    chain,
    txs
  )
  // every transfer here is priced (USDC) and not circular: both of its events count in flows
  expect(rows).toBe(2 * txs.length)
  expect(distinct).toBe(rows)
}

describe('evm whale source: backfill batches are written in groups', () => {
  it('holds batches until the group has CHAIN_WRITE_EVENTS events, and writes the rest with the last batch', async () => {
    const { start, head, txs, seen } = await backfill('ethereum', 1, {
      CHAIN_WRITE_EVENTS: '8',
      CHAIN_WRITE_HOLD_MS: '600000'
    })
    // 8 batches of 2 blocks, 2 writes: the group that reached 8 events and the group the backfill's end closed
    expect(seen.checkpoints.map((c) => c.block)).toEqual([start + 3, head])
    expect(seen.detailInserts).toBe(2)
    await expectEachOnce('ethereum', txs)
  }, 120_000)

  it('writes every batch on its own when the hold is 0', async () => {
    const { start, head, txs, seen } = await backfill('bsc', 56, { CHAIN_WRITE_EVENTS: '8', CHAIN_WRITE_HOLD_MS: '0' })
    const batches = Array.from({ length: (head - start + 1) / 2 }, (_, i) => start + 2 * i + 1)
    expect(seen.checkpoints.map((c) => c.block)).toEqual(batches)
    // one detail insert per batch with events: [s+1,s+2], [s+3,s+4], [s+5,s+6]
    expect(seen.detailInserts).toBe(3)
    await expectEachOnce('bsc', txs)
  }, 120_000)

  it('a pending event retracted in one batch of a group and confirmed in a later one stays confirmed', async () => {
    // confirmation depth 3: the source, live, stores the transfer as pending at block B. Then the chain is
    // reorganised while the source is down: B is empty and the same signed transaction lands in B + 1. The
    // restarted source backfills both blocks in one group, one block a batch: batch B retracts the pending
    // rows (their block no longer holds them), batch B + 1 confirms the same keys. The retraction must rank
    // below the group's confirmed rows, or the event would be lost.
    const chain = 'avalanche'
    const anvil = await startAnvil({ chainId: 43114 })
    anvils.push(anvil)
    const scenario = await deployScenario(anvil.url, chain)
    const lists = path.join(env.dir, `watchlists-${chain}`)
    writeWatchlist(lists, chain, scenario)
    const blockNumber = async (): Promise<number> => Number(BigInt(await anvil.rpc<string>('eth_blockNumber')))
    const vars = {
      AVALANCHE_RPC_URL: anvil.url,
      AVALANCHE_CONFIRMATIONS: '3',
      AVALANCHE_START_BLOCK: String((await blockNumber()) + 1),
      AVALANCHE_POLL_MS: '50',
      CHAIN_BATCH_BLOCKS: '1',
      CHAIN_WRITE_EVENTS: '1000',
      CHAIN_WRITE_HOLD_MS: '600000',
      WATCHLIST_DIR: lists
    }
    const statuses = async (tx: string): Promise<string[]> =>
      (
        await env.store.query<{ status: string }>(
          'SELECT status FROM chain_whale_events FINAL WHERE chain = {chain:String} AND tx_hash = {tx:String}',
          { chain, tx }
        )
      ).map((r) => r.status)

    const snapshot = await anvil.rpc<string>('evm_snapshot')
    const tx = (
      await transfer(scenario, scenario.usdc, scenario.deployer, ACCOUNTS.exchange1, 2_000_000n * E18)
    ).toLowerCase()
    const raw = await anvil.rpc<string>('eth_getRawTransactionByHash', [tx])
    const pendingAt = await blockNumber()
    await runUntil(chain, vars, 'the transfer stored as pending', async () => {
      const s = await statuses(tx)
      return s.length === 2 && s.every((x) => x === 'pending')
    })

    await anvil.rpc('evm_revert', [snapshot])
    await anvil.rpc('anvil_mine', ['0x1'])
    expect(await anvil.rpc<string>('eth_sendRawTransaction', [raw])).toBe(tx)
    // anvil mines a sent transaction on its own time: its receipt may not be there at once
    const receipt = await until('the resent transaction mined', () =>
      anvil.rpc<{ blockNumber: string } | null>('eth_getTransactionReceipt', [tx])
    )
    expect(Number(BigInt(receipt.blockNumber))).toBe(pendingAt + 1)
    await anvil.rpc('anvil_mine', ['0xa'])
    const head = await blockNumber()

    const seen = await runUntil(chain, vars, 'the checkpoint to reach the confirmed head', async () => {
      const cp = await loadCheckpoint(env.store, chain)
      return cp !== null && cp.block >= head - 2
    })
    // blocks B and B + 1 were written in one group: its first write ends after B + 1 (the backfill's last
    // batches, no longer behind by more than a batch, are written one by one)
    expect(seen.checkpoints[0]!.block).toBeGreaterThan(pendingAt + 1)
    expect(await statuses(tx)).toEqual(['confirmed', 'confirmed'])
    const flows = await env.store.query<{ n: number }>(
      'SELECT count() AS n FROM whale_transfers WHERE chain = {chain:String} AND tx_hash = {tx:String}',
      { chain, tx }
    )
    expect(Number(flows[0]!.n)).toBe(2)
  }, 120_000)

  it('after a group whose flow rows were written without its checkpoint, a restart with other groups writes none twice', async () => {
    // first run: one group for the whole backfill; the pipeline writes its whale_transfers rows, its detail
    // insert fails, so its checkpoint is never saved
    const h = await history('polygon', 137, HELD)
    const first = await runUntil(
      'polygon',
      h.vars,
      "the group's flow rows without its detail rows",
      async () => (await countOf(`SELECT count() AS n FROM whale_transfers ${WHERE}`, 'polygon', h.txs)) === 12,
      { failDetails: true }
    )
    expect(first.checkpoints).toEqual([])
    expect(first.detailInserts).toBeGreaterThan(0)
    expect(await loadCheckpoint(env.store, 'polygon')).toBeNull()
    // second run: groups of 4 events end at blocks the first group did not ([s+1,s+2], [s+3,s+4], ...)
    const second = await runUntil(
      'polygon',
      { ...h.vars, CHAIN_WRITE_EVENTS: '4' },
      'the checkpoint to reach the head',
      reachedHead('polygon', h.head)
    )
    expect(second.checkpoints.map((c) => c.block).slice(0, 3)).toEqual([h.start + 1, h.start + 3, h.start + 5])
    await expectEachOnce('polygon', h.txs)
  }, 120_000)

  it('closes a group once CHAIN_WRITE_HOLD_MS has passed since its first batch was read', async () => {
    // the source's clock moves DELAY_MS on every eth_getLogs answer (and not otherwise): 16 one-block batches
    // take 1.6 s of it, longer than the hold, so the hold (not the event count, 1,000, nor the backfill's end)
    // closes the first group, however fast the machine reads them
    const DELAY_MS = 100
    const HOLD_MS = 1_200
    const h = await history('arbitrum', 42161, {
      CHAIN_BATCH_BLOCKS: '1',
      CHAIN_WRITE_EVENTS: '1000',
      CHAIN_WRITE_HOLD_MS: String(HOLD_MS)
    })
    let clockMs = 0
    let firstAnswer: number | null = null
    const vars = await behindProxy('arbitrum', h.vars, (r) => {
      if (logsTo(r) === null) return undefined
      clockMs += DELAY_MS
      firstAnswer ??= clockMs
      return undefined
    })
    const seen = await runUntil('arbitrum', vars, 'the checkpoint to reach the head', reachedHead('arbitrum', h.head), {
      now: () => clockMs
    })
    const blocks = seen.checkpoints.map((c) => c.block)
    // the last two batches are no longer backfill (the second to last closes the group it joins, the last is
    // written alone): with the hold ignored, [head - 1, head]; with no hold, one checkpoint per batch (16)
    expect(blocks.slice(-2)).toEqual([h.head - 1, h.head])
    expect(blocks.length).toBeGreaterThanOrEqual(3)
    expect(blocks.length).toBeLessThan(h.head - h.start + 1)
    // a group is written no sooner than the hold after its first batch was read (and that batch's logs came)
    expect(seen.checkpointAt[0]! - firstAnswer!).toBeGreaterThanOrEqual(HOLD_MS)
    await expectEachOnce('arbitrum', h.txs)
  }, 120_000)

  it("writes a held group when the node's head goes back behind the next block", async () => {
    // a failover to a node behind the last one, played by a proxy: once the batch ending at BACK has been
    // asked for, eth_blockNumber answers BACK. The backfill cannot go on, and the group it holds (1,000 events
    // and a 10-minute hold are never reached) is written at once, with its checkpoint at BACK.
    const h = await history('base', 8453, HELD)
    // batches of 2 blocks from start: [s, s+1], [s+2, s+3], [s+4, s+5]; the transfers are in s .. s+5
    const back = h.start + 5
    let wentBack = false
    const vars = await behindProxy('base', h.vars, (r) => {
      if ((logsTo(r) ?? -1) >= back) wentBack = true
      if (!wentBack || r.method !== 'eth_blockNumber') return undefined
      return { jsonrpc: '2.0', id: r.id, result: `0x${back.toString(16)}` }
    })
    const seen = await runUntil('base', vars, 'a checkpoint at the head gone back', async () => {
      const cp = await loadCheckpoint(env.store, 'base')
      return cp !== null && cp.block >= back
    })
    expect(seen.checkpoints.map((c) => c.block)).toEqual([back])
    expect(seen.detailInserts).toBe(1)
    await expectEachOnce('base', h.txs)
  }, 120_000)

  it('a stop with a group held writes none of it, and the next start writes it once', async () => {
    // the batch after [s, s+3] is answered only once the source was told to stop: the stop comes while it
    // holds the group of [s, s+3], however fast the machine
    const h = await history('optimism', 10, HELD)
    const held = h.start + 3
    let asked = false
    let release = (): void => undefined
    const stopped = new Promise<void>((r) => (release = r))
    const vars = await behindProxy('optimism', h.vars, async (r) => {
      if ((logsTo(r) ?? -1) <= held) return undefined
      asked = true
      await stopped
      return undefined
    })
    const first = await runUntil('optimism', vars, 'the batch after the group asked for', async () => asked, {
      onStop: release
    })
    expect(first.checkpoints).toEqual([])
    expect(first.detailInserts).toBe(0)
    expect(await loadCheckpoint(env.store, 'optimism')).toBeNull()
    expect(await countOf(`SELECT count() AS n FROM chain_whale_events ${WHERE}`, 'optimism', h.txs)).toBe(0)
    expect(await countOf(`SELECT count() AS n FROM whale_transfers ${WHERE}`, 'optimism', h.txs)).toBe(0)
    // the next start reads the dropped group again, straight from the node
    await runUntil('optimism', h.vars, 'the checkpoint to reach the head', reachedHead('optimism', h.head))
    await expectEachOnce('optimism', h.txs)
  }, 120_000)
})
