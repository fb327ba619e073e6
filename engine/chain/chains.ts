/**
 * @module
 * The EVM chains Tidewatch talks to, as the chain clients, the whale sources and node intelligence read
 * them: chain id, the environment prefix of their variables, native and wrapped-native token, and the
 * confirmation depth and block time they assume. The data is the catalog's (catalog/chains.ts); here the
 * wrapped-native address is typed as a viem `Address`, and the node-intelligence path names
 * are mapped to the chains they are.
 */
import type { Address } from 'viem'
import {
  EVM_CHAIN_IDS,
  EVM_SPECS,
  NODE_INTEL_CHAINS as NODE_INTEL_ENTRIES,
  NODE_INTEL_PATHS,
  type EvmChainId,
  type EvmSpec,
  type NodeIntelPath
} from '../../catalog/chains.js'

export type EvmChainName = EvmChainId
export const EVM_CHAIN_NAMES: readonly EvmChainName[] = EVM_CHAIN_IDS

export interface ChainSpec extends Omit<EvmSpec, 'wrappedNative' | 'nodeIntel' | 'envAliases'> {
  readonly name: EvmChainName
  /** the canonical wrapped native token (WETH9-style deposit/withdraw), checksummed */
  readonly wrappedNative: Address
}

function spec(name: EvmChainName): ChainSpec {
  const s = EVM_SPECS[name]
  return Object.freeze({
    name,
    chainId: s.chainId,
    envName: s.envName,
    nativeSymbol: s.nativeSymbol,
    wrappedNative: s.wrappedNative, // checksummed in the catalog (test/unit/catalog.test.ts)
    wrappedSymbol: s.wrappedSymbol,
    confirmations: s.confirmations,
    blockTimeMs: s.blockTimeMs
  })
}

export const EVM_CHAINS: Readonly<Record<EvmChainName, ChainSpec>> = Object.freeze(
  Object.fromEntries(EVM_CHAIN_NAMES.map((name) => [name, spec(name)])) as Record<EvmChainName, ChainSpec>
)

export function isEvmChainName(v: unknown): v is EvmChainName {
  return typeof v === 'string' && (EVM_CHAIN_NAMES as readonly string[]).includes(v)
}

/** The chains of node intelligence, as they appear in its paths (`/v1/node/{chain}/...`). */
export type NodeIntelChain = NodeIntelPath
export const NODE_INTEL_CHAINS: readonly NodeIntelChain[] = NODE_INTEL_PATHS

const BY_PATH: ReadonlyMap<NodeIntelChain, EvmChainName> = new Map(NODE_INTEL_ENTRIES.map((c) => [c.path, c.chain]))

/** A node-intelligence path name → the chain table's name (`avax` → `avalanche`). */
export function nodeIntelChain(chain: NodeIntelChain): EvmChainName {
  return BY_PATH.get(chain)!
}

/** The catalog's node-intelligence defaults of a path name (DEX, pricing stablecoin). */
export function nodeIntelDefaults(chain: NodeIntelChain): NonNullable<EvmSpec['nodeIntel']> {
  return EVM_SPECS[nodeIntelChain(chain)].nodeIntel!
}

/** The symbol of a node-intelligence chain's wrapped native coin (`WBNB`), the probe's base. */
export function nodeIntelWrappedSymbol(chain: NodeIntelChain): string {
  return EVM_SPECS[nodeIntelChain(chain)].wrappedSymbol
}

/** The variable prefixes a chain's `_RPC_URL` / `_WS_URL` are read from: its own first, then its aliases. */
export function envPrefixesOf(chain: EvmChainName): readonly string[] {
  const s = EVM_SPECS[chain]
  return [s.envName, ...(s.envAliases ?? [])]
}
