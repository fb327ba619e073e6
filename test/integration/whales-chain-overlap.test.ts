/**
 * The evm:<chain> whale source hands a confirmed range's two tables to the ingest pipeline
 * (ingest/sources/chain/evm-whale-source.ts): the range's whale_transfers rows are written (the pipeline's
 * whale_transfers batcher) WHILE its chain_whale_events ("detail") batch is still being inserted (the
 * chain_whale_events batcher), and the range's checkpoint (engine_state `chain:ethereum`) is saved only once
 * BOTH are written. A full disk on the detail batch is the pipeline's to hold and retry: its health counters
 * move for the chain rows, and the checkpoint waits until the rows are in.
 *
 * Real parts: anvil (chain id 1) with the whale scenario, the chain client, a migrated chDB store, the watch
 * list, a real IngestPipeline with its BatchJournal driven by runSource. The only stand-in is a gate on the
 * store's chain_whale_events inserts (the store the source and the pipeline share): while it is closed the
 * detail insert has started but cannot finish; set to fail, it answers as a full disk does. The pipeline's
 * flush timer is set far beyond the test, so only the range's barrier can seal (and write) the batches.
 */
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ChainClients } from '../../engine/chain/chain-clients.js'
import { silentLogger } from '../../engine/log.js'
import type { FileInsert, InsertBatch, Store } from '../../engine/store/store.js'
import { StoreError } from '../../engine/store/store-error.js'
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
import { useMigratedStore } from '../helpers/migrated-store.js'

const env = useMigratedStore()
const log = silentLogger()

/** far beyond the test's run: a whale_transfers batch is sealed by a barrier only, never by the flush timer */
const NO_TIMED_FLUSH_MS = 600_000

/** The store's chain_whale_events inserts wait until `open()`; every other call goes straight through. */
function gatedStore(store: Store) {
  let open!: () => void
  const opened = new Promise<void>((r) => (open = r))
  /** `diskFull`: the next chain_whale_events inserts that fail as a full disk does */
  const gate = { entered: 0, opened: false, diskFull: 0, open: () => ((gate.opened = true), open()) }
  /** engine_state writes the source made (its checkpoints), recorded when issued */
  const checkpointWrites: unknown[] = []
  const held = async (table: string): Promise<void> => {
    if (table !== 'chain_whale_events') return
    gate.entered++
    await opened
    if (gate.diskFull > 0) {
      gate.diskFull--
      throw new StoreError('Code: 243. Cannot reserve 1.00 MiB, not enough space. (NOT_ENOUGH_SPACE)', 243, 'disk_full')
    }
  }
  const gated: Store = Object.assign(Object.create(store) as Store, {
    insertFile: async (b: FileInsert) => {
      await held(b.table)
      return store.insertFile!(b)
    },
    insert: async (b: InsertBatch) => {
      await held(b.table)
      return store.insert(b)
    },
    command: (sql: string, params?: Parameters<Store['command']>[1]) => {
      if (sql.includes('engine_state')) checkpointWrites.push(params)
      return store.command(sql, params)
    }
  })
  return { gated, gate, checkpointWrites }
}

const count = async (table: string, tx: string): Promise<number> => {
  const rows = await env.store.query<{ n: number }>(`SELECT count() AS n FROM ${table} WHERE tx_hash = {tx:String}`, {
    tx: tx.toLowerCase()
  })
  return Number(rows[0]!.n)
}

let anvil: Anvil
let clients: ChainClients
let pipeline: IngestPipeline
let running: Promise<void>
let gateOf: ReturnType<typeof gatedStore>
let scenario: Awaited<ReturnType<typeof deployScenario>>
const stop = new AbortController()

beforeAll(async () => {
  anvil = await startAnvil({ chainId: 1 })
  scenario = await deployScenario(anvil.url, 'ethereum')
  const lists = path.join(env.dir, 'watchlists')
  writeWatchlist(lists, 'ethereum', scenario)
  const start = Number(BigInt(await anvil.rpc<string>('eth_blockNumber')))
  const vars = {
    ETHEREUM_RPC_URL: anvil.url,
    ETHEREUM_CONFIRMATIONS: '1',
    ETHEREUM_START_BLOCK: String(start + 1),
    ETHEREUM_POLL_MS: '50',
    WATCHLIST_DIR: lists
  }
  clients = ChainClients.fromEnv(vars)
  gateOf = gatedStore(env.store)
  const source = new EvmWhaleSource({
    chain: 'ethereum',
    client: () => clients.get('ethereum')!,
    store: gateOf.gated,
    watchlists: new WatchlistRegistry(chainSourcesConfig(vars).watchlistDir),
    settings: chainSourcesConfig(vars).evm.ethereum,
    log
  })
  pipeline = new IngestPipeline(
    gateOf.gated,
    { batchRows: 50_000, flushMs: NO_TIMED_FLUSH_MS, queueRows: 500_000 },
    log,
    new BatchJournal(path.join(env.dir, 'journal'))
  )
  running = runSource(source, pipeline, stop.signal, log)
  await until('the source to start', async () => source.status().connected, 20_000)
}, 60_000)

