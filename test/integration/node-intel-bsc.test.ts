/**
 * Node intelligence on a real local node: anvil with chain id 56, Uniswap V2 from the npm artifacts around
 * WBNB's canonical address, the fixture tokens of test/fixtures/evm/nodeintel compiled with npm solc. The
 * routes run in process (the real App: keys, plans, validation, the error envelope) over the shared chain
 * client. Covers the honeypot verdicts and measured taxes of every fixture, the risk factors, the cache,
 * errors (400 / 404 / 403), new pairs with their verdicts, and node health.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { parseEther, type Address } from 'viem'
import { ChainClients } from '../../engine/chain/chain-clients.js'
import { EVM_CHAINS } from '../../engine/chain/chains.js'
import { silentLogger } from '../../engine/log.js'
import { nodeIntelConfig } from '../../engine/nodeintel/config.js'
import { SELL_ALL_BLOCKED } from '../../engine/nodeintel/verdict.js'
import { NodeIntelModule } from '../../server/modules/node-intel.js'
import { Supervisor } from '../../engine/runtime/supervisor.js'
import { startAnvil, type Anvil } from '../helpers/evm/anvil.js'
import { deployNodeIntelFixtures, type NodeIntelFixtures } from '../helpers/evm/nodeintel-fixtures.js'
import { addLiquidityEth, deployContract } from '../helpers/evm/uniswap.js'
import { jsonOf, routeApp, type RouteApp } from '../helpers/route-app.js'

let anvil: Anvil
let fx: NodeIntelFixtures
let app: RouteApp
let wiring: NodeIntelModule
let key: string
let clients: ChainClients

beforeAll(async () => {
  anvil = await startAnvil({ chainId: 56 })
  fx = await deployNodeIntelFixtures(anvil.url, EVM_CHAINS.bsc.wrappedNative)
  const env = {
    BSC_RPC_URL: anvil.url,
    BSC_RPC_RATE: '10000',
    BSC_DEX_ROUTER: fx.uni.router,
    BSC_DEX_FACTORY: fx.uni.factory,
    NODEINTEL_CACHE_MS: '60000'
  }
  clients = ChainClients.fromEnv(env)
  wiring = new NodeIntelModule(nodeIntelConfig(env), clients, silentLogger(), new Supervisor(silentLogger()))
  app = routeApp(wiring.routes())
  key = await app.key('pro')
})
afterAll(async () => {
  await anvil?.stop()
})

async function get(path: string, k = key): Promise<{ status: number; body: any; headers: Record<string, string> }> {
  const res = await app.request(path, { key: k })
  return { status: res.status, body: jsonOf(res), headers: res.headers as Record<string, string> }
}

const honeypot = async (token: Address): Promise<any> => {
  const r = await get(`/v1/node/bsc/honeypot/${token}`)
  expect(r.status, JSON.stringify(r.body)).toBe(200)
  return r.body
}

describe('honeypot check (anvil, chain id 56)', () => {
  it('a clean token: ok, no taxes, every step ran with its gas', async () => {
    const b = await honeypot(fx.tokens.clean)
    expect(b).toMatchObject({
      chain: 'bsc',
      token: fx.tokens.clean,
      verdict: 'ok',
      is_honeypot: false,
      method: 'simulate_v1_wallet'
    })
    expect(b.simulation).toMatchObject({
      buy_ok: true,
      sell_ok: true,
      transfer_ok: true,
      buy_tax_pct: 0,
      sell_tax_pct: 0,
      transfer_tax_pct: 0
    })
    for (const g of [b.simulation.buy_gas, b.simulation.sell_gas, b.simulation.transfer_gas])
      expect(g).toBeGreaterThan(0)
    expect(b.pair).toMatch(/^0x[0-9a-fA-F]{40}$/)
    expect(b.liquidity).toMatchObject({ base_symbol: 'WBNB', reserve_base: '100', reserve_token: '1000000', usd: null })
    expect(b.block_number).toBe(Number(await anvil.rpc<string>('eth_blockNumber')))
    expect(Date.parse(b.checked_at)).not.toBeNaN()
  })

  it('a taxed token: 5% buy, 10% sell, 2% transfer measured within 0.1 point', async () => {
    const b = await honeypot(fx.tokens.taxed)
    expect(Math.abs(b.simulation.buy_tax_pct - 5)).toBeLessThan(0.1)
    expect(Math.abs(b.simulation.sell_tax_pct - 10)).toBeLessThan(0.1)
    expect(Math.abs(b.simulation.transfer_tax_pct - 2)).toBeLessThan(0.1)
    expect(b.verdict).toBe('ok') // 10% is not above the default 10% high-tax threshold
  })

  it('a sell-blocked token is a honeypot, with the token’s own reason (not the router’s)', async () => {
    const b = await honeypot(fx.tokens.sellBlocked)
    expect(b).toMatchObject({ verdict: 'honeypot', is_honeypot: true })
    expect(b.simulation).toMatchObject({ buy_ok: true, sell_ok: false })
    expect(b.simulation.revert_reason).toBe('sell: sells disabled')
  })

  it('a 99% sell tax is a honeypot', async () => {
    const b = await honeypot(fx.tokens.sellTax99)
    expect(b.verdict).toBe('honeypot')
    expect(Math.abs(b.simulation.sell_tax_pct - 99)).toBeLessThan(0.1)
    expect(b.reasons.join(' ')).toMatch(/sell tax/)
  })

  it('a token that blacklists its buyers is a honeypot: sell and transfer fail, buy succeeded', async () => {
    const b = await honeypot(fx.tokens.blacklist)
    expect(b.verdict).toBe('honeypot')
    expect(b.simulation).toMatchObject({ buy_ok: true, sell_ok: false, transfer_ok: false })
    expect(b.simulation.revert_reason).toBe('sell: blacklisted')
  })

  it('a max-sell limit: half the buy sells (ok), selling all of it at once is reported', async () => {
    const b = await honeypot(fx.tokens.maxSell)
    expect(b.verdict).toBe('ok')
    expect(b.reasons).toEqual([SELL_ALL_BLOCKED])
    expect((await honeypot(fx.tokens.clean)).reasons).toEqual([])
  })

  it('the upgradeable proxy and the mintable token trade normally', async () => {
    expect((await honeypot(fx.tokens.proxy)).verdict).toBe('ok')
    expect((await honeypot(fx.tokens.mintable)).verdict).toBe('ok')
  })

  it('a token without liquidity: no_liquidity, nothing simulated', async () => {
    const b = await honeypot(fx.tokens.noLiquidity)
    expect(b).toMatchObject({ verdict: 'no_liquidity', is_honeypot: null, simulation: null, pair: null })
  })

  it('an address without code: 404 not_a_contract', async () => {
    const r = await get(`/v1/node/bsc/honeypot/${fx.tokens.nonContract}`)
    expect(r.status).toBe(404)
    expect(r.body.error.code).toBe('not_a_contract')
  })

  it('bad parameters: 400 naming the parameter (both chains named for a wrong chain)', async () => {
    const bad = await get(`/v1/node/bsc/honeypot/0x1234`)
    expect(bad.status).toBe(400)
    expect(bad.body.error).toMatchObject({ code: 'invalid_parameter', param: 'token' })
    const checksum = await get(`/v1/node/bsc/honeypot/0x000000000000000000000000000000000000bEeF`)
    expect(checksum.status).toBe(400)
    expect(checksum.body.error.message).toMatch(/checksum/)
    const chain = await get(`/v1/node/eth/honeypot/${fx.tokens.clean}`)
    expect(chain.status).toBe(400)
    expect(chain.body.error).toMatchObject({ code: 'invalid_parameter', param: 'chain' })
    expect(chain.body.error.message).toMatch(/bsc or avax/)
    const q = await get(`/v1/node/bsc/honeypot/${fx.tokens.clean}?fresh=yes`)
    expect(q.status).toBe(400)
  })

  it('answers come from the cache until ?fresh=1', async () => {
    const token = fx.tokens.mintable
    const first = await get(`/v1/node/bsc/honeypot/${token}?fresh=1`)
    expect(first.headers['x-tidewatch-cache']).toBe('miss')
    const again = await get(`/v1/node/bsc/honeypot/${token}`)
    expect(again.headers['x-tidewatch-cache']).toBe('hit')
    expect(again.body.checked_at).toBe(first.body.checked_at)
    const fresh = await get(`/v1/node/bsc/honeypot/${token}?fresh=1`)
    expect(fresh.headers['x-tidewatch-cache']).toBe('miss')
  })

  it('a fresh check of a token checked before is the wallet simulation, unbatched (the head read at most once per block time)', async () => {
    const client = clients.get('bsc')!
    const request = vi.spyOn(client, 'request')
    try {
      const r = await get(`/v1/node/bsc/honeypot/${fx.tokens.taxed}?fresh=1`)
      expect(r.body).toMatchObject({ verdict: 'ok', method: 'simulate_v1_wallet' })
      expect(Math.abs(r.body.simulation.sell_tax_pct - 10)).toBeLessThan(0.1)
      // the gas price and the native coin's price are cached apart from the check
      const check = request.mock.calls.filter((c) => !['eth_gasPrice', 'native_price'].includes(c[0]))
      const heads = check.filter((c) => c[0] === 'honeypot_head')
      expect(heads.length).toBeLessThanOrEqual(1) // again only when the head kept is older than a block time
      expect(check.filter((c) => c[0] !== 'honeypot_head').map((c) => [c[0], c[2]])).toEqual([
        ['honeypot_simulate', { batch: false }]
      ])
      for (const h of heads) expect(h[2]).toEqual({ batch: false })
    } finally {
      request.mockRestore()
    }
  })

  it('needs a plan with node intelligence: 401 without a key, 403 naming the plan for trader', async () => {
    const none = await app.request(`/v1/node/bsc/honeypot/${fx.tokens.clean}`)
    expect(none.status).toBe(401)
    const trader = await get(`/v1/node/bsc/honeypot/${fx.tokens.clean}`, await app.key('trader'))
    expect(trader.status).toBe(403)
    expect(trader.body.error.message).toMatch(/pro/)
  })
})

describe('token risk score', () => {
  const risk = async (token: Address): Promise<any> => {
    const r = await get(`/v1/node/bsc/token-risk/${token}`)
    expect(r.status, JSON.stringify(r.body)).toBe(200)
    return r.body
  }
  const ids = (b: any): string[] => b.factors.map((f: any) => f.id)

  it('the clean token (no owner, LP burned) scores low; its factors carry weight and evidence', async () => {
    const b = await risk(fx.tokens.clean)
    expect(b.level).toBe('low')
    expect(b.score).toBeLessThan(20)
    expect(b.metadata).toMatchObject({ name: 'Clean', symbol: 'CLN', decimals: 18, owner: null, owner_renounced: null })
    expect(b.metadata.total_supply).toBe(parseEther('10000000').toString())
    expect(b.holders.lp_burned_pct).toBeGreaterThan(99)
    expect(ids(b)).toContain('new_contract') // created on this node minutes ago
    expect(b.contract.created_block).toBeGreaterThan(0)
    for (const f of b.factors)
      expect(f).toEqual({ id: expect.any(String), weight: expect.any(Number), evidence: expect.any(String) })
    expect(b.score).toBe(b.factors.reduce((s: number, f: any) => s + f.weight, 0))
  })

  it('a honeypot scores 100, critical', async () => {
    const b = await risk(fx.tokens.sellBlocked)
    expect(b).toMatchObject({ score: 100, level: 'critical' })
    expect(ids(b)).toContain('honeypot')
    expect(ids(b)).toEqual(expect.arrayContaining(['owner_not_renounced', 'owner_can_blacklist', 'owner_can_set_fees']))
  })

  it('the upgradeable proxy: EIP-1967 implementation named', async () => {
    const b = await risk(fx.tokens.proxy)
    expect(b.contract).toMatchObject({ proxy: 'eip1967', implementation: fx.tokens.proxyImplementation })
    expect(b.factors.find((f: any) => f.id === 'upgradeable_proxy').evidence).toContain(fx.tokens.proxyImplementation)
    expect(b.metadata).toMatchObject({ name: 'Proxied', owner: fx.uni.account })
  })

  it('the mintable owner token: owner not renounced, can mint, holds most of the supply', async () => {
    const b = await risk(fx.tokens.mintable)
    expect(ids(b)).toEqual(
      expect.arrayContaining([
        'owner_not_renounced',
        'owner_can_mint',
        'owner_concentration',
        'lp_not_burned_or_locked'
      ])
    )
    expect(b.metadata.owner).toBe(fx.uni.account)
    expect(b.holders.owner_pct).toBeGreaterThan(80)
    expect(['medium', 'high']).toContain(b.level)
  })

  it('the max-sell token carries cannot_sell_all', async () => {
    expect(ids(await risk(fx.tokens.maxSell))).toContain('cannot_sell_all')
    expect(ids(await risk(fx.tokens.clean))).not.toContain('cannot_sell_all')
  })

  it('no liquidity and a non-contract', async () => {
    expect(ids(await risk(fx.tokens.noLiquidity))).toContain('no_liquidity')
    expect((await get(`/v1/node/bsc/token-risk/${fx.tokens.nonContract}`)).status).toBe(404)
  })
})

describe('new pairs and health', () => {
  it('a pair created on the node appears in new-pairs with its verdict, newest first', async () => {
    const w = wiring.watchers.get('bsc')!
    const heard: any[] = []
    wiring.feed.subscribe((p) => heard.push(p))
    await w.poll() // the fixtures' pairs, within the lookback
    const plain = fx.compiled['PlainToken']!
    const fresh = await deployContract(fx.uni, plain.abi, plain.bytecode, ['Fresh', 'FRS', parseEther('1000000')])
    await addLiquidityEth(fx.uni, fresh, parseEther('1000'), parseEther('10'), { tokenAbi: plain.abi })
    await w.poll()
    await expect.poll(() => heard.some((p) => p.token === fresh && p.verdict !== null), { timeout: 10_000 }).toBe(true)
    const r = await get('/v1/node/bsc/new-pairs?limit=3')
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ chain: 'bsc', limit: 3, offset: 0 })
    expect(r.body.total).toBeGreaterThanOrEqual(7)
    expect(r.body.pairs[0]).toMatchObject({ token: fresh, paired_with_native: true, verdict: 'ok', is_honeypot: false })
    const all = (await get('/v1/node/bsc/new-pairs?limit=200')).body.pairs
    const blocked = all.find((p: any) => p.token === fx.tokens.sellBlocked)
    // the blocked token's pair was created (with liquidity) before its sells were switched off
    expect(blocked).toBeDefined()
    expect(all.map((p: any) => p.block_number)).toEqual([...all.map((p: any) => p.block_number)].sort((a, b) => b - a))
  })

  it('node intelligence uses the shared chain client (one rate limit and counters with the whale sources)', () => {
    expect(wiring.service.get('bsc').client).toBe(clients.get('bsc'))
  })

  it('node health: chain id, head, client version, features; avax not configured', async () => {
    const r = await get('/v1/node/health')
    expect(r.status).toBe(200)
    const bsc = r.body.chains.find((c: any) => c.chain === 'bsc')
    expect(bsc).toMatchObject({ rpc_variable: 'BSC_RPC_URL', expected_chain_id: 56 })
    expect(['ok', 'degraded']).toContain(bsc.status)
    expect(bsc.nodes[0]).toMatchObject({
      reachable: true,
      chain_id: 56,
      chain_id_ok: true,
      peers: null, // anvil does not answer net_peerCount
      features: { state_override: true, simulate_v1: true, debug_trace: true },
      avalanche_health: null
    })
    expect(bsc.nodes[0].client_version).toMatch(/anvil/i)
    expect(bsc.nodes[0].latency_ms).toBeGreaterThan(0)
    expect(bsc.client.calls).toBeGreaterThan(0)
    expect(r.body.chains.find((c: any) => c.chain === 'avax')).toMatchObject({ status: 'not_configured', nodes: [] })
    const one = await get('/v1/node/health?chain=avax')
    expect(one.body.chains).toHaveLength(1)
    const na = await get(`/v1/node/avax/honeypot/${fx.tokens.clean}`)
    expect(na.status).toBe(503)
    expect(na.body.error.code).toBe('chain_not_configured')
    expect(na.body.error.message).toMatch(/AVAX_RPC_URL/)
  })
})
