/**
 * Node intelligence on Avalanche (anvil, chain id 43114, WAVAX at its canonical address): the taxed token
 * measured through a V2 router as on Trader Joe; a node that refuses state overrides (a JSON-RPC proxy in
 * front of anvil) gives `bytecode_only` with what the code shows; an unreachable node answers 503
 * chain_unavailable naming the chain within its timeout; a node on another chain answers 503 chain_mismatch
 * naming both ids; health reports each.
 */
import http from 'node:http'
import net from 'node:net'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ChainClients } from '../../engine/chain/chain-clients.js'
import { EVM_CHAINS } from '../../engine/chain/chains.js'
import { silentLogger } from '../../engine/log.js'
import { nodeIntelConfig } from '../../engine/nodeintel/config.js'
import { NodeIntelModule } from '../../server/modules/node-intel.js'
import { Supervisor } from '../../engine/runtime/supervisor.js'
import { startAnvil, type Anvil } from '../helpers/evm/anvil.js'
import { deployNodeIntelFixtures, type NodeIntelFixtures } from '../helpers/evm/nodeintel-fixtures.js'
import { startOverrideRefusingProxy, type RpcProxy } from '../helpers/evm/rpc-proxy.js'
import { jsonOf, routeApp, type RouteApp } from '../helpers/route-app.js'

let anvil: Anvil
let fx: NodeIntelFixtures
let proxy: RpcProxy
let refusedUrl: string

/** The node-intelligence routes in process over `env`'s nodes, with a pro key. */
async function appFor(env: Record<string, string>): Promise<{ app: RouteApp; key: string; wiring: NodeIntelModule }> {
  const full = { AVAX_DEX_ROUTER: fx.uni.router, AVAX_DEX_FACTORY: fx.uni.factory, ...env }
  const wiring = new NodeIntelModule(
    nodeIntelConfig(full),
    ChainClients.fromEnv(full),
    silentLogger(),
    new Supervisor(silentLogger())
  )
  const app = routeApp(wiring.routes())
  return { app, key: await app.key('enterprise'), wiring }
}

async function get(a: { app: RouteApp; key: string }, path: string): Promise<{ status: number; body: any }> {
  const res = await a.app.request(path, { key: a.key })
  return { status: res.status, body: jsonOf(res) }
}

beforeAll(async () => {
  anvil = await startAnvil({ chainId: 43114 })
  fx = await deployNodeIntelFixtures(anvil.url, EVM_CHAINS.avalanche.wrappedNative)
  proxy = await startOverrideRefusingProxy(anvil.url)
  const spare = net.createServer()
  await new Promise<void>((r) => spare.listen(0, '127.0.0.1', r))
  refusedUrl = `http://127.0.0.1:${(spare.address() as AddressInfo).port}`
  await new Promise((r) => spare.close(r)) // nothing listens there: connection refused
})
afterAll(async () => {
  await proxy?.close()
  await anvil?.stop()
})

