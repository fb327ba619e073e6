/**
 * @module
 * The chains, declared once: the whale chains (records' `chain`, API enums), and for each EVM chain its
 * chain id, variables, native and wrapped-native coin, confirmation depth and block time; for the chains of
 * node intelligence also their path name (`/v1/node/{chain}`) and DEX defaults. engine/records,
 * engine/chain, engine/nodeintel, the API schemas and the watch lists derive from here; adding an EVM chain
 * is one entry here (plus its watch-list file under watchlists/, docs/watchlists.md).
 *
 * Neutral: imports nothing from engine/, ingest/ or server/, no node builtins and no packages (addresses are
 * checksummed literals; test/unit/catalog.test.ts checks each with viem's `getAddress`).
 */
import { listText } from './text.js'

/** A 0x-prefixed 20-byte address, checksummed (EIP-55). */
export type AddressLiteral = `0x${string}`

/** The V2 DEX node intelligence's probe trades through on a chain, by default (mainnet contracts). */
export interface NodeIntelDefaults {
  /** the chain's name in node-intelligence paths and variables (`/v1/node/avax/...`, `AVAX_DEX_ROUTER`) */
  readonly path: string
  readonly dexName: string
  /** V2-style router (factory(), getAmountsOut, swapExactTokensForTokensSupportingFeeOnTransferTokens) */
  readonly router: AddressLiteral
  /** its factory (PairCreated events, getPair) */
  readonly factory: AddressLiteral
  /** the USD stablecoin whose pair with the wrapped native prices the coin */
  readonly usdToken: AddressLiteral
}

/** What an EVM chain is to the chain sources and node intelligence. */
export interface EvmSpec {
  /** EIP-155 chain id the node must report (`eth_chainId`) */
  readonly chainId: number
  /** prefix of the chain's variables: `<envName>_RPC_URL`, `<envName>_WS_URL`, `<envName>_RPC_RATE` ... */
  readonly envName: string
  /** prefixes also read for `_RPC_URL` and `_WS_URL`, below `envName` in precedence */
  readonly envAliases?: readonly string[]
  /** symbol of the gas token */
  readonly nativeSymbol: string
  /** the canonical wrapped native token (WETH9-style deposit/withdraw), checksummed */
  readonly wrappedNative: AddressLiteral
  /**
   * its symbol as watch lists and whale events name it: counted as the native coin in whale flows (history
   * and the confirmation model), the probe's base (`base_symbol` of a honeypot answer)
   */
  readonly wrappedSymbol: string
  /**
   * blocks after which a log is treated as final by the chain sources (reorg depth seen in practice, with
   * margin); 1 = final on acceptance
   */
  readonly confirmations: number
  /** typical block interval, ms (poll pacing; not a guarantee) */
  readonly blockTimeMs: number
  /** present for a chain node intelligence serves */
  readonly nodeIntel?: NodeIntelDefaults
}

export interface ChainEntry {
  /** the id everywhere: records' `chain`, `evm:<id>` sources, API `chain` values */
  readonly id: string
  readonly label: string
  /** EVM chains carry their spec; Solana has its own source */
  readonly evm: EvmSpec | null
}

