/**
 * @module
 * Composition root. Opens the service's modules in order (server/modules/*: storage, the core, then each
 * capability), builds the server context once from what they opened, starts their loops, listens, and on
 * a stop closes the HTTP server and stops the modules in reverse order. A module that fails to open stops
 * the ones opened before it, down to the store and the data directory's lock.
 *
 * Module order, and so the stop order read backwards: storage, core, chain nodes, market, signals, history,
 * keys, webhooks, alerts, chain sources, node intelligence, accounts, venues, the write path, the loops.
 * A stop therefore ends: the HTTP server and its push streams, the supervisor's loops (sources included),
 * view repairs and the last queued batches, webhook attempts in flight, the compactor, the chain nodes'
 * connections, the store probe and usage counts, the store, the lock. The order of the route groups in
 * the API (and its OpenAPI document) is the module order.
 */
import path from 'node:path'
import type { Logger } from '../engine/log.js'
import { runSource } from '../ingest/run-source.js'
import { StreamHub } from '../engine/stream/stream-hub.js'
import { IpThrottle } from '../engine/access/ip-throttle.js'
import type { Config } from './config.js'
import { Readiness } from './readiness.js'
import { takeLastStop, type LastStop } from './last-stop.js'
import { App } from './app.js'
import type { ServerContext } from './context.js'
import { startHttpServer } from './http/uws-server.js'
import { BodyBudget, SPOOLED_BODIES, type BodyCounters } from './http/body-budget.js'
import { AccessControl } from './access/access-control.js'
import { openapiRoutes } from './routes/openapi.js'
import { StreamService, STREAM_ROUTE } from './stream/stream-service.js'
import { dashboardRoute } from './web/wiring.js'
import { ModuleList } from './modules/service-module.js'
import { openStorage, type StartHooks } from './modules/storage.js'
import { loopsModule, openCore, SHUTDOWN_DEADLINE_MS, writePathModule } from './modules/core.js'
import { openChainNodes } from './modules/chain-nodes.js'
import { marketModule } from './modules/market.js'
import { openSignals } from './modules/signals.js'
import { openHistory } from './modules/history.js'
import { keysModule } from './modules/keys.js'
import { openWebhooks } from './modules/webhooks.js'
import { openAlerts } from './modules/alerts.js'
import { openChainSources } from './modules/chain-sources.js'
import { openNodeIntel } from './modules/node-intel-open.js'
import { openAccounts } from './modules/accounts.js'
import { venuesModule } from './modules/venues.js'

export type { StartHooks }

export interface Running {
  readonly port: number
  readonly ctx: ServerContext
  readonly app: App
  /** request body counters: bytes read, buffered bodies, spools, refusals (server/http/body-budget.ts) */
  bodies(): BodyCounters
  /** graceful stop: stop accepting, stop sources, flush every queued batch, close the store */
  stop(): Promise<void>
  /** resolves once the service is ready (live state built, sources warmed up), or when it stops */
  readonly ready: Promise<void>
}

export async function start(config: Config, log: Logger, hooks: StartHooks = {}): Promise<Running> {
  const modules = new ModuleList()
  try {
    return await compose(config, log, hooks, modules)
  } catch (err) {
    await modules.stopAll(Date.now())
    throw err
  }
}

