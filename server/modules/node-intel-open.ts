/**
 * @module
 * Opens node intelligence (docs/node-intel.md). With a node for some node-intelligence chain, the
 * `NodeIntelModule` of server/modules/node-intel.ts, whose code (viem, the probes, the watchers) is loaded
 * here; without one, a module of the same routes answering as that module does for a chain without a node
 * (400 for bad parameters, 503 chain_not_configured naming the variable, the stored verdict history), with
 * empty `newpairs:` and `tokenrisk:` feeds, and no node-intelligence code loaded at start
 * (docs/benchmarks.md, "Cold start").
 */
import type { ChainClientSet } from '../../engine/chain/chain-client-set.js'
import { NODE_INTEL_CHAINS, nodeIntelChain } from '../../engine/chain/chains.js'
import type { Logger } from '../../engine/log.js'
import { NO_NODE_INTEL } from '../../engine/nodeintel/lookup.js'
import type { NodeIntelConfig } from '../../engine/nodeintel/config.js'
import type { Supervisor } from '../../engine/runtime/supervisor.js'
import type { NewPairsSource, TokenRiskSource } from '../../engine/stream/kinds/kind.js'
import type { Route } from '../http/types.js'
import { nodeRoutes } from '../routes/node.js'
import { watchRoutes, type WatchListOps } from '../routes/node-watch.js'
import type { RecheckWiring } from './node-intel.js'
import type { ServiceModule } from './service-module.js'

/** What the server takes from node intelligence: its routes and the stream hub's two feeds. */
export interface NodeIntel extends ServiceModule {
  readonly feed: NewPairsSource
  readonly riskFeed: TokenRiskSource
}

/** Whether `clients` has a node for some node-intelligence chain. */
export function hasNodeIntelChain(clients: ChainClientSet): boolean {
  return NODE_INTEL_CHAINS.some((c) => clients.get(nodeIntelChain(c)) !== undefined)
}

export async function openNodeIntel(
  cfg: NodeIntelConfig,
  clients: ChainClientSet,
  log: Logger,
  supervisor: Supervisor,
  wiring?: RecheckWiring
): Promise<NodeIntel> {
  if (!hasNodeIntelChain(clients)) return new NodeIntelOff(cfg, wiring)
  const { NodeIntelModule } = await import('./node-intel.js')
  return new NodeIntelModule(cfg, clients, log, supervisor, wiring)
}

/**
 * The watch list of a server without a node-intelligence chain: never reached, as every watch route asks
 * for the chain's node (503 chain_not_configured) before the watch list.
 */
const NO_WATCHES: WatchListOps = {
  checkLimit: unreachable,
  add: unreachable,
  count: unreachable,
  list: unreachable,
  remove: unreachable
}

function unreachable(): never {
  throw new Error('node intelligence has no chain node: the watch list is not open')
}

/** Node intelligence with no node for any of its chains. */
class NodeIntelOff implements NodeIntel {
  readonly name = 'node intelligence'
  readonly feed: NewPairsSource = { subscribe: () => {}, recent: () => [] }
  readonly riskFeed: TokenRiskSource = { subscribe: () => {}, recent: () => [] }

  constructor(
    private readonly cfg: NodeIntelConfig,
    private readonly wiring?: RecheckWiring
  ) {}

  routes(): Route[] {
    const routes = nodeRoutes({ service: NO_NODE_INTEL, newPairs: () => undefined, rechecks: () => null })
    if (!this.wiring) return routes
    const watch = watchRoutes({
      service: NO_NODE_INTEL,
      store: this.wiring.store,
      watches: NO_WATCHES,
      recheck: () => undefined,
      perKey: this.cfg.watch.perKey
    })
    return [...routes, ...watch]
  }
}
