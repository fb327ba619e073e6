/**
 * The evm:<chain> whale source against a real local node (anvil, chain id 1) with a Uniswap V2 deployment
 * from the npm artifacts: a direct transfer, a two-hop swap that becomes one event (hops, pools,
 * repeat_count), a circular route flagged and kept out of flows, an internal exchange transfer left out of
 * exchange flows, a round trip folded by the read API; prices from the service's own ETH trades. The read
 * API shows them (/v1/whales/events, /summary, /v1/historical/whales) and /v1/health has the chain's entry.
 */
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startAnvil, type Anvil } from '../helpers/evm/anvil.js'
import { jsonBody, startTestServer, TEST_ADMIN_TOKEN } from '../helpers/server.js'
import { BEHIND, seedPrice } from '../fixtures/evm/whales/harness.js'
import { tmpDir } from '../helpers/tmp-dir.js'
import { sinkPoolStats } from '../../engine/whales/sink-pool.js'
import {
  ACCOUNTS,
  deployScenario,
  E18,
  swapEth,
  transfer,
  writeWatchlist,
  type Scenario
} from '../fixtures/evm/whales/scenario.js'

const ETH_PRICE = 3_000
let anvil: Anvil
let s: Scenario
let server: Awaited<ReturnType<typeof startTestServer>>
const lists = tmpDir()
const hashes: Record<string, string> = {}