describe('node intelligence on avax (anvil, chain id 43114)', () => {
  it('measures the taxed token through the router, AVAX_RPC_URL naming the node', async () => {
    const a = await appFor({ AVAX_RPC_URL: anvil.url })
    const r = await get(a, `/v1/node/avax/honeypot/${fx.tokens.taxed}`)
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ chain: 'avax', method: 'simulate_v1_wallet', verdict: 'ok' })
    expect(r.body.liquidity.base_symbol).toBe('WAVAX')
    expect(Math.abs(r.body.simulation.buy_tax_pct - 5)).toBeLessThan(0.1)
    expect(Math.abs(r.body.simulation.sell_tax_pct - 10)).toBeLessThan(0.1)
    expect(Math.abs(r.body.simulation.transfer_tax_pct - 2)).toBeLessThan(0.1)
    const honeypot = await get(a, `/v1/node/avax/honeypot/${fx.tokens.sellTax99}`)
    expect(honeypot.body.verdict).toBe('honeypot')
  })

  it('LP held by a configured locker (AVAX_LP_LOCKERS) counts as locked', async () => {
    const ids = (b: any): string[] => b.factors.map((f: any) => f.id)
    const plain = await get(await appFor({ AVAX_RPC_URL: anvil.url }), `/v1/node/avax/token-risk/${fx.tokens.mintable}`)
    expect(plain.body.holders).toMatchObject({ lp_burned_pct: 0, lp_locked_pct: null })
    expect(ids(plain.body)).toContain('lp_not_burned_or_locked')
    // the fixtures' LP tokens sit with the deploying account: name it as a locker
    const a = await appFor({ AVAX_RPC_URL: anvil.url, AVAX_LP_LOCKERS: fx.uni.account })
    const locked = await get(a, `/v1/node/avax/token-risk/${fx.tokens.mintable}`)
    expect(locked.body.holders.lp_locked_pct).toBeGreaterThan(99)
    expect(ids(locked.body)).not.toContain('lp_not_burned_or_locked')
    expect(locked.body.score).toBe(plain.body.score - 10)
  })

  it('verdict thresholds are configurable: a 5% high-tax limit makes the taxed token high_tax', async () => {
    const a = await appFor({ AVAX_RPC_URL: anvil.url, NODEINTEL_HIGH_TAX_PCT: '5' })
    const r = await get(a, `/v1/node/avax/honeypot/${fx.tokens.taxed}`)
    expect(r.body.verdict).toBe('high_tax')
    expect(r.body.reasons.join(' ')).toMatch(/sell tax .*% > 5%/)
  })

  it('a router that is not one (AVAX_DEX_ROUTER set to a token): the wallet buy and the probe fail, verdict unknown with the reasons', async () => {
    const a = await appFor({ AVAX_RPC_URL: anvil.url, AVAX_DEX_ROUTER: fx.tokens.taxed })
    const r = await get(a, `/v1/node/avax/honeypot/${fx.tokens.clean}?fresh=1`)
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ method: 'probe_contract', verdict: 'unknown', is_honeypot: null, simulation: null })
    expect(r.body.reasons.join('\n')).toMatch(/the probe failed: .+ \(check the avax DEX router setting\)/)
    expect(r.body.reasons.join('\n')).toMatch(
      /the wallet simulation \(eth_simulateV1\) failed: the wallet's buy reverted/
    )
  })

  it('a node that refuses state overrides: bytecode_only, verdict unknown, the code findings as reasons', async () => {
    const a = await appFor({ AVAX_RPC_URL: proxy.url })
    const before = proxy.refused
    const r = await get(a, `/v1/node/avax/honeypot/${fx.tokens.sellBlocked}`)
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ method: 'bytecode_only', verdict: 'unknown', is_honeypot: null, simulation: null })
    expect(proxy.refused).toBeGreaterThan(before)
    const reasons = r.body.reasons.join('\n')
    expect(reasons).toMatch(/refuses eth_call state overrides/)
    expect(reasons).toMatch(/blacklist\(address\)/)
    expect(reasons).toMatch(/setFees\(uint256,uint256\)/)
    const risk = await get(a, `/v1/node/avax/token-risk/${fx.tokens.sellBlocked}`)
    expect(risk.status).toBe(200)
    expect(risk.body.factors.map((f: any) => f.id)).toEqual(
      expect.arrayContaining(['simulation_unavailable', 'owner_can_blacklist', 'owner_not_renounced'])
    )
    const health = await get(a, '/v1/node/health?chain=avax')
    expect(health.body.chains[0].nodes[0].features).toMatchObject({ state_override: false, simulate_v1: false })
    expect(health.body.chains[0].simulate_v1).toBe(false)
  })

  it('an unreachable node: 503 chain_unavailable naming the chain, in bounded time; health says down', async () => {
    const a = await appFor({ AVAX_RPC_URL: refusedUrl, AVALANCHE_RPC_TIMEOUT_MS: '500' })
    const r = await get(a, `/v1/node/avax/honeypot/${fx.tokens.clean}`)
    expect(r.status).toBe(503)
    expect(r.body.error.code).toBe('chain_unavailable')
    expect(r.body.error.message).toMatch(/avalanche/)
    const h = await get(a, '/v1/node/health')
    expect(h.status).toBe(200)
    expect(h.body.status).toBe('down')
    expect(h.body.chains.find((c: any) => c.chain === 'avax')).toMatchObject({
      status: 'down',
      rpc_variable: 'AVAX_RPC_URL'
    })
  })

  it('a node that hangs: 503 after the per-node timeout, never a hang', async () => {
    const held: net.Socket[] = []
    const hang = net.createServer((s) => held.push(s))
    await new Promise<void>((r) => hang.listen(0, '127.0.0.1', r))
    try {
      const url = `http://127.0.0.1:${(hang.address() as AddressInfo).port}`
      const a = await appFor({ AVAX_RPC_URL: url, AVALANCHE_RPC_TIMEOUT_MS: '300' })
      const r = await get(a, `/v1/node/avax/token-risk/${fx.tokens.clean}`)
      expect(r.status).toBe(503)
      expect(r.body.error.code).toBe('chain_unavailable')
    } finally {
      for (const s of held) s.destroy()
      await new Promise((r) => hang.close(r))
    }
  })

  it('an avalanchego-style URL (/ext/bc/C/rpc): health also reads /ext/health', async () => {
    // a stand-in avalanchego: the C-Chain RPC path forwards to anvil, /ext/health says unhealthy (503)
    const avalanchego = http.createServer((req, res) => {
      if (req.method === 'GET' && req.url === '/ext/health') {
        res.statusCode = 503
        res.end(JSON.stringify({ healthy: false, checks: { C: { error: 'not bootstrapped' } } }))
        return
      }
      let body = ''
      req.on('data', (c: Buffer) => (body += c.toString()))
      req.on('end', () => {
        fetch(anvil.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then(
          async (r) => {
            res.setHeader('content-type', 'application/json')
            res.end(await r.text())
          },
          () => {
            res.statusCode = 502
            res.end()
          }
        )
      })
    })
    await new Promise<void>((r) => avalanchego.listen(0, '127.0.0.1', r))
    try {
      const port = (avalanchego.address() as AddressInfo).port
      const a = await appFor({ AVAX_RPC_URL: `http://127.0.0.1:${port}/ext/bc/C/rpc` })
      const h = await get(a, '/v1/node/health?chain=avax')
      const node = h.body.chains[0].nodes[0]
      expect(node).toMatchObject({
        reachable: true,
        chain_id: 43114,
        avalanche_health: { reachable: true, healthy: false }
      })
      expect(node.url).toBe(`http://127.0.0.1:${port}/…`) // the path (often a provider key) is not shown
    } finally {
      await new Promise((r) => avalanchego.close(r))
    }
  })

  it('a node on another chain: 503 chain_mismatch naming both ids', async () => {
    // the avax node is given as the BSC node: it reports 43114 where 56 is expected
    const a = await appFor({ BSC_RPC_URL: anvil.url })
    const r = await get(a, `/v1/node/bsc/honeypot/${fx.tokens.clean}`)
    expect(r.status).toBe(503)
    expect(r.body.error.code).toBe('chain_mismatch')
    expect(r.body.error.message).toMatch(/chain id 43114, expected 56/)
    const h = await get(a, '/v1/node/health?chain=bsc')
    expect(h.body.chains[0].status).toBe('chain_mismatch')
  })
})
