/**
 * @module
 * What the chain sources and node intelligence take their chain clients from (`ctx.chains`): the
 * `ChainClients` of engine/chain/chain-clients.ts when some chain has a node, else `noChainClients`, which
 * answers for no chain and loads no client code (viem), so a start without `<CHAIN>_RPC_URL` does not load
 * it (docs/benchmarks.md, "Cold start").
 */
import type { ChainClient } from './chain-client.js'
import type { EvmChainName } from './chains.js'
import type { ChainsConfig } from './rpc-config.js'

export interface ChainClientSet {
  readonly config: ChainsConfig
  /** the chain's client, or undefined when no `<ENV>_RPC_URL` is set */
  get(chain: EvmChainName): ChainClient | undefined
  /** chains with a node, in the order of engine/chain/chains.ts */
  configured(): EvmChainName[]
  /** the shutdown step for the chain nodes */
  close(): Promise<void>
}

/** The set of a configuration with no chain node (`config` has no chain). */
export function noChainClients(config: ChainsConfig): ChainClientSet {
  return {
    config,
    get: () => undefined,
    configured: () => [],
    close: async () => {}
  }
}

/** Whether `config` names any chain node. */
export function hasChainNode(config: ChainsConfig): boolean {
  return Object.values(config).some((c) => c !== undefined)
}
