/**
 * Record and replay of RPC answers (CHAIN_RECORD_DIR / CHAIN_REPLAY_DIR): a run of evm:ethereum against
 * anvil (chain id 1) is recorded; with the node gone, a fresh service replaying the recording derives the
 * same whale events, so a bug report from a user's node can be reproduced offline. The recorded node refuses
 * eth_getLogs over more than one block (test/fixtures/evm/whales/range-limit-proxy.ts), as many providers refuse
 * wide spans: the refusals are on the tape too, so the replay halves its spans as the recorded run did (with
 * only answers recorded, the replay would fail on its first, unrecorded, wide span forever).
 */
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startAnvil, type Anvil } from '../helpers/evm/anvil.js'
import { tmpDir } from '../helpers/tmp-dir.js'
import type { Running } from '../../server/start.js'
import { ACCOUNTS, deployScenario, E18, swapEth, transfer, writeWatchlist } from '../fixtures/evm/whales/scenario.js'
import { BEHIND, seedPrice, sourceHealth, startOn, until } from '../fixtures/evm/whales/harness.js'
import { rangeLimitProxy, type RangeLimitProxy } from '../fixtures/evm/whales/range-limit-proxy.js'

const dirs = tmpDir()
let anvil: Anvil | null = null
let proxy: RangeLimitProxy | null = null
let server: { running: Running; base: string } | null = null
let last = 0
let first = 0

const EVENTS_SQL = `SELECT tx_hash, address, event_type, token, amount, token_in, usd_value, hops, repeat_count, circular
  FROM chain_whale_events FINAL WHERE chain = 'ethereum' ORDER BY tx_hash, address`

async function seeded(data: string, lists: string): Promise<void> {
  const seeding = await startOn(data, { SOURCES: 'none', WATCHLIST_DIR: lists })
  await seedPrice(seeding.base, 'ETH', 3_000)
  await seeding.running.stop()
}

beforeAll(async () => {
  anvil = await startAnvil({ chainId: 1, args: BEHIND() })
  const s = await deployScenario(anvil.url, 'ethereum')
  const lists = path.join(dirs.dir, 'lists')
  writeWatchlist(lists, 'ethereum', s)
  first = Number(BigInt(await anvil.rpc<string>('eth_blockNumber'))) + 1
  await transfer(s, s.usdc, s.deployer, ACCOUNTS.exchange1, 2_000_000n * E18)
  await swapEth(s, 200n * E18, [s.aaa, s.bbb])
  last = Number(BigInt(await anvil.rpc<string>('eth_blockNumber')))
  await seeded(path.join(dirs.dir, 'a'), lists)
  await seeded(path.join(dirs.dir, 'b'), lists)
  const env = {
    SOURCES: 'evm:ethereum',
    ETHEREUM_CONFIRMATIONS: '1',
    ETHEREUM_START_BLOCK: String(first),
    ETHEREUM_POLL_MS: '50',
    WATCHLIST_DIR: lists
  }
  proxy = await rangeLimitProxy(anvil.url, 1)
  server = await startOn(path.join(dirs.dir, 'a'), {
    ...env,
    ETHEREUM_RPC_URL: proxy.url,
    CHAIN_RECORD_DIR: path.join(dirs.dir, 'tape')
  })
  await until(
    'recorded run caught up',
    async () => (await sourceHealth(server!.base, 'evm:ethereum'))?.chain?.last_processed >= last
  )
}, 120_000)

afterAll(async () => {
  await server?.running.stop()
  await proxy?.close()
  await anvil?.stop()
  dirs.cleanup()
})

describe('RPC record and replay', () => {
  it('replays a recorded run with the node gone and derives the same events', async () => {
    const recorded = await server!.running.ctx.store.query(EVENTS_SQL)
    expect(recorded.length).toBe(3) // the transfer's two sides and the swap
    await server!.running.stop()
    server = null
    await anvil!.stop()
    anvil = null
    const tape = path.join(dirs.dir, 'tape', 'evm-ethereum.ndjson')
    const lines = fs.readFileSync(tape, 'utf8').split('\n').filter(Boolean)
    expect(lines.length).toBeGreaterThan(5)
    // the node's refusals of wide spans are recorded with their answers
    const refusals = lines.map((l) => JSON.parse(l) as { method: string; error?: { text: string } })
    expect(
      refusals.filter((l) => l.method === 'logs' && l.error?.text.includes('max block range')).length
    ).toBeGreaterThan(0)
    server = await startOn(path.join(dirs.dir, 'b'), {
      SOURCES: 'evm:ethereum',
      ETHEREUM_RPC_URL: 'http://127.0.0.1:9', // nothing listens: every answer comes from the tape
      ETHEREUM_CONFIRMATIONS: '1',
      ETHEREUM_START_BLOCK: String(first),
      ETHEREUM_POLL_MS: '50',
      WATCHLIST_DIR: path.join(dirs.dir, 'lists'),
      CHAIN_REPLAY_DIR: path.join(dirs.dir, 'tape')
    })
    await until(
      'replayed run caught up',
      async () => (await sourceHealth(server!.base, 'evm:ethereum'))?.chain?.last_processed >= last
    )
    expect(await server.running.ctx.store.query(EVENTS_SQL)).toEqual(recorded)
  })
})
