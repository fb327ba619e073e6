/**
 * Node trouble for the chain sources, on anvil (chain id 43114): a node that refuses eth_getLogs over more
 * than 2 blocks (the source halves its span and still finds every event) beside a bsc node that does not
 * answer at all (health shows it disconnected and its loop in backoff; avalanche keeps running).
 */
import net from 'node:net'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startAnvil, type Anvil } from '../helpers/evm/anvil.js'
import { tmpDir } from '../helpers/tmp-dir.js'
import type { Running } from '../../server/start.js'
import {
  ACCOUNTS,
  deployScenario,
  E18,
  swapEth,
  transfer,
  writeWatchlist,
  type Scenario
} from '../fixtures/evm/whales/scenario.js'
import { BEHIND, health, seedPrice, sourceHealth, startOn, until } from '../fixtures/evm/whales/harness.js'
import { rangeLimitProxy, type RangeLimitProxy } from '../fixtures/evm/whales/range-limit-proxy.js'

let anvil: Anvil
let proxy: RangeLimitProxy
let s: Scenario
const dirs = tmpDir()
let server: { running: Running; base: string }
const txs: string[] = []

/** a loopback port nothing listens on */
async function closedPort(): Promise<number> {
  const srv = net.createServer()
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r))
  const { port } = srv.address() as net.AddressInfo
  await new Promise<void>((r) => srv.close(() => r()))
  return port
}

beforeAll(async () => {
  anvil = await startAnvil({ chainId: 43114, args: BEHIND() })
  s = await deployScenario(anvil.url, 'avalanche')
  const first = Number(BigInt(await anvil.rpc<string>('eth_blockNumber'))) + 1
  writeWatchlist(path.join(dirs.dir, 'lists'), 'avalanche', s)
  txs.push(await transfer(s, s.usdc, s.deployer, ACCOUNTS.exchange1, 2_000_000n * E18))
  await anvil.rpc('anvil_mine', ['0x10'])
  txs.push(await swapEth(s, 100n * E18, [s.aaa, s.bbb]))
  await anvil.rpc('anvil_mine', ['0x10'])
  txs.push(await transfer(s, s.usdc, ACCOUNTS.exchange1, ACCOUNTS.whale, 1_000_000n * E18))
  proxy = await rangeLimitProxy(anvil.url, 2)
  // the price the events are valued with must be stored before the source reads the blocks
  const seeding = await startOn(path.join(dirs.dir, 'data'), {
    SOURCES: 'none',
    WATCHLIST_DIR: path.join(dirs.dir, 'lists')
  })
  await seedPrice(seeding.base, 'AVAX', 3_000)
  await seeding.running.stop()
  server = await startOn(path.join(dirs.dir, 'data'), {
    SOURCES: 'evm:avalanche,evm:bsc',
    AVALANCHE_RPC_URL: proxy.url,
    AVALANCHE_START_BLOCK: String(first),
    AVALANCHE_LOGS_MAX_RANGE: '1000',
    AVALANCHE_POLL_MS: '50',
    BSC_RPC_URL: `http://127.0.0.1:${await closedPort()}`,
    BSC_RPC_TIMEOUT_MS: '200',
    WATCHLIST_DIR: path.join(dirs.dir, 'lists')
  })
}, 120_000)

afterAll(async () => {
  await server?.running.stop()
  await proxy?.close()
  await anvil?.stop()
  dirs.cleanup()
})

describe('chain sources with node trouble', () => {
  it('a node that refuses wide eth_getLogs ranges: the span halves and every event is found', async () => {
    const last = Number(BigInt(await anvil.rpc<string>('eth_blockNumber')))
    await until(
      'avalanche caught up',
      async () => (await sourceHealth(server.base, 'evm:avalanche'))?.chain?.last_processed >= last,
      60_000
    )
    const found = await server.running.ctx.store.query<{ tx_hash: string }>(
      'SELECT DISTINCT tx_hash FROM chain_whale_events FINAL WHERE chain = {c:String}',
      { c: 'avalanche' }
    )
    expect(found.map((r) => r.tx_hash).sort()).toEqual(txs.map((t) => t.toLowerCase()).sort())
    const h = await sourceHealth(server.base, 'evm:avalanche')
    expect(h.connected).toBe(true)
    expect(h.chain.span_halvings).toBeGreaterThan(0)
    expect(h.chain.span_blocks).toBeLessThan(1000) // it grows back after 4 clean spans, and halves again
    expect(proxy.refused()).toBeGreaterThan(0)
  })

  it('an unreachable node is reported in health and retried; the other chain keeps running', async () => {
    const bsc = await until('bsc retried', async () => {
      const h = await health(server.base)
      const loop = h.loops.find((l: { name: string }) => l.name === 'source:evm:bsc')
      return loop?.errors >= 1 ? h : null
    })
    const entry = bsc.sources.find((x: { name: string }) => x.name === 'evm:bsc')
    expect(entry).toMatchObject({ connected: false })
    expect(entry.chain.rpc_errors).toBeGreaterThanOrEqual(1)
    expect(bsc.status).toBe('degraded')
    const avalanche = bsc.sources.find((x: { name: string }) => x.name === 'evm:avalanche')
    expect(avalanche.connected).toBe(true)
    const loop = bsc.loops.find((l: { name: string }) => l.name === 'source:evm:bsc')
    expect(loop.last_error).toMatch(/bsc/)
  })
})
