/**
 * The honeypot check as a wallet meets the token, on a real local node: anvil (chain id 56, eth_simulateV1)
 * with Uniswap V2 from the npm artifacts and the tokens of test/fixtures/evm/nodeintel-wallet compiled with
 * npm solc, each listed with liquidity. Tokens that treat contracts differently (refusing addresses with
 * code before launch, one transfer per block per tx.origin, a honeypot that hides from contracts, a
 * cooldown after a buy) get the verdict a wallet gets, with `method: "simulate_v1_wallet"` and the
 * contract-only behaviour in the reasons. Behind a proxy that refuses eth_simulateV1 the same node answers
 * through the probe contract (`method: "probe_contract"`), never an error, and health says which.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import path from 'node:path'
import { parseEther, type Abi, type Address } from 'viem'
import { ChainClients } from '../../engine/chain/chain-clients.js'
import { EVM_CHAINS } from '../../engine/chain/chains.js'
import { projectRoot } from '../../engine/paths.js'
import { CONTRACT_ONLY } from '../../engine/nodeintel/verdict.js'
import { NodeFacts } from '../../engine/nodeintel/node-facts.js'
import { nodeIntelApp } from '../helpers/evm/nodeintel-app.js'
import { startAnvil, type Anvil } from '../helpers/evm/anvil.js'
import { startRpcProxy, type RpcProxy } from '../helpers/evm/rpc-proxy.js'
import { compileDir } from '../helpers/evm/solc.js'
import {
  addLiquidityEth,
  deployContract,
  deployUniswapV2,
  pairOf,
  write,
  type UniswapV2
} from '../helpers/evm/uniswap.js'
import { jsonOf, type RouteApp } from '../helpers/route-app.js'

const SUPPLY = parseEther('10000000')

let anvil: Anvil
let uni: UniswapV2
let proxy: RpcProxy
const tokens: Record<string, Address> = {}
/** the app on anvil itself, and the same node behind a proxy refusing eth_simulateV1 */
const apps: Record<'wallet' | 'contract', { app: RouteApp; key: string; clients: ChainClients }> = {} as never

async function appOn(url: string): Promise<{ app: RouteApp; key: string; clients: ChainClients }> {
  const env = {
    BSC_RPC_URL: url,
    BSC_RPC_RATE: '10000',
    BSC_DEX_ROUTER: uni.router,
    BSC_DEX_FACTORY: uni.factory,
    NODEINTEL_CACHE_MS: '60000',
    NODEINTEL_NEW_PAIRS_POLL_MS: '0'
  }
  return nodeIntelApp(env)
}

beforeAll(async () => {
  anvil = await startAnvil({ chainId: 56 })
  uni = await deployUniswapV2(anvil.url, { wrappedNative: EVM_CHAINS.bsc.wrappedNative })
  const compiled = compileDir(path.join(projectRoot(), 'test/fixtures/evm/nodeintel-wallet'))
  for (const name of ['ContractShyToken', 'OnePerBlockToken', 'HiddenHoneypotToken', 'CooldownToken']) {
    const c = compiled[name]!
    const abi = c.abi as Abi
    const t = await deployContract(uni, abi, c.bytecode, [SUPPLY])
    await addLiquidityEth(uni, t, parseEther('1000000'), parseEther('100'), { tokenAbi: abi })
    await write(uni, t, abi, 'setPair', [await pairOf(uni, t)])
    tokens[name] = t
  }
  proxy = await startRpcProxy(anvil.url, (r) =>
    r.method === 'eth_simulateV1'
      ? { jsonrpc: '2.0', id: r.id, error: { code: -32601, message: 'the method eth_simulateV1 does not exist' } }
      : undefined
  )
  apps.wallet = await appOn(anvil.url)
  apps.contract = await appOn(proxy.url)
})
afterAll(async () => {
  await proxy?.close()
  await anvil?.stop()
})

async function honeypot(token: Address, via: 'wallet' | 'contract' = 'wallet'): Promise<any> {
  const { app, key } = apps[via]
  const res = await app.request(`/v1/node/bsc/honeypot/${token}?fresh=1`, { key })
  const body = jsonOf(res) as any
  expect(res.status, JSON.stringify(body)).toBe(200)
  return body
}

const contractOnly = (b: any): string[] => b.reasons.filter((r: string) => r.startsWith(CONTRACT_ONLY))

