/**
 * @module
 * The event topics the EVM whale sources ask for (reference: evm-node-intelligence-and-whales.md 3.1),
 * computed with viem from the event signatures, so a typo cannot hide a DEX.
 */
import { toEventSelector, type Hex } from 'viem'

/** ERC-20 Transfer (WETH9 too); ERC-721 shares the topic but has 4 topics, and is skipped */
export const TRANSFER = toEventSelector('Transfer(address,address,uint256)')
/** wrapped-native (WETH9, WBNB, WAVAX) wrap and unwrap */
export const DEPOSIT = toEventSelector('Deposit(address,uint256)')
export const WITHDRAWAL = toEventSelector('Withdrawal(address,uint256)')

/** Swap topics of the pool families: one log per hop of a route */
export const SWAP_TOPICS: Readonly<Record<string, Hex>> = Object.freeze({
  /** Uniswap V2, PancakeSwap V2, Trader Joe V1, Sushi, Pangolin */
  uniswap_v2: toEventSelector('Swap(address,uint256,uint256,uint256,uint256,address)'),
  /** Uniswap V3 and its forks */
  uniswap_v3: toEventSelector('Swap(address,address,int256,int256,uint160,uint128,int24)'),
  /** PancakeSwap V3: two protocol-fee fields more, so another topic */
  pancake_v3: toEventSelector('Swap(address,address,int256,int256,uint160,uint128,int24,uint128,uint128)'),
  /** Aerodrome / Velodrome V2 (Base, Optimism) */
  aerodrome: toEventSelector('Swap(address,address,uint256,uint256,uint256,uint256)'),
  /** Trader Joe Liquidity Book v2.1 / v2.2 (Avalanche) */
  joe_lb: toEventSelector('Swap(address,address,uint24,bytes32,bytes32,uint24,bytes32,bytes32)')
})

const SWAPS: ReadonlySet<string> = new Set(Object.values(SWAP_TOPICS))

export function isSwapTopic(topic0: string | undefined): boolean {
  return topic0 !== undefined && SWAPS.has(topic0)
}

/**
 * Liquidity added to or removed from a pool: the pool's own event, one per add or remove. The emitter is the
 * pool; a V2 pool is also the LP token it mints and burns. Compound-style lending tokens emit the same V2
 * `Mint(address,uint256,uint256)` for a deposit, which is a deposit into a pool too.
 */
export const LIQUIDITY_TOPICS: Readonly<Record<string, Hex>> = Object.freeze({
  /** Uniswap V2 and its forks: Mint(sender, amount0, amount1), Burn(sender, amount0, amount1, to) */
  v2_mint: toEventSelector('Mint(address,uint256,uint256)'),
  v2_burn: toEventSelector('Burn(address,uint256,uint256,address)'),
  /** Uniswap V3, PancakeSwap V3 (same signatures): positions are NFTs, the tokens move to and from the pool */
  v3_mint: toEventSelector('Mint(address,address,int24,int24,uint128,uint256,uint256)'),
  v3_burn: toEventSelector('Burn(address,int24,int24,uint128,uint256,uint256)')
})

const LIQUIDITY: ReadonlySet<string> = new Set(Object.values(LIQUIDITY_TOPICS))

export function isLiquidityTopic(topic0: string | undefined): boolean {
  return topic0 !== undefined && LIQUIDITY.has(topic0)
}

/** topic0 OR-list of the first pass over tracked tokens (eth_getLogs with their addresses) */
export const TOKEN_TOPICS: readonly Hex[] = [TRANSFER, DEPOSIT, WITHDRAWAL]
