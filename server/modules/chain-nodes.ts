/**
 * @module
 * The chain nodes: one JSON-RPC client per configured EVM chain (`<CHAIN>_RPC_URL`,
 * engine/chain/rpc-config.ts), shared by the chain sources and node intelligence so each node has one rate
 * limit. The clients' code (viem) is loaded when the module opens, and only when some chain has a node;
 * without one the set answers for no chain (engine/chain/chain-client-set.ts). Its stop calls the set's
 * `close()`, which holds nothing open (viem's http transport sends through the process's shared fetch
 * pool); the step stays so the shutdown order names the chain nodes.
 */
import { hasChainNode, noChainClients, type ChainClientSet } from '../../engine/chain/chain-client-set.js'
import type { Logger } from '../../engine/log.js'
import type { Config } from '../config.js'
import type { ServiceModule } from './service-module.js'

export interface ChainNodes extends ServiceModule {
  readonly clients: ChainClientSet
}

export async function openChainNodes(config: Config, log: Logger): Promise<ChainNodes> {
  let clients = noChainClients(config.chains)
  if (hasChainNode(config.chains)) {
    const { ChainClients } = await import('../../engine/chain/chain-clients.js')
    clients = new ChainClients(config.chains)
  }
  return {
    name: 'chain nodes',
    clients,
    // a failure to close must not stop the shutdown
    stop: () =>
      clients
        .close()
        .catch((err: unknown) => log.warn({ err: (err as Error).message }, 'chain node connections not closed'))
  }
}
