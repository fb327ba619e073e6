/**
 * @module
 * Composition root: validates configuration, prepares the data directory, opens the store, applies
 * migrations, starts ingest sources and the HTTP server, and wires graceful shutdown.
 */
import fs from 'node:fs'
import path from 'node:path'
import type { Config } from '../engine/config.js'
import type { Logger } from '../engine/log.js'
import { projectRoot } from '../engine/paths.js'
import { migrate } from '../engine/schema/migrate.js'
import { prepareDataDir } from '../engine/store/chdb/data-dir.js'
import { openStore } from '../engine/store/open-store.js'
import type { Store } from '../engine/store/store.js'
import { IngestPipeline } from '../ingest/pipeline.js'
import { Compactor } from '../engine/store/compact.js'
import { CANDLE_COMPACTION } from '../engine/history/candle-compaction.js'
import { BatchJournal, REPLAY_BY_HAND } from '../ingest/journal.js'
import { ViewRepairs } from '../ingest/view-repairs.js'
import { candleRepair } from '../engine/history/candle-repair.js'
import { ImportJournal, importJournalDir } from '../ingest/import/import-journal.js'
import { runSource } from '../ingest/run-source.js'
import { Supervisor } from '../engine/runtime/supervisor.js'
import { sleep } from '../engine/runtime/backoff.js'
import { Readiness } from './readiness.js'
import { takeLastStop } from './last-stop.js'
import { SimSource } from '../ingest/sources/sim-source.js'
import { createVenueSource, isVenueName } from '../ingest/sources/venues.js'
import { ReplaySource } from '../ingest/sources/replay-source.js'
import type { Source } from '../ingest/sources/source.js'
import { NdjsonParser } from '../ingest/workers/ndjson-parser.js'
import { ensureAdminToken } from './admin-token.js'
import { App } from './app.js'
import type { ServerContext } from './context.js'
import { startHttpServer } from './http/uws-server.js'
import { BodyBudget, SPOOLED_BODIES, type BodyCounters } from './http/body-budget.js'
import { adminRoutes } from './routes/admin.js'
import { healthRoutes } from './routes/health.js'
import { ExportSlots } from './export-slots.js'
import { StoreProbe } from './store-probe.js'
import { KEY_RELOAD_MS, KeyRegistry } from '../engine/access/key-registry.js'
import { QUOTA_FLUSH_MS, QuotaCounter } from '../engine/access/quota.js'
import { IpThrottle } from '../engine/access/ip-throttle.js'
import { AccessControl } from './access/access-control.js'
import { keyRoutes } from './routes/keys.js'
import { openapiRoutes } from './routes/openapi.js'
import { optionsRoutes } from './routes/options.js'
import { derivativesRoutes } from './routes/derivatives.js'
import { optionsHistoryRoutes } from './routes/options-history.js'
import { onchainRoutes } from './routes/onchain.js'
import { confirmRoutes } from './routes/confirm.js'
import { whaleRoutes } from './routes/whales.js'
import { LiveState } from '../engine/live/live-state.js'
import { holdsSyntheticData } from '../engine/live/synthetic-data.js'
import { ProcessMonitor } from './process-stats.js'
import { MarketDirectory } from '../engine/history/markets.js'
import { historyRoutes } from './routes/history/index.js'
import { StreamHub } from '../engine/stream/stream-hub.js'
import { StreamService, STREAM_ROUTE } from './stream/stream-service.js'
// --- outbound webhooks (docs/webhooks.md) ---
import { WebhookService } from '../engine/webhooks/service.js'
import { UndiciTransport } from './webhooks/undici-transport.js'
import { screenerBases as webhookKnownBases } from '../engine/symbols/known-bases.js'
import { webhookRoutes } from './routes/webhooks.js'
// --- end outbound webhooks ---
// --- signals (docs/signals.md) ---
import { SignalService } from '../engine/signals/signal-service.js'
import { signalRoutes } from './routes/signals.js'
// --- end signals ---
import { AlertService } from '../engine/alerts/alert-service.js'
import { AlertSettingsRegistry } from '../engine/alerts/alert-settings.js'
import { SenderAllowList } from '../engine/alerts/sender-allow-list.js'
import { confirmAnswersOf } from '../engine/live/confirm-answers.js'
import { screenerBases } from '../engine/symbols/known-bases.js'
import { alertRoutes } from './routes/alerts.js'
import { openAccounts } from './wiring/accounts.js' // accounts (docs/accounts.md)
import { ChainClients } from '../engine/chain/chain-clients.js' // chain nodes
import { NodeIntelWiring } from './wiring/node-intel.js' // node intelligence
// --- chain sources (docs/sources.md "Chain sources") ---
import { ChainSourcesWiring } from './wiring/chain-sources.js'
import { isChainSourceName } from '../ingest/sources/chain/chain-source-names.js'
// --- end chain sources ---
// --- web dashboard ---
import { dashboardRoute } from './web/wiring.js'
// --- end web dashboard ---