async function until<T>(what: string, fn: () => Promise<T | undefined | null | false>, ms = 90_000): Promise<T> {
  const end = Date.now() + ms
  for (;;) {
    const v = await fn()
    if (v) return v
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` }
let apiKey = ''
const get = async (p: string): Promise<any> =>
  jsonBody(await fetch(`${server.base}${p}`, { headers: p.startsWith('/v1/admin') ? admin : { 'x-api-key': apiKey } }))

beforeAll(async () => {
  // the chain runs 2 hours behind the wall clock: the seconds added between the round trip's legs never date
  // a block in the future (the read API serves rows up to now), and the hourly history has closed its bucket
  anvil = await startAnvil({ chainId: 1, args: BEHIND() })
  s = await deployScenario(anvil.url, 'ethereum')
  writeWatchlist(path.join(lists.dir, 'w'), 'ethereum', s)
  const start = Number(BigInt(await anvil.rpc<string>('eth_blockNumber')))
  server = await startTestServer({
    SOURCES: 'evm:ethereum',
    ETHEREUM_RPC_URL: anvil.url,
    ETHEREUM_CONFIRMATIONS: '1',
    ETHEREUM_START_BLOCK: String(start + 1),
    ETHEREUM_POLL_MS: '50',
    WATCHLIST_DIR: path.join(lists.dir, 'w')
  })
  const created = await fetch(`${server.base}/v1/admin/keys`, {
    method: 'POST',
    headers: { ...admin, 'content-type': 'application/json' },
    body: JSON.stringify({ plan: 'pro' })
  })
  apiKey = (await jsonBody(created)).key
  await seedPrice(server.base, 'ETH', ETH_PRICE)
  hashes.direct = await transfer(s, s.usdc, s.deployer, ACCOUNTS.exchange1, 2_000_000n * E18)
  hashes.internal = await transfer(s, s.usdc, ACCOUNTS.exchange1, ACCOUNTS.exchange2, 1_500_000n * E18)
  hashes.coin = await s.uni.walletClient.sendTransaction({
    to: ACCOUNTS.exchange1 as `0x${string}`,
    value: 500n * E18,
    account: s.uni.account,
    chain: s.uni.chain
  })
  hashes.twoHop = await swapEth(s, 200n * E18, [s.aaa, s.bbb])
  hashes.circular = await swapEth(s, 200n * E18, [s.aaa, s.bbb, s.uni.weth])
  await transfer(s, s.usdc, s.deployer, ACCOUNTS.whale, 5_000_000n * E18)
  // blocks share a second on anvil; the read API orders rows of one second by tx hash, so the round trip's
  // legs get their own seconds, as on a chain with whole-second block times
  await anvil.rpc('evm_increaseTime', [5])
  hashes.out = await transfer(s, s.usdc, ACCOUNTS.whale, ACCOUNTS.friend, 1_000_000n * E18)
  await anvil.rpc('evm_increaseTime', [5])
  hashes.back = await transfer(s, s.usdc, ACCOUNTS.friend, ACCOUNTS.whale, 990_000n * E18)
  const last = Number(BigInt(await anvil.rpc<string>('eth_blockNumber')))
  await until('the source to reach the last block', async () => {
    const h = await jsonBody(await fetch(`${server.base}/v1/health`))
    const src = h.sources.find((x: any) => x.name === 'evm:ethereum')
    return src?.chain?.last_processed >= last
  })
}, 120_000)

afterAll(async () => {
  await server?.stop()
  await anvil?.stop()
  lists.cleanup()
})

async function chainEvents(tx: string): Promise<any[]> {
  return server.running.ctx.store.query(
    `SELECT address, event_type, token, amount, token_in, amount_in, usd_value, price_source, hops, pools,
       repeat_count, circular, internal, label, status
     FROM chain_whale_events FINAL WHERE tx_hash = {tx:String} ORDER BY address`,
    { tx: tx.toLowerCase() }
  )
}

describe('evm whale source on anvil (chain id 1)', () => {
  it('a direct transfer to an exchange wallet: both sides, priced as a stablecoin', async () => {
    const rows = await chainEvents(hashes.direct!)
    expect(rows.map((r) => [r.address, r.event_type, r.usd_value, r.label, r.internal])).toEqual(
      [
        [s.deployer, 'transfer_out', 2_000_000, null, false],
        [ACCOUNTS.exchange1, 'transfer_in', 2_000_000, 'TestEx 1', false]
      ].sort((a, b) => String(a[0]).localeCompare(String(b[0])))
    )
    expect(rows[0].price_source).toBe('stablecoin')
  })

  it('a two-hop swap ETH → AAA → BBB is one swap event with hops, pools and repeat_count', async () => {
    const rows = await chainEvents(hashes.twoHop!)
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({
      address: s.deployer,
      event_type: 'swap',
      token: 'BBB',
      token_in: 'ETH',
      amount_in: 200,
      usd_value: 200 * ETH_PRICE,
      hops: 2,
      repeat_count: 2,
      circular: false,
      status: 'confirmed'
    })
    expect(rows[0].pools).toHaveLength(2)
    expect(rows[0].price_source).toMatch(/^candles_1m:binance/)
  })

  it('a circular route ETH → AAA → BBB → WETH is flagged and kept out of whale_transfers', async () => {
    const rows = await chainEvents(hashes.circular!)
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({ address: s.deployer, event_type: 'swap', circular: true, hops: 3 })
    const stored = await server.running.ctx.store.query<{ n: number }>(
      'SELECT count() AS n FROM whale_transfers WHERE tx_hash = {tx:String}',
      { tx: hashes.circular!.toLowerCase() }
    )
    expect(Number(stored[0]!.n)).toBe(0)
  })

  it('a transfer between two wallets of one exchange is internal', async () => {
    const rows = await chainEvents(hashes.internal!)
    expect(rows.map((r) => [r.address, r.internal])).toEqual(
      [
        [ACCOUNTS.exchange1, true],
        [ACCOUNTS.exchange2, true]
      ].sort((a, b) => String(a[0]).localeCompare(String(b[0])))
    )
  })

  it('the read API shows the events: a round trip folds into one wash_loop event', async () => {
    const page = await get('/v1/whales/events?chain=ethereum&significance=low&limit=200')
    const whale = page.events.filter((e: any) => e.address === ACCOUNTS.whale)
    expect(whale).toHaveLength(2) // the funding transfer_in, then the folded out-and-back
    const loop = whale.find((e: any) => e.collapsed === 'wash_loop')
    expect(loop).toMatchObject({ event_type: 'transfer_out', repeat_count: 2, usd_value: 1_000_000 })
    const swap = page.events.find((e: any) => e.tx_hash === hashes.twoHop!.toLowerCase())
    expect(swap).toMatchObject({
      event_type: 'swap',
      token: 'BBB',
      usd_value: 600_000,
      token_in: 'ETH',
      amount_in: 200,
      hops: 2,
      repeat_count: 2,
      collapsed: 'multi_hop',
      price_source: 'candles_1m:binance'
    })
    expect(swap.pools).toHaveLength(2)
    const deposit = page.events.find(
      (e: any) => e.tx_hash === hashes.direct!.toLowerCase() && e.address === ACCOUNTS.exchange1
    )
    expect(deposit).toMatchObject({ label: 'TestEx 1', internal: false, repeat_count: 1, collapsed: null, hops: 0 })
    expect(page.events.some((e: any) => e.tx_hash === hashes.circular!.toLowerCase())).toBe(false)
    const summary = await get('/v1/whales/summary')
    expect(summary.chain_counts.ethereum.event_count).toBeGreaterThanOrEqual(6)
  })

  it('exchange flows: /v1/historical/whales and /v1/onchain/metrics count the deposit, not the internal move', async () => {
    const history = await get('/v1/historical/whales?asset=USDC&interval=1h&lookback=1d')
    const buckets = history.data.filter((b: any) => b.exchange_inflow !== null)
    const inflow = buckets.reduce((sum: number, b: any) => sum + b.exchange_inflow, 0)
    const outflow = buckets.reduce((sum: number, b: any) => sum + b.exchange_outflow, 0)
    // deployer -> TestEx 1: 2M in; TestEx 1 -> TestEx 2 is internal (1.5M): neither in nor out
    expect(inflow).toBe(2_000_000)
    expect(outflow).toBe(0)
    const metrics = await get('/v1/onchain/metrics?asset=USDC&metrics=exchange_netflow_usd,mvrv')
    expect(metrics.metrics.exchange_netflow_usd.source).toBe('chain:ethereum')
    expect(metrics.metrics.exchange_netflow_usd.points.reduce((a: number, p: any) => a + p.value, 0)).toBe(2_000_000)
    expect(metrics.metrics.mvrv).toEqual({ source: 'stored', latest: null, points: [] })
    // without metrics and hours: every metric over 24 hours
    const all = await get('/v1/onchain/metrics?asset=USDC')
    expect(all.hours).toBe(24)
    expect(Object.keys(all.metrics)).toEqual([
      'exchange_netflow_usd',
      'exchange_reserve_usd',
      'mvrv',
      'active_addresses'
    ])
  })

  it('/v1/confirm reads the chain: exchange net flow and whale flows of the asset', async () => {
    // the 500 ETH sent to TestEx 1 is an exchange inflow: sell pressure against a long
    const res = await get('/v1/confirm?symbol=ETH&direction=long')
    expect(res.reasons).toContain('exchange net inflow $1.5M in 24h: neutral')
    expect(res.onchain_score).toBeLessThan(0)
    // the whale's side counts (one wallet distributing); TestEx 1 receiving is the exchange flow above, not a
    // whale accumulating (labelled exchange wallets are left out of the whale inputs)
    expect(res.smart_money).toMatchObject({ whales_long: 0, whales_short: 1 })
  })

  it('health has one entry for the chain with its counters', async () => {
    const h = await jsonBody(await fetch(`${server.base}/v1/health`))
    const src = h.sources.find((x: any) => x.name === 'evm:ethereum')
    expect(src).toMatchObject({ connected: true, synthetic: false })
    expect(src.chain).toMatchObject({ chain_id: 1, chain_id_ok: true, reorgs: 0, lag_blocks: 0 })
    expect(src.chain.logs).toBeGreaterThan(0)
    expect(src.rows).toBeGreaterThan(0)
  })

  it('each stored range hands its payload buffers back to the sink pool, and the next range reuses them', async () => {
    // engine/whales/sink-pool.ts: the events' bytes once their insert settled, the whale_transfers chunk's
    // once the range's barrier saw it written; without the release every range allocates afresh
    expect(sinkPoolStats.released).toBeGreaterThanOrEqual(2)
    const before = { ...sinkPoolStats }
    await anvil.rpc('evm_mine', [])
    const mined = Number(BigInt(await anvil.rpc<string>('eth_blockNumber')))
    await until('the source to store the mined block', async () => {
      const h = await jsonBody(await fetch(`${server.base}/v1/health`))
      return h.sources.find((x: any) => x.name === 'evm:ethereum')?.chain?.last_processed >= mined
    })
    // the new range's two sinks took released buffers instead of new ones
    expect(sinkPoolStats.reused - before.reused).toBeGreaterThanOrEqual(2)
    expect(sinkPoolStats.allocated).toBe(before.allocated)
    // and handed both back: the unused whale_transfers sink at once, the events' bytes in the range's
    // barrier (an empty range's sinks never grow, so nothing else releases)
    await until('the range to hand its buffers back', async () => sinkPoolStats.released - before.released >= 2, 20_000)
  })

  it('the watch lists are listed and reloaded through the admin API; a bad file is a 400 naming it', async () => {
    const listed = await get('/v1/admin/watchlists')
    expect(listed).toMatchObject({ wallets: 3, tokens: 3, generation: 1 })
    const ok = await fetch(`${server.base}/v1/admin/watchlists/reload`, { method: 'POST', headers: admin })
    expect(ok.status).toBe(200)
    expect((await jsonBody(ok)).generation).toBe(2)
    const fs = await import('node:fs')
    fs.writeFileSync(
      path.join(lists.dir, 'w', 'bad.wallets.csv'),
      'chain,address,label,entity,source\nethereum,0x1,A,whale,https://x.test/\n'
    )
    const bad = await fetch(`${server.base}/v1/admin/watchlists/reload`, { method: 'POST', headers: admin })
    expect(bad.status).toBe(400)
    expect((await jsonBody(bad)).error.message).toMatch(/^bad\.wallets\.csv line 2, column address/)
    fs.rmSync(path.join(lists.dir, 'w', 'bad.wallets.csv'))
  })
})