/** Opens the modules into `modules` (the caller stops them when this throws) and starts the server. */
async function compose(config: Config, log: Logger, hooks: StartHooks, modules: ModuleList): Promise<Running> {
  const storage = modules.add(await openStorage(config, log, hooks))
  const { store } = storage
  const core = modules.add(await openCore(config, log, storage))
  const { live, supervisor } = core
  const chainNodes = modules.add(await openChainNodes(config, log))
  modules.add(marketModule)
  const readiness = new Readiness(() => sources)
  const signals = modules.add(openSignals(storage, core, () => readiness, hooks.signalClock))
  modules.add(openHistory(storage, core, log))
  modules.add(keysModule(core))
  const webhooks = modules.add(await openWebhooks(config, log, storage, core, signals))
  const alerts = modules.add(await openAlerts(config, log, storage, core, signals, webhooks))
  modules.add(await openChainSources(config, chainNodes.clients, { store, log }))
  const nodeIntel = modules.add(
    await openNodeIntel(config.nodeIntel, chainNodes.clients, log.child({ mod: 'node-intel' }), supervisor, {
      store,
      emit: webhooks.service.outbox.onEvent // TOKEN_RISK_CHANGED events
    })
  )
  const accounts = modules.add(await openAccounts(config, log, storage, core, alerts))
  modules.add(venuesModule(config, { store, log }))
  modules.add(writePathModule(core, storage))
  modules.add(loopsModule(core))
  const sources = modules.sources(config.sources)

  // the hub observes the live state (the warm-up's rebuild seeds it) and pushes signals:, newpairs: and tokenrisk:
  const hub = new StreamHub(live, {
    sources: { signals: signals.service.bus, newPairs: nodeIntel.feed, tokenRisk: nodeIntel.riskFeed }
  })
  const access = new AccessControl({
    registry: core.keys,
    quota: core.quota,
    throttle: new IpThrottle(config.publicRatePerMinute),
    adminToken: storage.adminToken,
    trustedProxyHops: config.trustedProxyHops,
    session: accounts.gate
  })
  const stream = new StreamService(hub, access, readiness, core.synthetic)
  const bodies = new BodyBudget(config.bodyMemoryBytes, SPOOLED_BODIES)
  let lastStop: LastStop | null | undefined
  const ctx: ServerContext = {
    config,
    version: core.version,
    store,
    storeProbe: core.storeProbe,
    processMonitor: core.processMonitor,
    pipeline: core.pipeline,
    repairs: storage.repairs,
    journal: storage.journal,
    sources,
    adminToken: storage.adminToken,
    keys: core.keys,
    quota: core.quota,
    live,
    markets: core.markets,
    log,
    exports: core.exports,
    bodies,
    synthetic: core.synthetic,
    readiness,
    supervisor,
    chains: chainNodes.clients,
    stream,
    lastStop: () => lastStop,
    signals: signals.service,
    alerts: alerts.service,
    webhooks: webhooks.service,
    healthSections: () => modules.health()
  }
  const routes = [...modules.routes(ctx), STREAM_ROUTE]
  const app = new App([...routes, ...openapiRoutes(routes, ctx.version)], log.child({ mod: 'http' }), access, {
    readiness,
    synthetic: core.synthetic,
    web: dashboardRoute(log.child({ mod: 'web' }))
  })
  modules.startAll()
  // a port already taken throws here: the modules are stopped before the caller exits (an embedded store
  // left open could keep the process from exiting)
  const http = await startHttpServer(app, config.host, config.port, stream, {
    budget: bodies,
    spoolDir: path.join(config.dataDir, 'tmp', 'bodies')
  })
  log.info({ host: config.host, port: http.port, store: store.kind, sources: config.sources }, 'listening')
  lastStop = takeLastStop(config.dataDir) // marks this run `running` until its stop records how it ended
  if (lastStop && lastStop.kind !== 'clean') log.warn({ last_stop: lastStop }, 'the last run did not stop cleanly')

  // Warm-up: build the live state (retried under the supervisor while the store fails), then start the hub
  // and the sources. Sources start only after the build, so no live record is applied to books a rebuild
  // is about to replace.
  let warmed!: () => void
  const warm = new Promise<void>((r) => (warmed = r))
  readiness.whenReady(() => {
    log.info({ synthetic: core.synthetic }, 'ready: serving data')
    warmed()
  })
  supervisor.run('warm-up', async (signal) => {
    const started = Date.now()
    await live.rebuild()
    if (signal.aborted) return
    log.info({ ms: Date.now() - started }, 'live state built')
    readiness.liveStateBuilt()
    supervisor.every('stream-hub', hub.tickEveryMs, () => hub.tick())
    for (const s of sources) {
      supervisor.run(`source:${s.name}`, (sig) => runSource(s, core.pipeline, sig, log.child({ source: s.name })))
    }
  })
  let stopping: Promise<void> | undefined
  let onStop!: () => void
  const stopped = new Promise<void>((r) => (onStop = r))
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      onStop()
      const deadline = Date.now() + SHUTDOWN_DEADLINE_MS
      app.stop() // kept-alive connections outlive the listen socket: their requests answer 503 from here
      http.close()
      stream.closeAll()
      await modules.stopAll(deadline)
    })())
  return { port: http.port, ctx, app, bodies: () => bodies.counters(), stop, ready: Promise.race([warm, stopped]) }
}
