/**
 * Reorgs and restarts of the evm:bsc source on anvil (chain id 56), confirmation depth 3: an event seen
 * inside the depth is stored pending, retracted when its block leaves the chain (evm_snapshot/evm_revert),
 * and never reaches whale_transfers or the flow aggregates; a restart resumes after the checkpoint with no
 * gap and no duplicate row; a reorg deeper than the depth while the service is down (the checkpoint's block
 * replaced) is counted in `deep_reorgs` by the first batch after the restart.
 */
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startAnvil, type Anvil } from '../helpers/evm/anvil.js'
import { tmpDir } from '../helpers/tmp-dir.js'
import type { Running } from '../../server/start.js'
import {
  ACCOUNTS,
  deployScenario,
  E18,
  transfer,
  writeWatchlist,
  type Scenario
} from '../fixtures/evm/whales/scenario.js'
import { ADMIN, BEHIND, seedPrice, sourceHealth, startOn, until } from '../fixtures/evm/whales/harness.js'

let anvil: Anvil
let s: Scenario
const dirs = tmpDir()
let env: Record<string, string>
let server: { running: Running; base: string } | null = null

const mine = (n: number): Promise<unknown> => anvil.rpc('anvil_mine', [`0x${n.toString(16)}`])
const head = async (): Promise<number> => Number(BigInt(await anvil.rpc<string>('eth_blockNumber')))

async function rows(sql: string, params: Record<string, string> = {}): Promise<any[]> {
  return server!.running.ctx.store.query(sql, params)
}

async function processed(block: number): Promise<void> {
  await until(
    `block ${block} processed`,
    async () => (await sourceHealth(server!.base, 'evm:bsc'))?.chain?.last_processed >= block
  )
}

beforeAll(async () => {
  anvil = await startAnvil({ chainId: 56, args: BEHIND() })
  s = await deployScenario(anvil.url, 'bsc')
  writeWatchlist(path.join(dirs.dir, 'lists'), 'bsc', s)
  env = {
    SOURCES: 'evm:bsc',
    BSC_RPC_URL: anvil.url,
    BSC_CONFIRMATIONS: '3',
    BSC_START_BLOCK: String((await head()) + 1),
    BSC_POLL_MS: '50',
    WATCHLIST_DIR: path.join(dirs.dir, 'lists')
  }
  server = await startOn(path.join(dirs.dir, 'data'), env)
  await seedPrice(server.base, 'BNB', 600)
}, 120_000)

afterAll(async () => {
  await server?.running.stop()
  await anvil?.stop()
  dirs.cleanup()
})

