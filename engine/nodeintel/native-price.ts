/**
 * @module
 * The native coin's USD price read from the operator's own node: the reserves of the configured DEX's pair
 * of the wrapped native with a USD stablecoin (BSC: Binance-Peg BSC-USD; Avalanche: native USDC; override
 * with `<BSC|AVAX>_USD_TOKEN`). Cached PRICE_TTL_MS; null when there is no such pair (test nodes) or it
 * is too thin to trust (less than MIN_STABLE_SIDE USD on the stable side).
 */
import { erc20Abi, parseAbi, type Address } from 'viem'
import type { ChainClient } from '../chain/chain-client.js'
import { isTransportError } from '../chain/rpc-errors.js'
import type { NodeIntelDex } from './config.js'

/** how long a read price is reused, ms */
const PRICE_TTL_MS = 60_000
/** a pool with less than this on its stable side does not price the coin, USD */
const MIN_STABLE_SIDE = 10_000

const FACTORY_ABI = parseAbi(['function getPair(address, address) view returns (address)'])
const PAIR_ABI = parseAbi([
  'function getReserves() view returns (uint112, uint112, uint32)',
  'function token0() view returns (address)'
])

export class NativePrice {
  private cached: { value: number | null; at: number } | null = null
  private pending: Promise<number | null> | null = null

  constructor(
    private readonly client: ChainClient,
    private readonly dex: NodeIntelDex,
    private readonly usdToken: Address
  ) {}

  /** USD per native coin, or null (not priced). A node outage is not cached. */
  async usd(): Promise<number | null> {
    if (this.cached && Date.now() - this.cached.at < PRICE_TTL_MS) return this.cached.value
    this.pending ??= this.read()
      .then((value) => {
        this.cached = { value, at: Date.now() }
        return value
      })
      .finally(() => (this.pending = null))
    return this.pending
  }

  private async read(): Promise<number | null> {
    try {
      return await this.client.request('native_price', async (c) => {
        const pair = await c.readContract({
          address: this.dex.factory,
          abi: FACTORY_ABI,
          functionName: 'getPair',
          args: [this.dex.wrappedNative, this.usdToken]
        })
        if (/^0x0{40}$/i.test(pair)) return null
        const [[r0, r1], token0, decimals] = await Promise.all([
          c.readContract({ address: pair, abi: PAIR_ABI, functionName: 'getReserves' }),
          c.readContract({ address: pair, abi: PAIR_ABI, functionName: 'token0' }),
          c.readContract({ address: this.usdToken, abi: erc20Abi, functionName: 'decimals' })
        ])
        const stableIs0 = token0.toLowerCase() === this.usdToken.toLowerCase()
        const stable = Number(stableIs0 ? r0 : r1) / 10 ** decimals
        const native = Number(stableIs0 ? r1 : r0) / 1e18
        if (stable < MIN_STABLE_SIDE || native <= 0) return null
        return stable / native
      })
    } catch (err) {
      if (isTransportError(err) || (err as { code?: string }).code === 'chain_unavailable') throw err
      return null
    }
  }
}
