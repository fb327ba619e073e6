/**
 * @module
 * What route handlers may use: the store, the ingest pipeline, source statuses, process facts and the
 * capabilities' services. Built once at start (server/start.ts), after every module opened, and never
 * changed; tests build partial ones.
 */
import type { LastStop } from './last-stop.js'
import type { Config } from './config.js'
import type { Logger } from '../engine/log.js'
import type { Store } from '../engine/store/store.js'
import type { IngestPipeline } from '../ingest/pipeline.js'
import type { RepairCounters } from '../ingest/view-repairs.js'
import type { Source } from '../ingest/sources/source.js'
import type { StoreProbe } from './store-probe.js'
import type { ProcessMonitor } from './process-stats.js'
import type { KeyRegistry } from '../engine/access/key-registry.js'
import type { QuotaCounter } from '../engine/access/quota.js'
import type { LiveState } from '../engine/live/live-state.js'
import type { MarketDirectory } from '../engine/history/markets.js'
import type { StreamService } from './stream/stream-service.js'
import type { ExportSlots } from './export-slots.js'
import type { BodyBudget } from './http/body-budget.js'
import type { Readiness } from './readiness.js'
import type { Supervisor } from '../engine/runtime/supervisor.js'
import type { AlertService } from '../engine/alerts/alert-service.js'
import type { SignalService } from '../engine/signals/signal-service.js'
import type { WebhookService } from '../engine/webhooks/service.js'
import type { ChainClientSet } from '../engine/chain/chain-client-set.js'

export interface ServerContext {
  readonly config: Config
  readonly version: string
  readonly store: Store
  readonly storeProbe: StoreProbe
  readonly processMonitor: ProcessMonitor
  readonly pipeline: IngestPipeline
  /** repairs of views after partial inserts (ingest/view-repairs.ts); absent in route unit tests */
  readonly repairs?: { readonly counters: Readonly<RepairCounters> }
  /** the ingest journal: its entries set aside in `failed/` (absent in route unit tests) */
  readonly journal?: { failedEntries(): number }
  readonly sources: readonly Source[]
  readonly adminToken: string
  readonly keys: KeyRegistry
  readonly quota: QuotaCounter
  readonly live: LiveState
  /** markets with history, for historical endpoints' `symbol` parameter */
  readonly markets: MarketDirectory
  readonly log: Logger
  /** the cap on bulk exports streaming at once, and their counters */
  readonly exports: ExportSlots
  /** the bound on request bodies in flight and its counters (server/http/body-budget.ts); absent in route tests */
  readonly bodies?: BodyBudget
  /**
   * true when the data this service holds is (or includes) the synthetic demo market: `SOURCES` has `sim`,
   * or the data directory was ever filled by it (engine_state has a `sim:*` key). Every data response
   * says so (docs/synthetic.md): header `x-tidewatch-synthetic: true`, `synthetic: true` in JSON bodies
   * and stream snapshots, and export metadata.
   */
  readonly synthetic: boolean
  /** whether data answers can be served yet (503 warming_up until then) */
  readonly readiness: Readiness
  /** the supervisor of background loops (their states and error counts show in /v1/health) */
  readonly supervisor: Supervisor
  /** one JSON-RPC client per configured chain, shared by the whale sources and node intelligence */
  readonly chains: ChainClientSet
  /** the push stream (null in unit tests of routes) */
  readonly stream: StreamService | null
  /** how the previous run of the data directory ended (null: first start); undefined until the server listens */
  readonly lastStop?: () => LastStop | null | undefined
  /** the signal bus, engine and event writer (absent in route unit tests) */
  readonly signals?: SignalService
  /** inbound alerts: secrets, settings, the duplicate window (docs/alerts.md) */
  readonly alerts?: AlertService
  /** the modules' sections of /v1/health (ServiceModule.health), in module order; absent in route unit tests */
  readonly healthSections?: () => Readonly<Record<string, unknown>>
  /** registrations, the delivery outbox and its counters (docs/webhooks.md) */
  readonly webhooks?: WebhookService
}
