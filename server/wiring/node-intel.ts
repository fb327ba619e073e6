/**
 * @module
 * Wiring of node intelligence (issue 16, docs/node-intel.md). Built before the stream hub so the hub can
 * take its new-pairs feed (`newpairs:<chain>` channels); `attach` gives it the server context's shared
 * chain clients (one per chain, shared with the whale sources: one rate limit per node); `start` checks
 * each chain's node chain id in the background (a mismatch is logged and makes that chain's routes answer
 * 503 chain_mismatch) and polls the factories for new pairs under the supervisor.
 */
import type { ChainClients } from '../../engine/chain/chain-clients.js'
import { NODE_INTEL_CHAINS, type NodeIntelChain } from '../../engine/chain/chains.js'
import { errorText } from '../../engine/chain/chain-client.js'
import type { Logger } from '../../engine/log.js'
import type { NodeIntelConfig } from '../../engine/nodeintel/config.js'
import { NewPairsWatcher, type NewPair } from '../../engine/nodeintel/new-pairs.js'
import { NodeIntelService } from '../../engine/nodeintel/service.js'
import type { Supervisor } from '../../engine/runtime/supervisor.js'
import type { NewPairsSource } from '../../engine/stream/kinds/kind.js'
import type { Route } from '../http/types.js'
import { nodeRoutes } from '../routes/node.js'

export class NodeIntelWiring {
  private svc: NodeIntelService | null = null
  readonly watchers = new Map<NodeIntelChain, NewPairsWatcher>()
  private readonly listeners: ((p: NewPair) => void)[] = []

  /** the stream hub's source of `newpairs:` updates (pairs arrive once `attach` and `start` ran) */
  readonly feed: NewPairsSource = {
    subscribe: (fn) => {
      this.listeners.push(fn)
      for (const w of this.watchers.values()) w.subscribe(fn)
    },
    recent: (chain, n) => this.watchers.get(chain)?.list(n, 0).pairs ?? []
  }

  constructor(
    private readonly cfg: NodeIntelConfig,
    private readonly log: Logger
  ) {}

  /** the server context's chain clients (node intelligence uses bsc and avalanche) */
  attach(clients: ChainClients): void {
    this.svc = new NodeIntelService(clients, this.cfg)
    if (this.cfg.newPairsPollMs === 0) return
    for (const chain of this.svc.configured()) {
      const w = new NewPairsWatcher(this.svc.get(chain), this.cfg.newPairsKeep)
      for (const fn of this.listeners) w.subscribe(fn)
      this.watchers.set(chain, w)
    }
  }

  get service(): NodeIntelService {
    if (!this.svc) throw new Error('node intelligence used before attach()')
    return this.svc
  }

  routes(): Route[] {
    return nodeRoutes({ service: this.service, newPairs: (chain) => this.watchers.get(chain) })
  }

  start(supervisor: Supervisor): void {
    const service = this.service
    for (const chain of NODE_INTEL_CHAINS) {
      if (!service.has(chain)) continue
      const intel = service.get(chain)
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