afterAll(async () => {
  // a held range would keep the source in its barrier forever
  gateOf?.gate.open()
  stop.abort()
  await running?.catch(() => undefined)
  await pipeline?.close(Date.now() + 5_000)
  await clients?.close()
  await anvil?.stop()
})

describe('evm whale source: flow rows and detail rows of a range overlap', () => {
  it('writes whale_transfers while the detail insert is held, and saves the checkpoint only after both', async () => {
    const { gate, checkpointWrites } = gateOf
    const tx = await transfer(scenario, scenario.usdc, scenario.deployer, ACCOUNTS.exchange1, 2_000_000n * E18)
    const receipt = await anvil.rpc<{ blockNumber: string }>('eth_getTransactionReceipt', [tx])
    const block = Number(BigInt(receipt.blockNumber))

    // the pipeline writes the flow rows although the detail insert has started and cannot finish; the
    // rows are visible in the store a moment before the pipeline counts them written, so both are awaited
    await until(
      'whale_transfers rows of the transfer while the detail insert is held',
      async () => (await count('whale_transfers', tx)) > 0,
      20_000
    )
    await until('the detail insert to start', async () => gate.entered > 0, 20_000)
    await until(
      'the pipeline to count the whale_transfers rows written',
      async () => (pipeline.totals().tables['whale_transfers']?.written ?? 0) > 0,
      20_000
    )
    expect(gate.opened).toBe(false)
    expect(await count('chain_whale_events', tx)).toBe(0)
    expect(checkpointWrites).toEqual([])
    const before = await loadCheckpoint(env.store, 'ethereum')
    expect(before === null || before.block < block).toBe(true)

    // the detail insert finishes: then, and only then, the checkpoint reaches the range's block
    gate.open()
    const cp = await until(
      'the checkpoint to reach the transfer block',
      async () => {
        const c = await loadCheckpoint(env.store, 'ethereum')
        return c !== null && c.block >= block && c
      },
      20_000
    )
    expect(cp.block).toBe(block)
    expect(await count('chain_whale_events', tx)).toBe(2)
    expect(await count('whale_transfers', tx)).toBeGreaterThan(0)
    expect(pipeline.totals().tables['chain_whale_events']?.written).toBeGreaterThanOrEqual(2)
  })

  it('holds and retries a detail batch refused for a full disk; the checkpoint waits until it is written', async () => {
    const { gate, checkpointWrites } = gateOf
    const retriesBefore = pipeline.totals().tables['chain_whale_events']?.disk_full_retries ?? 0
    gate.diskFull = 2
    const tx = await transfer(scenario, scenario.usdc, scenario.deployer, ACCOUNTS.whale, 2_000_000n * E18)
    const receipt = await anvil.rpc<{ blockNumber: string }>('eth_getTransactionReceipt', [tx])
    const block = Number(BigInt(receipt.blockNumber))
    const checkpointed = (): boolean =>
      checkpointWrites.some(
        (p) => (JSON.parse(String((p as { value: string }).value)) as { block: number }).block >= block
      )

    // refused once: the pipeline holds the batch (its health says so), the checkpoint stays before the block
    await until('the detail batch refused for a full disk', async () => gate.diskFull < 2, 20_000)
    expect(checkpointed()).toBe(false)
    const cp = await until(
      'the checkpoint to reach the transfer block',
      async () => {
        const c = await loadCheckpoint(env.store, 'ethereum')
        return c !== null && c.block >= block && c
      },
      30_000
    )
    expect(cp.block).toBe(block)
    expect(gate.diskFull).toBe(0)
    const t = pipeline.totals().tables['chain_whale_events']!
    expect(t.disk_full_retries - retriesBefore).toBe(2)
    expect(t.failed).toBe(0)
    expect(t.waiting_for_disk).toBe(0)
    // written once, after the retries
    expect(await count('chain_whale_events', tx)).toBe(2)
  })
})
