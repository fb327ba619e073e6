/**
 * @module
 * Node intelligence (docs/node-intel.md) on the shared chain clients (one per chain, shared with the chain
 * sources: one rate limit per node). Its `feed` is the stream hub's source of `newpairs:<chain>` updates.
 * Its start checks each chain's node chain id in the background (a mismatch is logged and makes that
 * chain's routes answer 503 chain_mismatch) and polls the factories for new pairs under the supervisor.
 */
import type { ChainClients } from '../../engine/chain/chain-clients.js'
import { NODE_INTEL_CHAINS, type NodeIntelChain } from '../../engine/chain/chains.js'
import { errorText } from '../../engine/chain/chain-client.js'
import type { Logger } from '../../engine/log.js'
import type { NodeIntelConfig } from '../../engine/nodeintel/config.js'
import { NewPairsWatcher } from '../../engine/nodeintel/new-pairs.js'
import { NodeIntelService } from '../../engine/nodeintel/service.js'
import type { Supervisor } from '../../engine/runtime/supervisor.js'
import type { NewPairsSource } from '../../engine/stream/kinds/kind.js'
import type { Route } from '../http/types.js'
import { nodeRoutes } from '../routes/node.js'
import type { ServiceModule } from './service-module.js'

export class NodeIntelModule implements ServiceModule {
  readonly name = 'node intelligence'
  readonly service: NodeIntelService
  readonly watchers = new Map<NodeIntelChain, NewPairsWatcher>()

  /** the stream hub's source of `newpairs:` updates */
  readonly feed: NewPairsSource = {
    subscribe: (fn) => {
      for (const w of this.watchers.values()) w.subscribe(fn)
    },
    recent: (chain, n) => this.watchers.get(chain)?.list(n, 0).pairs ?? []
  }

  constructor(
    private readonly cfg: NodeIntelConfig,
    clients: ChainClients,
    private readonly log: Logger,
    private readonly supervisor: Supervisor
  ) {
    this.service = new NodeIntelService(clients, cfg)
    if (cfg.newPairsPollMs === 0) return
    for (const chain of this.service.configured()) {
      this.watchers.set(chain, new NewPairsWatcher(this.service.get(chain), cfg.newPairsKeep))
    }
  }

  routes(): Route[] {
    return nodeRoutes({ service: this.service, newPairs: (chain) => this.watchers.get(chain) })
  }

  start(): void {
    const supervisor = this.supervisor
    for (const chain of NODE_INTEL_CHAINS) {
      if (!this.service.has(chain)) continue
      const intel = this.service.get(chain)
      supervisor.run(`node-intel-verify:${chain}`, async () => {
        try {
          await intel.ready()
          this.log.info({ chain, nodes: intel.client.nodeLabels }, 'node intelligence: chain id verified')
        } catch (err) {
          this.log.warn({ chain, err: errorText(err) }, 'node intelligence: chain id not verified')
        }
      })
      const w = this.watchers.get(chain)
      if (w) {
        supervisor.every(`new-pairs:${chain}`, this.cfg.newPairsPollMs, async () => {
          await intel.ready()
          await w.poll()
        })
      }
    }
  }
}
