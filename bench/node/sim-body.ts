/**
 * @module
 * The bare reference of the node benchmarks (bench/node/node.ts, bench/node/ab.ts): the JSON-RPC body of the
 * server's wallet simulation for one token, as viem writes it (same head, plan, router, amount and gas price
 * as the server's request on an anvil that mines no block during the rounds).
 */
import { createPublicClient, custom, http, parseEther, type Address, type PublicClient } from 'viem'
import type { RpcParams } from '../../engine/chain/raw-rpc.js'
import { readWalletSim } from '../../engine/nodeintel/wallet-read.js'
import { runWalletSim, type WalletSimInput } from '../../engine/nodeintel/wallet-sim.js'
import type { NodeIntelFixtures } from './evm/nodeintel-fixtures.js'

/**
 * The JSON-RPC body of one request as viem's http transport writes it (id 1), captured from viem's own action
 * (`call`, or the wallet simulation's `eth_simulateV1`) over a transport that answers nothing.
 */
export async function viemBody(method: string, run: (c: PublicClient) => Promise<unknown>): Promise<Buffer> {
  let sent: { method: string; params: unknown } | undefined
  const capture = createPublicClient({
    transport: custom({
      request: (args: { method: string; params: unknown }) => {
        sent = args
        return Promise.resolve(args.method === 'eth_simulateV1' ? [] : '0x')
      }
    })
  }) as PublicClient
  await run(capture)
  if (sent?.method !== method) throw new Error(`viem sent no ${method}`)
  return Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, method: sent.method, params: sent.params }))
}

/** The server's probe inputs for the benchmarks' env (the configured router and wrapped native, NODEINTEL_PROBE_MAX_IN 1). */
export interface SimSetup {
  /** a viem client on anvil */
  readonly viem: PublicClient
  readonly input: { router: Address; wrappedNative: Address; maxIn: bigint; gasPrice: bigint }
  /** the simulation's input on the head, with the plan the token's buy gives */
  readonly sim: WalletSimInput
  /** `sim`'s eth_simulateV1 request body */
  readonly body: Buffer
}

export async function walletSimBody(anvilUrl: string, fx: NodeIntelFixtures, token: Address): Promise<SimSetup> {
  const viem = createPublicClient({ transport: http(anvilUrl) }) as PublicClient
  const gasPrice = await viem.getGasPrice()
  const input = { router: fx.uni.router, wrappedNative: fx.uni.weth, maxIn: parseEther('1'), gasPrice }
  const block = await viem.getBlock({ blockTag: 'latest' })
  const head = { number: block.number!, timestamp: block.timestamp }
  const first: WalletSimInput = { ...input, token, head, plan: null }
  // params given as text (JsonParams) reach viem's transport as their array (toJSON)
  const viemRequest = (method: string, params: RpcParams): Promise<unknown> =>
    viem.request({ method: method as 'eth_simulateV1', params: params as never })
  const planned = await runWalletSim(viemRequest, first)
  const plan = 'blocks' in planned ? readWalletSim(first, planned.blocks)?.plan : null
  if (!plan) throw new Error('the wallet buy of the benchmark token delivered nothing')
  const sim: WalletSimInput = { ...first, plan }
  const body = await viemBody('eth_simulateV1', (c) =>
    runWalletSim((method, params) => c.request({ method: method as 'eth_simulateV1', params: params as never }), sim)
  )
  return { viem, input, sim, body }
}
