/**
 * @module
 * The names SOURCES accepts for chain sources, without the settings readers of chain-settings.ts.
 */
import { EVM_CHAIN_NAMES, type EvmChainName } from '../../../engine/chain/chains.js'

/** Source names of the chains: `evm:<chain>` and `solana`; `chains` in SOURCES expands to those with a URL. */
export type ChainSourceName = `evm:${EvmChainName}` | 'solana'

export const CHAIN_SOURCE_NAMES: readonly ChainSourceName[] = [
  ...EVM_CHAIN_NAMES.map((c) => `evm:${c}` as const),
  'solana'
]

export function isChainSourceName(s: string): s is ChainSourceName {
  return (CHAIN_SOURCE_NAMES as readonly string[]).includes(s)
}