describe('a wallet’s transactions in successive blocks (eth_simulateV1)', () => {
  it('a token refusing contracts before launch: the wallet buys, sells and transfers (ok, taxes measured)', async () => {
    const b = await honeypot(tokens['ContractShyToken']!)
    expect(b).toMatchObject({ method: 'simulate_v1_wallet', verdict: 'ok', is_honeypot: false })
    expect(b.simulation).toMatchObject({ buy_ok: true, sell_ok: true, transfer_ok: true, revert_reason: null })
    expect(b.simulation.buy_tax_pct).toBeCloseTo(3, 2)
    expect(b.simulation.sell_tax_pct).toBeCloseTo(6, 2)
    expect(b.simulation.transfer_tax_pct).toBeCloseTo(0, 2)
    // the pair's transfer to the probe contract reverted: the pair reports it as its own failure
    expect(contractOnly(b)).toEqual([
      `${CONTRACT_ONLY} the probe contract's buy reverted (UniswapV2: TRANSFER_FAILED) where the wallet's passed`
    ])
  })

  it('one transfer per block per tx.origin: the transfer in its own block passes (no false transfer_blocked)', async () => {
    const b = await honeypot(tokens['OnePerBlockToken']!)
    expect(b).toMatchObject({ method: 'simulate_v1_wallet', verdict: 'ok' })
    expect(b.simulation).toMatchObject({ buy_ok: true, sell_ok: true, transfer_ok: true })
    expect(b.simulation.transfer_tax_pct).toBeCloseTo(1, 2)
    expect(b.simulation.buy_tax_pct).toBeCloseTo(0, 2)
    expect(contractOnly(b)).toEqual([
      `${CONTRACT_ONLY} the probe contract's transfer reverted (one purchase per block allowed) where the wallet's passed`
    ])
  })

  it('a honeypot that hides from contracts: the wallet buys and cannot sell (caught, with the token’s reason)', async () => {
    const b = await honeypot(tokens['HiddenHoneypotToken']!)
    expect(b).toMatchObject({ method: 'simulate_v1_wallet', verdict: 'honeypot', is_honeypot: true })
    expect(b.simulation).toMatchObject({ buy_ok: true, sell_ok: false, transfer_ok: true, sell_tax_pct: null })
    expect(b.simulation.revert_reason).toBe('sell: TRANSFER_FAILED')
    expect(contractOnly(b)[0]).toMatch(/the probe contract's buy reverted \(UniswapV2: TRANSFER_FAILED\)/)
  })

  it('a cooldown between buy and transfer: the wallet waits a block and a minute; taxes to two decimals', async () => {
    const b = await honeypot(tokens['CooldownToken']!)
    expect(b).toMatchObject({ method: 'simulate_v1_wallet', verdict: 'ok' })
    expect(b.simulation).toMatchObject({ buy_ok: true, sell_ok: true, transfer_ok: true })
    expect(b.simulation.buy_tax_pct).toBeCloseTo(4, 2)
    expect(b.simulation.sell_tax_pct).toBeCloseTo(8, 2)
    expect(b.simulation.transfer_tax_pct).toBeCloseTo(1, 2)
    expect(contractOnly(b).join(' ')).toMatch(/sell reverted \(cooldown\)/)
  })

  it('a known token is one simulation on top of the head (read at most once per block time)', async () => {
    const token = tokens['CooldownToken']! // checked above: its plan is known
    const client = apps.wallet.clients.get('bsc')!
    const request = vi.spyOn(client, 'request')
    try {
      const b = await honeypot(token)
      expect(b.method).toBe('simulate_v1_wallet')
      const labels = request.mock.calls.map((c) => c[0]).filter((l) => !['eth_gasPrice', 'native_price'].includes(l))
      // the head is read again only when the last read is older than the chain's block time
      expect(labels.filter((l) => l !== 'honeypot_head')).toEqual(['honeypot_simulate'])
      expect(labels.filter((l) => l === 'honeypot_head').length).toBeLessThanOrEqual(1)
      expect(b.block_number).toBe(Number(await anvil.rpc<string>('eth_blockNumber')))
    } finally {
      request.mockRestore()
    }
  })

  it('the head is never older than the block a re-check asks for', async () => {
    const facts = new NodeFacts(apps.wallet.clients.get('bsc')!)
    const first = (await facts.head())!
    await anvil.rpc('evm_mine')
    // within the block time the read above is reused; asking for the next block reads the head again
    expect((await facts.head(first.number + 1n))!.number).toBe(first.number + 1n)
    expect((await facts.head(first.number))!.number).toBeGreaterThanOrEqual(first.number)
  })
})

describe('a node without eth_simulateV1', () => {
  it('answers through the probe, never an error: a token refusing code meets the constructor probe as a wallet', async () => {
    const shy = await honeypot(tokens['ContractShyToken']!, 'contract')
    expect(shy).toMatchObject({ method: 'probe_constructor', verdict: 'ok', is_honeypot: false })
    expect(shy.simulation).toMatchObject({ buy_ok: true, sell_ok: true, transfer_ok: true })
    expect(shy.simulation.buy_tax_pct).toBeCloseTo(3, 2)
    expect(shy.simulation.sell_tax_pct).toBeCloseTo(6, 2)
    expect(contractOnly(shy)).toEqual([
      `${CONTRACT_ONLY} the probe contract's buy reverted (UniswapV2: TRANSFER_FAILED) where the constructor probe passed`
    ])
    const hidden = await honeypot(tokens['HiddenHoneypotToken']!, 'contract')
    expect(hidden).toMatchObject({ method: 'probe_constructor', verdict: 'honeypot', is_honeypot: true })
    expect(hidden.simulation.revert_reason).toBe('sell: TRANSFER_FAILED')
    expect(proxy.refused).toBeGreaterThan(0)
  })

  it('without a wallet, rules on one transaction still show (the limit of the probe): cooldown, one per block', async () => {
    const cooldown = await honeypot(tokens['CooldownToken']!, 'contract')
    expect(cooldown).toMatchObject({ method: 'probe_contract', verdict: 'honeypot' })
    expect(cooldown.simulation.revert_reason).toBe('sell: cooldown')
    const perBlock = await honeypot(tokens['OnePerBlockToken']!, 'contract')
    expect(perBlock).toMatchObject({ method: 'probe_contract', verdict: 'ok' })
    expect(perBlock.simulation.transfer_ok).toBe(false)
  })

  it('health says which node runs eth_simulateV1', async () => {
    for (const [via, expected] of [
      ['wallet', true],
      ['contract', false]
    ] as const) {
      const { app, key } = apps[via]
      const res = await app.request('/v1/node/health?chain=bsc', { key })
      const body = jsonOf(res) as any
      expect(res.status).toBe(200)
      expect(body.chains[0].nodes[0].features).toMatchObject({ state_override: true, simulate_v1: expected })
      expect(body.chains[0].simulate_v1).toBe(expected)
    }
  })
})
