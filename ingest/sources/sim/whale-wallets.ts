/**
 * @module
 * Who and what the simulated whale flows involve, per chain: block timing, tokens (priced by the shared
 * path, stablecoins at $1), 75 tracked wallets, and labelled counterparties: exchange hot wallets (the
 * engine's label list, engine/whales/exchange-wallets.ts, so exchange inflow/outflow is derived
 * downstream) and DEX routers/pools. Addresses are hashes shaped like real ones and do not depend on the
 * seed, so a demo's wallet list is stable.
 */
import { EXCHANGE_HOT_WALLETS, type DemoChain, type LabelledAddress } from '../../../engine/whales/exchange-wallets.js'
import { base58Id, hexId } from './chain-ids.js'
import { hashKey, mixSeed, streamId } from './hash-rng.js'

export interface TokenSpec {
  readonly symbol: string
  /** base asset whose path prices the token; null for a USD stablecoin ($1) */
  readonly priceBase: string | null
  /** relative frequency among the chain's whale events */
  readonly weight: number
}

export interface ChainSpec {
  readonly chain: DemoChain
  readonly evm: boolean
  /** average block (or Solana slot) time, ms */
  readonly blockMs: number
  /** block number at REF_BLOCK_TS (approximately the real one on 2025-01-01) */
  readonly refBlock: number
  /** whale event groups per day (a group is 1 transfer, or a multi-hop route, or a wash loop) */
  readonly groupsPerDay: number
  readonly tokens: readonly TokenSpec[]
}

export type { LabelledAddress }

/** 2025-01-01T00:00:00Z: blocks are counted from here at each chain's block time */
export const REF_BLOCK_TS = Date.UTC(2025, 0, 1)
/** tracked wallets per chain (600 in all) */
export const TRACKED_WALLETS_PER_CHAIN = 75
/** DEX routers and pools per chain, the counterparties of swaps and multi-hop legs */
const DEX_POOLS_PER_CHAIN = 8
/** fixed seed: addresses are part of the universe, not of the seeded data */
const WALLET_SEED = mixSeed(0xa11e7)
const TAG_TRACKED = 70
// tag 71 is not used: the exchange hot wallets are fixed in engine/whales/exchange-wallets.ts
const TAG_DEX = 72

/** a USD stablecoin */
const stable = (symbol: string, weight: number): TokenSpec => ({ symbol, priceBase: null, weight })
/** a token priced by a base asset's path (WETH by ETH, WBTC by BTC) */
const coin = (symbol: string, weight: number, priceBase = symbol): TokenSpec => ({ symbol, priceBase, weight })

export const CHAIN_SPECS: readonly ChainSpec[] = [
  {
    chain: 'ethereum',
    evm: true,
    blockMs: 12_000,
    refBlock: 21_525_000,
    groupsPerDay: 260,
    tokens: [
      coin('ETH', 0.3),
      coin('WETH', 0.15, 'ETH'),
      stable('USDT', 0.25),
      stable('USDC', 0.2),
      coin('WBTC', 0.1, 'BTC')
    ]
  },
  {
    chain: 'bsc',
    evm: true,
    blockMs: 3_000,
    refBlock: 45_300_000,
    groupsPerDay: 200,
    tokens: [coin('BNB', 0.55), stable('USDT', 0.45)]
  },
  {
    chain: 'avalanche',
    evm: true,
    blockMs: 2_000,
    refBlock: 55_000_000,
    groupsPerDay: 120,
    tokens: [coin('AVAX', 0.75), stable('USDC', 0.25)]
  },
  {
    chain: 'polygon',
    evm: true,
    blockMs: 2_000,
    refBlock: 66_200_000,
    groupsPerDay: 140,
    tokens: [coin('POL', 0.6), stable('USDT', 0.4)]
  },
  {
    chain: 'arbitrum',
    evm: true,
    blockMs: 250,
    refBlock: 291_000_000,
    groupsPerDay: 180,
    tokens: [coin('ARB', 0.45), coin('ETH', 0.55)]
  },
  {
    chain: 'base',
    evm: true,
    blockMs: 2_000,
    refBlock: 24_600_000,
    groupsPerDay: 180,
    tokens: [coin('ETH', 0.5), stable('USDC', 0.5)]
  },
  {
    chain: 'optimism',
    evm: true,
    blockMs: 2_000,
    refBlock: 130_100_000,
    groupsPerDay: 120,
    tokens: [coin('OP', 0.45), coin('ETH', 0.55)]
  },
  {
    chain: 'solana',
    evm: false,
    blockMs: 400,
    refBlock: 311_000_000,
    groupsPerDay: 240,
    tokens: [coin('SOL', 0.6), stable('USDC', 0.4)]
  }
]

/** an address shaped for the chain: EVM 20 bytes hex, Solana 32 bytes base58 */
export function addressFor(evm: boolean, keyA: number, keyB: number): string {
  return evm ? hexId(keyA, keyB, 0, 5) : base58Id(keyA, keyB, 0, 8)
}

function fixedAddress(tag: number, chainIndex: number, i: number): string {
  const key = hashKey(WALLET_SEED, streamId(tag, chainIndex), i)
  return addressFor(CHAIN_SPECS[chainIndex]!.evm, key, key ^ 0x5bd1e995)
}

function build<T>(n: number, f: (i: number) => T): readonly T[] {
  return Object.freeze(Array.from({ length: n }, (_, i) => f(i)))
}

/** tracked wallets of each chain, by chain index */
export const TRACKED_WALLETS: readonly (readonly string[])[] = CHAIN_SPECS.map((_, c) =>
  build(TRACKED_WALLETS_PER_CHAIN, (i) => fixedAddress(TAG_TRACKED, c, i))
)

/**
 * labelled exchange hot wallets of each chain, by chain index: the engine's label list
 * (engine/whales/exchange-wallets.ts), so exchange inflow/outflow downstream recognizes every one
 */
export const EXCHANGE_WALLETS: readonly (readonly LabelledAddress[])[] = CHAIN_SPECS.map(
  (s) => EXCHANGE_HOT_WALLETS[s.chain]
)

/** DEX routers and pools of each chain, by chain index */
export const DEX_POOLS: readonly (readonly string[])[] = CHAIN_SPECS.map((_, c) =>
  build(DEX_POOLS_PER_CHAIN, (i) => fixedAddress(TAG_DEX, c, i))
)
