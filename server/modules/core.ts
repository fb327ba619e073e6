/**
 * @module
 * The core the capabilities share, opened right after storage: the write path (ingest pipeline), the live
 * state, API keys and usage counts, the supervisor of background loops, the store probe, the process
 * figures and the NDJSON parser of admin inserts. Its module logs the write path's totals, stops the probe,
 * saves the usage counts and ends the parser; the write path and the loops stop earlier, as modules of
 * their own (`writePathModule`, `loopsModule`), because everything opened after the core feeds them.
 */
import fs from 'node:fs'
import path from 'node:path'
import { KEY_RELOAD_MS, KeyRegistry } from '../../engine/access/key-registry.js'
import { QUOTA_FLUSH_MS, QuotaCounter } from '../../engine/access/quota.js'
import { MarketDirectory } from '../../engine/history/markets.js'
import { LiveState } from '../../engine/live/live-state.js'
import { livePath } from '../../engine/live/path-probe.js'
import { holdsSyntheticData } from '../../engine/live/synthetic-data.js'
import type { Logger } from '../../engine/log.js'
import { projectRoot } from '../../engine/paths.js'
import { Supervisor } from '../../engine/runtime/supervisor.js'
import { IngestPipeline } from '../../ingest/pipeline.js'
import { NdjsonParser } from '../../ingest/workers/ndjson-parser.js'
import type { Config } from '../config.js'
import { ExportSlots } from '../export-slots.js'
import { ProcessMonitor } from '../process-stats.js'
import { healthRoutes } from '../routes/health.js'
import { StoreProbe } from '../store-probe.js'
import { within, type ServiceModule } from './service-module.js'
import type { Storage } from './storage.js'

/** Longest a shutdown waits for sources and queued batches before giving up (rows left count as failed). */
export const SHUTDOWN_DEADLINE_MS = 30_000

export interface Core extends ServiceModule {
  readonly version: string
  readonly pipeline: IngestPipeline
  readonly live: LiveState
  readonly keys: KeyRegistry
  readonly quota: QuotaCounter
  readonly supervisor: Supervisor
  readonly storeProbe: StoreProbe
  readonly processMonitor: ProcessMonitor
  readonly parser: NdjsonParser
  /** the cap on bulk exports streaming at once */
  readonly exports: ExportSlots
  readonly markets: MarketDirectory
  /** the data held is (or includes) the synthetic demo market (docs/synthetic.md) */
  readonly synthetic: boolean
}

function version(): string {
  const pkg = JSON.parse(fs.readFileSync(path.join(projectRoot(), 'package.json'), 'utf8')) as { version: string }
  return pkg.version
}

export async function openCore(config: Config, log: Logger, storage: Storage): Promise<Core> {
  const { store, journal, repairs } = storage
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
  livePath.enabled = config.livePathProbe
  // Small reads of disjoint tables (engine_state, api_keys, api_usage), after the journal replays and before
  // the server listens: a key is known from the first request on. The live state (big reads) is built after
  // the server listens; data endpoints answer 503 warming_up until then (server/readiness.ts).
  const [synthetic] = await Promise.all([holdsSyntheticData(store, config.sources), keys.load(), quota.load()])
  if (synthetic) log.warn('this service holds SYNTHETIC demo data: every data answer is labelled synthetic')
  pipeline.live = live
  live.writes = pipeline
  live.onError = (what, err) => log.error({ err: err instanceof Error ? err.message : String(err) }, `${what} failed`)
  const supervisor = new Supervisor(log.child({ mod: 'supervisor' }))
  const storeProbe = new StoreProbe(store)
  storeProbe.start()
  const processMonitor = new ProcessMonitor()
  const parser = new NdjsonParser()
  return {
    name: 'core',
    version: version(),
    pipeline,
    live,
    keys,
    quota,
    supervisor,
    storeProbe,
    processMonitor,
    parser,
    exports: new ExportSlots(config.exportMaxConcurrent),
    markets: new MarketDirectory(store),
    synthetic,
    routes: (ctx) => healthRoutes(ctx),
    start: () => {
      // key changes made by other servers on the same ClickHouse, and today's call counts, on a timer
      supervisor.every('keys-reload', KEY_RELOAD_MS, () => keys.load())
      supervisor.every('quota-flush', QUOTA_FLUSH_MS, () => quota.flush())
    },
    stop: async () => {
      const totals = pipeline.totals()
      log.info({ written: totals.written, failed: totals.failed, queued: totals.queued }, 'ingest flushed')
      storeProbe.stop()
      await quota.stop().catch((err: unknown) => log.error({ err: (err as Error).message }, 'usage counts not saved'))
      processMonitor.stop()
      await parser.close()
    }
  }
}

/** Stops the write path once nothing feeds it: view repairs in flight end, every queued batch is flushed. */
export function writePathModule(core: Core, storage: Storage): ServiceModule {
  return {
    name: 'write path',
    stop: async (deadline) => {
      // a repair in flight ends before the last batches are flushed without a hold (notes left: next start)
      await within(storage.repairs.stop(), SHUTDOWN_DEADLINE_MS / 4)
      await core.pipeline.close(deadline)
    }
  }
}

/** Stops the supervisor's loops (sources, reloads, deliveries), the first thing a stop ends after the HTTP server. */
export function loopsModule(core: Core): ServiceModule {
  return { name: 'loops', stop: () => within(core.supervisor.stop(), SHUTDOWN_DEADLINE_MS / 2) }
}