/** Every whale chain, in listing order (API enums, the whale summary). */
export const CHAINS = [
  {
    id: 'ethereum',
    label: 'Ethereum',
    // 12 blocks (~2.4 min): beyond any post-merge reorg seen; finality proper is ~2 epochs (64 blocks)
    evm: {
      chainId: 1,
      envName: 'ETHEREUM',
      nativeSymbol: 'ETH',
      wrappedNative: '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2',
      wrappedSymbol: 'WETH',
      confirmations: 12,
      blockTimeMs: 12_000
    }
  },
  {
    id: 'bsc',
    label: 'BNB Smart Chain',
    // BSC fast finality usually finalizes in 2 blocks; 15 also covers a validator set without it (0.75 s blocks)
    evm: {
      chainId: 56,
      envName: 'BSC',
      nativeSymbol: 'BNB',
      wrappedNative: '0xbb4CdB9CBd36B01bD1cBaEBF2De08d9173bc095c',
      wrappedSymbol: 'WBNB',
      confirmations: 15,
      blockTimeMs: 750,
      nodeIntel: {
        path: 'bsc',
        dexName: 'PancakeSwap V2',
        router: '0x10ED43C718714eb63d5aA57B78B54704E256024E',
        factory: '0xcA143Ce32Fe78f1f7019d7d551a6402fC5350c73',
        // Binance-Peg BSC-USD (USDT), 18 decimals
        usdToken: '0x55d398326f99059fF775485246999027B3197955'
      }
    }
  },
  {
    id: 'avalanche',
    label: 'Avalanche C-Chain',
    // Snowman: an accepted block is final. Variables: AVALANCHE_* (AVAX_RPC_URL is an alias)
    evm: {
      chainId: 43_114,
      envName: 'AVALANCHE',
      envAliases: ['AVAX'],
      nativeSymbol: 'AVAX',
      wrappedNative: '0xB31f66AA3C1e785363F0875A1B74E27b85FD66c7',
      wrappedSymbol: 'WAVAX',
      confirmations: 1,
      blockTimeMs: 2_000,
      nodeIntel: {
        path: 'avax',
        dexName: 'Trader Joe V1',
        router: '0x60aE616a2155Ee3d9A68541Ba4544862310933d4',
        factory: '0x9Ad6C38BE94206cA50bb0d90783181662f0Cfa10',
        // native USDC on the C-Chain, 6 decimals
        usdToken: '0xB97EF9Ef8734C71904D8002F8b6Bc66Dd9c48a6E'
      }
    }
  },
  {
    id: 'polygon',
    label: 'Polygon PoS',
    // milestones finalize in seconds; 32 blocks (~1 min) covers the deeper reorgs of the past
    evm: {
      chainId: 137,
      envName: 'POLYGON',
      nativeSymbol: 'POL',
      wrappedNative: '0x0d500B1d8E8eF31E21C99d1Db9A6444d3ADf1270',
      wrappedSymbol: 'WPOL',
      confirmations: 32,
      blockTimeMs: 2_000
    }
  },
  {
    id: 'arbitrum',
    label: 'Arbitrum One',
    // rollups: the sequencer's order rarely changes; ~5 s of blocks of margin
    evm: {
      chainId: 42_161,
      envName: 'ARBITRUM',
      nativeSymbol: 'ETH',
      wrappedNative: '0x82aF49447D8a07e3bd95BD0d56f35241523fBab1',
      wrappedSymbol: 'WETH',
      confirmations: 20,
      blockTimeMs: 250
    }
  },
  {
    id: 'base',
    label: 'Base',
    evm: {
      chainId: 8_453,
      envName: 'BASE',
      nativeSymbol: 'ETH',
      wrappedNative: '0x4200000000000000000000000000000000000006',
      wrappedSymbol: 'WETH',
      confirmations: 3,
      blockTimeMs: 2_000
    }
  },
  {
    id: 'optimism',
    label: 'OP Mainnet',
    evm: {
      chainId: 10,
      envName: 'OPTIMISM',
      nativeSymbol: 'ETH',
      wrappedNative: '0x4200000000000000000000000000000000000006',
      wrappedSymbol: 'WETH',
      confirmations: 3,
      blockTimeMs: 2_000
    }
  },
  { id: 'solana', label: 'Solana', evm: null }
] as const satisfies readonly ChainEntry[]

type AnyChain = (typeof CHAINS)[number]
/** A whale chain id. */
export type ChainId = AnyChain['id']
type EvmChain = Extract<AnyChain, { evm: EvmSpec }>
/** An EVM chain id. */
export type EvmChainId = EvmChain['id']
type NodeIntelChainEntry = Extract<EvmChain, { evm: { nodeIntel: NodeIntelDefaults } }>
/** A node-intelligence chain's path name (`bsc`, `avax`). */
export type NodeIntelPath = NodeIntelChainEntry['evm']['nodeIntel']['path']

/** Every whale chain id, in listing order. */
export const CHAIN_IDS: readonly ChainId[] = CHAINS.map((c) => c.id)

const isEvm = (c: AnyChain): c is EvmChain => c.evm !== null
const EVM = CHAINS.filter(isEvm)

/** The EVM chains' ids, in listing order. */
export const EVM_CHAIN_IDS: readonly EvmChainId[] = EVM.map((c) => c.id)

/** The EVM spec of each EVM chain. */
export const EVM_SPECS: Readonly<Record<EvmChainId, EvmSpec>> = Object.fromEntries(
  EVM.map((c): [EvmChainId, EvmSpec] => [c.id, c.evm])
) as Record<EvmChainId, EvmSpec>

/** The node-intelligence chains: path name and the EVM chain it is, in listing order. */
export const NODE_INTEL_CHAINS: ReadonlyArray<{ readonly path: NodeIntelPath; readonly chain: EvmChainId }> =
  EVM.filter((c): c is NodeIntelChainEntry => 'nodeIntel' in c.evm).map((c) => ({
    path: c.evm.nodeIntel.path,
    chain: c.id
  }))

/** The node-intelligence path names (`bsc`, `avax`), in listing order. */
export const NODE_INTEL_PATHS: readonly NodeIntelPath[] = NODE_INTEL_CHAINS.map((c) => c.path)

/** `bsc or avax`: the node-intelligence path names as a list (messages, rules). */
export const nodeIntelPathList = (conjunction: 'or' | 'and'): string => listText(NODE_INTEL_PATHS, conjunction)

export function isChainId(v: unknown): v is ChainId {
  return typeof v === 'string' && (CHAIN_IDS as readonly string[]).includes(v)
}