/** Longest a shutdown waits for sources and queued batches before giving up (rows left count as failed). */
const SHUTDOWN_DEADLINE_MS = 30_000

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

function version(): string {
  const pkg = JSON.parse(fs.readFileSync(path.join(projectRoot(), 'package.json'), 'utf8')) as { version: string }
  return pkg.version
}

function createSources(
  config: Config,
  ctx: Pick<ServerContext, 'store' | 'log'>,
  chainSources: ChainSourcesWiring // chain sources
): Source[] {
  return config.sources.map((name) => {
    if (name === 'sim') {
      return new SimSource({
        seed: config.simSeed,
        backfillDays: config.simBackfillDays,
        store: ctx.store,
        log: ctx.log
      })
    }
    if (isVenueName(name)) return createVenueSource(name, config.venues, { log: ctx.log, recordDir: config.recordDir })
    if (name.startsWith('replay:')) {
      return new ReplaySource({ path: name.slice('replay:'.length), speed: config.replaySpeed, log: ctx.log })
    }
    if (isChainSourceName(name)) return chainSources.source(name) // chain sources
    throw new Error(`source ${name} has no implementation`)
  })
}

/** Test seams of `start` (fault injection); production passes none. */
export interface StartHooks {
  /** wraps the opened store, e.g. to make every call fail for a while (test/helpers/flaky-store.ts, `down`) */
  readonly wrapStore?: (store: Store) => Store
}

/**
 * Waits for `work` at most `ms`; the timer is cleared either way, so a stopped server leaves none keeping its
 * process (a test runner's) alive.
 */
async function within(work: Promise<unknown>, ms: number): Promise<void> {
  const done = new AbortController()
  try {
    await Promise.race([work, sleep(ms, done.signal)])
  } finally {
    done.abort()
  }
}

