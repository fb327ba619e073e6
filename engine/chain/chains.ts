/**
 * @module
 * The EVM chains Tidewatch talks to: chain id, the environment prefix of their variables, native and
 * wrapped-native token, and the confirmation depth and block time the chain sources and node intelligence
 * assume. One table, shared by the whale sources (issue 15) and node intelligence (issue 16, docs/node-intel.md).
 */
import { getAddress, type Address } from 'viem'

export type EvmChainName = 'ethereum' | 'bsc' | 'avalanche' | 'polygon' | 'arbitrum' | 'base' | 'optimism'
export const EVM_CHAIN_NAMES: readonly EvmChainName[] = [
  'ethereum',
  'bsc',
  'avalanche',
  'polygon',
  'arbitrum',
  'base',
  'optimism'
]

export interface ChainSpec {
  readonly name: EvmChainName
  /** EIP-155 chain id the node must report (`eth_chainId`) */
  readonly chainId: number
  /** prefix of the chain's variables: `<envName>_RPC_URL`, `<envName>_WS_URL`, `<envName>_RPC_RATE` ... */
  readonly envName: string
  /** symbol of the gas token */
  readonly nativeSymbol: string
  /** the canonical wrapped native token (WETH9-style deposit/withdraw), checksummed */
  readonly wrappedNative: Address
  /**
   * blocks after which a log is treated as final by the chain sources (reorg depth seen in practice, with
   * margin); 1 = final on acceptance
   */
  readonly confirmations: number
  /** typical block interval, ms (poll pacing; not a guarantee) */
  readonly blockTimeMs: number
}

const spec = (s: Omit<ChainSpec, 'wrappedNative'> & { wrappedNative: string }): ChainSpec =>
  Object.freeze({ ...s, wrappedNative: getAddress(s.wrappedNative) })

export const EVM_CHAINS: Readonly<Record<EvmChainName, ChainSpec>> = Object.freeze({
  // 12 blocks (~2.4 min): beyond any post-merge reorg seen; finality proper is ~2 epochs (64 blocks)
  ethereum: spec({
    name: 'ethereum',
    chainId: 1,
    envName: 'ETHEREUM',
    nativeSymbol: 'ETH',
    wrappedNative: '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2',
    confirmations: 12,
    blockTimeMs: 12_000
  }),
  // BSC fast finality usually finalizes in 2 blocks; 15 also covers a validator set without it (0.75 s blocks)
  bsc: spec({
    name: 'bsc',
    chainId: 56,
    envName: 'BSC',
    nativeSymbol: 'BNB',
    wrappedNative: '0xbb4CdB9CBd36B01bD1cBaEBF2De08d9173bc095c',
    confirmations: 15,
    blockTimeMs: 750
  }),
  // Avalanche C-Chain (Snowman): an accepted block is final. Variables: AVALANCHE_* (AVAX_RPC_URL is an alias)
  avalanche: spec({
    name: 'avalanche',
    chainId: 43_114,
    envName: 'AVALANCHE',
    nativeSymbol: 'AVAX',
    wrappedNative: '0xB31f66AA3C1e785363F0875A1B74E27b85FD66c7',
    confirmations: 1,
    blockTimeMs: 2_000
  }),
  // Polygon PoS: milestones finalize in seconds; 32 blocks (~1 min) covers the deeper reorgs of the past
  polygon: spec({
    name: 'polygon',
    chainId: 137,
    envName: 'POLYGON',
    nativeSymbol: 'POL',
    wrappedNative: '0x0d500B1d8E8eF31E21C99d1Db9A6444d3ADf1270',
    confirmations: 32,
    blockTimeMs: 2_000
  }),
  // rollups: the sequencer's order rarely changes; ~5 s of blocks of margin
  arbitrum: spec({
    name: 'arbitrum',
    chainId: 42_161,
    envName: 'ARBITRUM',
    nativeSymbol: 'ETH',
    wrappedNative: '0x82aF49447D8a07e3bd95BD0d56f35241523fBab1',
    confirmations: 20,
    blockTimeMs: 250
  }),
  base: spec({
    name: 'base',
    chainId: 8_453,
    envName: 'BASE',
    nativeSymbol: 'ETH',
    wrappedNative: '0x4200000000000000000000000000000000000006',
    confirmations: 3,
    blockTimeMs: 2_000
  }),
  optimism: spec({
    name: 'optimism',
    chainId: 10,
    envName: 'OPTIMISM',
    nativeSymbol: 'ETH',
    wrappedNative: '0x4200000000000000000000000000000000000006',
    confirmations: 3,
    blockTimeMs: 2_000
  })
})

export function isEvmChainName(v: unknown): v is EvmChainName {
  return typeof v === 'string' && (EVM_CHAIN_NAMES as readonly string[]).includes(v)
}

/** The chains of node intelligence, as they appear in its paths (`/v1/node/{chain}/...`). */
export type NodeIntelChain = 'bsc' | 'avax'
export const NODE_INTEL_CHAINS: readonly NodeIntelChain[] = ['bsc', 'avax']

/** A node-intelligence path name → the chain table's name (`avax` → `avalanche`). */
export function nodeIntelChain(chain: NodeIntelChain): EvmChainName {
  return chain === 'avax' ? 'avalanche' : 'bsc'
}