describe('evm:bsc on anvil (chain id 56): reorgs and restarts', () => {
  it('retracts a pending event whose block left the chain; the aggregates never count it', async () => {
    const snapshot = await anvil.rpc<string>('evm_snapshot')
    const orphan = (await transfer(s, s.usdc, s.deployer, ACCOUNTS.exchange1, 3_000_000n * E18)).toLowerCase()
    await until('the pending event', async () => {
      const r = await rows(`SELECT status FROM chain_whale_events FINAL WHERE tx_hash = {tx:String}`, { tx: orphan })
      return r.length === 2 && r.every((x) => x.status === 'pending')
    })
    await anvil.rpc('evm_revert', [snapshot])
    await mine(5)
    await processed((await head()) - 2)
    const after = await rows(`SELECT count() AS n FROM chain_whale_events FINAL WHERE tx_hash = {tx:String}`, {
      tx: orphan
    })
    expect(Number(after[0].n)).toBe(0)
    const retracted = await rows(
      `SELECT count() AS n FROM chain_whale_events WHERE tx_hash = {tx:String} AND is_deleted = 1 AND status = 'retracted'`,
      { tx: orphan }
    )
    expect(Number(retracted[0].n)).toBe(2)
    const stored = await rows(`SELECT count() AS n FROM whale_transfers WHERE tx_hash = {tx:String}`, { tx: orphan })
    expect(Number(stored[0].n)).toBe(0)
    const flows = await rows(`SELECT sum(events) AS n FROM whale_flows_1h WHERE chain = 'bsc'`)
    expect(Number(flows[0].n ?? 0)).toBe(0)
    const h = await sourceHealth(server!.base, 'evm:bsc')
    expect(h.chain.reorgs).toBeGreaterThanOrEqual(1)
    expect(h.chain.retracted).toBe(2)
  })

  it('a pending event gone from a block that stays canonical is retracted without counting a reorg', async () => {
    const before = await sourceHealth(server!.base, 'evm:bsc')
    const tx = (await transfer(s, s.bbb, s.deployer, ACCOUNTS.exchange1, 3_000_000n * E18)).toLowerCase()
    // BBB has no price: the watched exchange's side is an event (an unpriced event of an unwatched sender is not)
    const pending = await until('the pending BBB event', async () => {
      const r = await rows(`SELECT status FROM chain_whale_events FINAL WHERE tx_hash = {tx:String}`, { tx })
      return r.length > 0 && r.every((x) => x.status === 'pending') ? r.length : null
    })
    // BBB leaves the watch list: the next read of the pending blocks no longer finds the transfer's events
    const tokens = path.join(dirs.dir, 'lists', 'test.tokens.csv')
    const kept = fs.readFileSync(tokens, 'utf8')
    fs.writeFileSync(
      tokens,
      kept
        .split('\n')
        .filter((l) => !l.includes(',BBB,'))
        .join('\n')
    )
    try {
      const reload = await fetch(`${server!.base}/v1/admin/watchlists/reload`, { method: 'POST', headers: ADMIN })
      expect(reload.status).toBe(200)
      await mine(1)
      await until('the BBB events retracted', async () => {
        const r = await rows(`SELECT count() AS n FROM chain_whale_events FINAL WHERE tx_hash = {tx:String}`, { tx })
        return Number(r[0].n) === 0
      })
    } finally {
      fs.writeFileSync(tokens, kept)
      await fetch(`${server!.base}/v1/admin/watchlists/reload`, { method: 'POST', headers: ADMIN })
    }
    const after = await sourceHealth(server!.base, 'evm:bsc')
    expect(after.chain.retracted).toBe(before.chain.retracted + pending)
    expect(after.chain.reorgs).toBe(before.chain.reorgs)
  })

  it('a confirmed event enters whale_transfers and the aggregates once', async () => {
    const tx = (await transfer(s, s.usdc, s.deployer, ACCOUNTS.exchange1, 2_000_000n * E18)).toLowerCase()
    await mine(3)
    await processed((await head()) - 2)
    const stored = await rows(`SELECT count() AS n FROM whale_transfers WHERE tx_hash = {tx:String}`, { tx })
    expect(Number(stored[0].n)).toBe(2)
    const flows = await rows(`SELECT sum(events) AS n, sum(usd_total) AS usd FROM whale_flows_1h WHERE chain = 'bsc'`)
    expect(Number(flows[0].n)).toBe(2)
    expect(flows[0].usd).toBe(4_000_000)
  })

  it('a restart resumes after the checkpoint: no gap, no duplicate', async () => {
    const before = await transfer(s, s.usdc, s.deployer, ACCOUNTS.whale, 1_000_000n * E18)
    await mine(3)
    await processed((await head()) - 2)
    await server!.running.stop()
    server = null
    // while the service is down: more transfers and blocks
    const during = await transfer(s, s.usdc, ACCOUNTS.whale, ACCOUNTS.friend, 500_000n * E18)
    const during2 = await transfer(s, s.usdc, ACCOUNTS.friend, ACCOUNTS.other, 400_000n * E18)
    await mine(3)
    server = await startOn(path.join(dirs.dir, 'data'), env)
    await processed((await head()) - 2)
    for (const tx of [before, during, during2]) {
      const r = await rows(`SELECT count() AS n FROM whale_transfers WHERE tx_hash = {tx:String}`, {
        tx: tx.toLowerCase()
      })
      expect(Number(r[0].n)).toBe(2)
    }
    const dupes = await rows(
      `SELECT tx_hash, log_index, address, count() AS c FROM whale_transfers GROUP BY tx_hash, log_index, address HAVING c > 1`
    )
    expect(dupes).toEqual([])
    const total = await rows(`SELECT count() AS n FROM whale_transfers WHERE chain = 'bsc'`)
    const flows = await rows(`SELECT sum(events) AS n FROM whale_flows_1h WHERE chain = 'bsc'`)
    expect(Number(flows[0].n)).toBe(Number(total[0].n))
  })

  it('a reorg deeper than the depth while the service is down is counted by the first batch after the restart', async () => {
    const snapshot = await anvil.rpc<string>('evm_snapshot')
    await mine(4)
    const checkpointBlock = (await head()) - 2
    await processed(checkpointBlock)
    await server!.running.stop()
    server = null
    // the chain the checkpoint was taken on is replaced: another history from the snapshot on, longer than it
    await anvil.rpc('evm_revert', [snapshot])
    await transfer(s, s.usdc, s.deployer, ACCOUNTS.other, 10n * E18)
    await mine(6)
    server = await startOn(path.join(dirs.dir, 'data'), env)
    await processed((await head()) - 2)
    const h = await sourceHealth(server!.base, 'evm:bsc')
    expect(h.chain.deep_reorgs).toBe(1)
  })
})
