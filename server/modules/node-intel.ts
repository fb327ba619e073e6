/**
 * @module
 * Node intelligence (docs/node-intel.md) on the shared chain clients (one per chain, shared with the chain
 * sources: one rate limit per node). Its `feed` is the stream hub's source of `newpairs:<chain>` updates,
 * its `riskFeed` that of `tokenrisk:<chain>`. Its start checks each chain's node chain id in the
 * background (a mismatch is logged and makes that chain's routes answer 503 chain_mismatch), polls the
 * factories for new pairs and, with a store, loads the watch list and scans new blocks for re-check
 * triggers under the supervisor; each verdict change goes to `emit` (the webhook outbox) as
 * TOKEN_RISK_CHANGED events. New pairs join the watch list as their verdicts settle. A start opens it through
 * server/modules/node-intel-open.ts, which loads this code only when some node-intelligence chain has a node.
 */
import type { ChainClientSet } from '../../engine/chain/chain-client-set.js'
import { NODE_INTEL_CHAINS, type NodeIntelChain } from '../../engine/chain/chains.js'
import { errorText } from '../../engine/chain/rpc-errors.js'
import type { Logger } from '../../engine/log.js'
import type { NodeIntelConfig } from '../../engine/nodeintel/config.js'
import { NewPairsWatcher } from '../../engine/nodeintel/new-pairs.js'
import { TokenRecheck } from '../../engine/nodeintel/recheck.js'
import { NodeIntelService } from '../../engine/nodeintel/service.js'
import { tokenRiskEvents } from '../../engine/nodeintel/token-risk-events.js'
import { WatchList } from '../../engine/nodeintel/watch-list.js'
import type { Supervisor } from '../../engine/runtime/supervisor.js'
import type { Store } from '../../engine/store/store.js'
import type { NewPairsSource, TokenRiskSource } from '../../engine/stream/kinds/kind.js'
import type { WebhookEvent } from '../../engine/webhooks/event.js'
import type { Route } from '../http/types.js'
import { nodeRoutes } from '../routes/node.js'
import { watchRoutes } from '../routes/node-watch.js'
import type { ServiceModule } from './service-module.js'

/** What the watch list and its re-checks need: the store (watch list, verdict history) and the outbox. */
export interface RecheckWiring {
  readonly store: Store
  /** the webhook outbox's intake (TOKEN_RISK_CHANGED events) */
  readonly emit: (e: WebhookEvent) => void
}

export class NodeIntelModule implements ServiceModule {
  readonly name = 'node intelligence'
  readonly service: NodeIntelService
  readonly watchers = new Map<NodeIntelChain, NewPairsWatcher>()
  readonly rechecks = new Map<NodeIntelChain, TokenRecheck>()
  readonly watches: WatchList | null = null

  /** the stream hub's source of `tokenrisk:` updates */
  readonly riskFeed: TokenRiskSource = {
    subscribe: (fn) => {
      for (const r of this.rechecks.values()) r.subscribe(fn)
    },
    recent: (chain, n) => this.rechecks.get(chain)?.recent(n) ?? []
  }

  /** the stream hub's source of `newpairs:` updates */
  readonly feed: NewPairsSource = {
    subscribe: (fn) => {
      for (const w of this.watchers.values()) w.subscribe(fn)
    },
    recent: (chain, n) => this.watchers.get(chain)?.list(n, 0).pairs ?? []
  }

  constructor(
    private readonly cfg: NodeIntelConfig,
    clients: ChainClientSet,
    private readonly log: Logger,
    private readonly supervisor: Supervisor,
    private readonly wiring?: RecheckWiring
  ) {
    this.service = new NodeIntelService(clients, cfg)
    if (wiring) {
      for (const chain of this.service.configured()) {
        const r = new TokenRecheck(this.service.get(chain), wiring.store, cfg.watch)
        r.onError = (token, err) =>
          log.warn({ chain, token, err: errorText(err) }, 'node intelligence: re-check failed')
        r.subscribe((c) => tokenRiskEvents(c).forEach(wiring.emit))
        this.rechecks.set(chain, r)
      }
      this.watches = new WatchList(wiring.store, cfg.watch.perKey, (chain) => this.rechecks.get(chain))
    }
    if (cfg.newPairsPollMs === 0) return
    for (const chain of this.service.configured()) {
      const w = new NewPairsWatcher(this.service.get(chain), cfg.newPairsKeep)
      const r = this.rechecks.get(chain)
      // a new pair's token is watched once its first check is done (its verdict is then in the cache)
      if (r) w.subscribe((p) => p.verdict !== null && r.addNewPair(p.token))
      this.watchers.set(chain, w)
    }
  }

  routes(): Route[] {
    const routes = nodeRoutes({
      service: this.service,
      newPairs: (chain) => this.watchers.get(chain),
      rechecks: (chain) => this.rechecks.get(chain)?.stats() ?? null
    })
    if (!this.wiring || !this.watches) return routes
    const watch = watchRoutes({
      service: this.service,
      store: this.wiring.store,
      watches: this.watches,
      recheck: (chain) => this.rechecks.get(chain),
      perKey: this.cfg.watch.perKey
    })
    return [...routes, ...watch]
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
      const r = this.rechecks.get(chain)
      if (r && this.cfg.watch.pollMs > 0) {
        supervisor.every(`token-recheck:${chain}`, this.cfg.watch.pollMs, async () => {
          await intel.ready()
          await r.poll()
        })
      }
    }
    const watches = this.watches
    if (watches) {
      supervisor.run('token-watch-load', async () => {
        const n = await watches.load((err) =>
          this.log.warn({ err: errorText(err) }, 'node intelligence: first check of a watched token failed')
        )
        if (n > 0) this.log.info({ tokens: n }, 'node intelligence: watch list loaded')
      })
    }
  }
}