export async function start(config: Config, log: Logger, hooks: StartHooks = {}): Promise<Running> {
  const releaseLock = prepareDataDir(config.dataDir)
  const opened = await openStore(config)
  const store = hooks.wrapStore ? hooks.wrapStore(opened) : opened
  try {
    const applied = await migrate(store, { cluster: config.clickhouseCluster })
    if (applied.length > 0) log.info({ applied }, 'schema migrations applied')
  } catch (err) {
    await store.close()
    releaseLock()
    throw err
  }
  const admin = ensureAdminToken(config.adminToken, config.dataDir)
  if (admin.generated) log.warn({ file: admin.file, admin_token: admin.token }, 'generated ADMIN_TOKEN (shown once)')
  const journalDir = path.join(config.dataDir, 'journal')
  // views of raw rows that may have been inserted in part (a full disk, a crash) are repaired from the rows
  const repairs = new ViewRepairs(journalDir, { trades: candleRepair(store) }, log.child({ mod: 'repair' }))
  const journal = new BatchJournal(journalDir, repairs)
  const replayed = await journal.recover(store, log)
  if (replayed > 0) log.warn({ batches: replayed }, 'completed batches interrupted by the last stop')
  const setAside = journal.failedEntries()
  if (setAside > 0) log.error({ batches: setAside, dir: path.join(journalDir, 'failed') }, REPLAY_BY_HAND)
  const imports = await new ImportJournal(importJournalDir(config.dataDir)).recover(store, log)
  if (imports > 0) log.warn({ statements: imports }, 'completed import statements interrupted by the last stop')
  const pipeline = new IngestPipeline(
    store,
    {
      batchRows: config.batchRows,
      bulkBatchRows: config.bulkBatchRows,
      flushMs: config.flushMs,
      queueRows: config.queueRows
    },
    log.child({ mod: 'ingest' }),
    journal
  )
  repairs.attach(() => pipeline.hold())
  const keys = new KeyRegistry(store)
  const quota = new QuotaCounter(store)
  const live = new LiveState(store)
  // Small reads of disjoint tables (engine_state, api_keys, api_usage), after the journal replays above and
  // before the server listens: a key is known from the first request on. The live state (big reads) is
  // built after the server listens; data endpoints answer 503 warming_up until then (readiness.ts).
  const [synthetic] = await Promise.all([holdsSyntheticData(store, config.sources), keys.load(), quota.load()])
  if (synthetic) log.warn('this service holds SYNTHETIC demo data: every data answer is labelled synthetic')
  pipeline.live = live
  live.writes = pipeline
  live.onError = (what, err) => log.error({ err: err instanceof Error ? err.message : String(err) }, `${what} failed`)
  const supervisor = new Supervisor(log.child({ mod: 'supervisor' }))
  // key changes made by other servers on the same ClickHouse, and today's call counts, on a timer
  supervisor.every('keys-reload', KEY_RELOAD_MS, () => keys.load())
  supervisor.every('quota-flush', QUOTA_FLUSH_MS, () => quota.flush())
  // after bulk loads, the candle partitions they split are merged (the tables bulk exports read with FINAL)
  const exportSlots = new ExportSlots(config.exportMaxConcurrent)
  const compactor = new Compactor(
    store,
    CANDLE_COMPACTION,
    log.child({ mod: 'compact' }),
    supervisor.track('compaction'),
    () => exportSlots.inUse > 0 // merges wait for streaming exports (engine/store/compact.ts)
  )
  pipeline.onBulkEnd = (range) => compactor.request(range)
  // --- signals (docs/signals.md): the bus, the engine and the event writer, built before the stream hub
  // (its signals: channels read the bus) and started below ---
  const signals = new SignalService(live, store)
  // --- end signals ---
  // Created before the first rebuild: the hub observes the live state, and the rebuild seeds it.
  // node intelligence (docs/node-intel.md): built before the hub, which pushes its newpairs: channels
  const nodeIntel = new NodeIntelWiring(config.nodeIntel, log.child({ mod: 'node-intel' }))
  const hub = new StreamHub(live, { sources: { signals: signals.bus, newPairs: nodeIntel.feed } })
  const storeProbe = new StoreProbe(store)
  storeProbe.start()
  // --- chain sources: the watch lists load here (a bad list stops the start naming file and line) ---
  let chainSources: ChainSourcesWiring
  try {
    chainSources = new ChainSourcesWiring(config, { store, log })
  } catch (err) {
    await store.close()
    releaseLock()
    throw err
  }
  // --- end chain sources ---
  const sources = createSources(config, { store, log }, chainSources)
  const readiness = new Readiness(() => sources)
  const bodies = new BodyBudget(config.bodyMemoryBytes, SPOOLED_BODIES)
  const ctx: ServerContext = {
    config,
    version: version(),
    store,
    storeProbe,
    processMonitor: new ProcessMonitor(),
    pipeline,
    repairs,
    journal,
    sources,
    adminToken: admin.token,
    keys,
    quota,
    live,
    markets: new MarketDirectory(store),
    log,
    exports: exportSlots,
    bodies,
    synthetic,
    readiness,
    supervisor,
    chains: new ChainClients(config.chains), // chain nodes: shared by whale sources and node intelligence
    stream: null
  }
  chainSources.attach(ctx.chains) // chain sources: the evm:<chain> sources use the shared clients
  // --- node intelligence: the bsc/avalanche clients shared with the chain sources; chain id check, new pairs ---
  nodeIntel.attach(ctx.chains)
  nodeIntel.start(supervisor)
  // --- end node intelligence ---
  const parser = new NdjsonParser()
  // --- accounts (docs/accounts.md): loaded before listening; a session stands in for a key ---
  const accounts = await openAccounts(ctx)
  // --- end accounts ---
  const access = new AccessControl({
    registry: keys,
    quota,
    throttle: new IpThrottle(config.publicRatePerMinute),
    adminToken: admin.token,
    trustedProxyHops: config.trustedProxyHops,
    session: accounts.gate // accounts
  })
  const stream = new StreamService(hub, access, readiness, synthetic)
  ctx.stream = stream
  // --- signals (docs/signals.md): the engine observes the live state and starts evaluating once the service
  // is ready, after reading back the stored events; the writer stores every published event ---
  signals.start(supervisor, () => readiness.ready)
  ctx.signals = signals
  // --- end signals ---
  // --- inbound alerts (docs/alerts.md): secrets and settings loaded before listening, reloaded like keys ---
  const alertSettings = new AlertSettingsRegistry(store)
  await alertSettings.load()
  supervisor.every('alert-settings-reload', KEY_RELOAD_MS, () => alertSettings.load())
  const alerts = new AlertService({
    sources: config.alertSources,
    allowList: new SenderAllowList(config.alertAllowedIps),
    settings: alertSettings,
    keyOf: (id) => keys.get(id),
    quota,
    answers: confirmAnswersOf(live),
    known: screenerBases(live.screener),
    // forwarded alerts (forward: true) are SIGNAL events of their key on the signal bus
    bus: signals.bus,
    log: log.child({ mod: 'alerts' })
  })
  ctx.alerts = alerts
  // --- end inbound alerts ---
  // --- outbound webhooks (docs/webhooks.md): registrations loaded before listening (a WEBHOOK_KEY that does
  // not open the stored signing keys stops the start); deliveries left pending resume under the supervisor ---
  let webhooks: WebhookService
  try {
    webhooks = await WebhookService.open({
      store,
      config: config.webhooks,
      dataDir: config.dataDir,
      log: log.child({ mod: 'webhooks' }),
      transport: (policy) =>
        new UndiciTransport({
          policy,
          perReceiver: config.webhooks.receiverConcurrency,
          timeoutMs: config.webhooks.timeoutMs
        })
    })
  } catch (err) {
    await store.close()
    releaseLock()
    throw err
  }
  if (webhooks.generatedKeyFile)
    log.warn({ file: webhooks.generatedKeyFile }, 'generated the webhook key (WEBHOOK_KEY)')
  ctx.webhooks = webhooks
  // every signal event (engine and forwarded alerts) goes to the outbox; `key_id` events only to that key's webhooks
  webhooks.subscribe(signals.bus)
  supervisor.run('webhook-outbox', async () => {
    const resumed = await webhooks.resume()
    if (resumed > 0) log.info({ deliveries: resumed }, 'webhook deliveries resumed')
  })
  // --- end outbound webhooks ---
  const routes = [
    ...healthRoutes(ctx),
    ...optionsRoutes(ctx),
    ...optionsHistoryRoutes(store),
    ...derivativesRoutes(ctx),
    ...onchainRoutes(store),
    ...confirmRoutes(ctx),
    ...whaleRoutes(ctx),
    ...signalRoutes(ctx),
    ...historyRoutes(ctx),
    ...keyRoutes(keys, quota),
    ...adminRoutes(ctx, parser),
    ...webhookRoutes({ webhooks, known: webhookKnownBases(live.screener) }), // outbound webhooks
    ...alertRoutes(ctx, alerts),
    ...chainSources.routes(), // chain sources: watch-list admin (docs/watchlists.md)
    ...nodeIntel.routes(), // node intelligence (docs/node-intel.md)
    ...accounts.routes(), // accounts (docs/accounts.md)
    STREAM_ROUTE
  ]
  const app = new App([...routes, ...openapiRoutes(routes, ctx.version)], log.child({ mod: 'http' }), access, {
    readiness,
    synthetic,
    web: dashboardRoute(log.child({ mod: 'web' })) // web dashboard (docs/dashboard.md)
  })
  let http: Awaited<ReturnType<typeof startHttpServer>>
  try {
    http = await startHttpServer(app, config.host, config.port, stream, {
      budget: bodies,
      spoolDir: path.join(config.dataDir, 'tmp', 'bodies')
    })
  } catch (err) {
    // the port is taken: end what already runs and close the store before the caller exits (an embedded
    // store left open could keep the process from exiting: seen under load, the exit 2 never came)
    await supervisor.stop()
    await webhooks.stop(Date.now())
    storeProbe.stop()
    await parser.close()
    await store.close()
    releaseLock()
    throw err
  }
  log.info({ host: config.host, port: http.port, store: store.kind, sources: config.sources }, 'listening')
  ctx.lastStop = takeLastStop(config.dataDir) // marks this run `running` until its stop records how it ended
  if (ctx.lastStop && ctx.lastStop.kind !== 'clean')
    log.warn({ last_stop: ctx.lastStop }, 'the last run did not stop cleanly')

  // Warm-up: build the live state (retried under the supervisor while the store fails), then start the hub
  // and the sources. Sources start only after the build, so no live record is applied to books a rebuild
  // is about to replace.
  let warmed!: () => void
  const warm = new Promise<void>((r) => (warmed = r))
  readiness.whenReady(() => {
    log.info({ synthetic }, 'ready: serving data')
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
      supervisor.run(`source:${s.name}`, (sig) => runSource(s, pipeline, sig, log.child({ source: s.name })))
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
      await within(supervisor.stop(), SHUTDOWN_DEADLINE_MS / 2)
      // a repair in flight ends before the last batches are flushed without a hold (notes left: next start)
      await within(repairs.stop(), SHUTDOWN_DEADLINE_MS / 4)
      await pipeline.close(deadline)
      await compactor.stop()
      await webhooks.stop(deadline) // outbound webhooks: in-flight attempts end, results stored
      // chain nodes' kept-alive connections (the honeypot probe's pools); a failure must not stop the shutdown
      await ctx.chains
        .close()
        .catch((err: unknown) => log.warn({ err: (err as Error).message }, 'chain node connections not closed'))
      const totals = pipeline.totals()
      log.info({ written: totals.written, failed: totals.failed, queued: totals.queued }, 'ingest flushed')
      storeProbe.stop()
      await quota.stop().catch((err: unknown) => log.error({ err: (err as Error).message }, 'usage counts not saved'))
      ctx.processMonitor.stop()
      await parser.close()
      await store.close()
      releaseLock()
    })())
  return { port: http.port, ctx, app, bodies: () => bodies.counters(), stop, ready: Promise.race([warm, stopped]) }
}
