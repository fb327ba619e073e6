/**
 * @module
 * What the node-intelligence routes and the health report ask of node intelligence: the
 * `NodeIntelService` of engine/nodeintel/service.ts, or `NO_NODE_INTEL` on a server with no node for any of
 * its chains, which answers 503 chain_not_configured for each without loading the service's code (viem).
 */
import type { NodeIntelChain } from '../chain/chains.js'
import { chainNotConfigured } from './chain-off.js'
import type { ChainIntel, NodeIntelService } from './service.js'

export type NodeIntelLookup = Pick<NodeIntelService, 'get' | 'has' | 'configured'>

/** Node intelligence with no chain node: every chain answers 503 chain_not_configured. */
export const NO_NODE_INTEL: NodeIntelLookup = {
  get: (chain: NodeIntelChain): ChainIntel => {
    throw chainNotConfigured(chain)
  },
  has: () => false,
  configured: () => []
}
