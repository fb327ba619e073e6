/**
 * @module
 * Outbound webhooks of one server, wired: the signing-key box, the registrations, the outbox and the URL
 * rule, and the outbox's journals (DATA_DIR/webhook-journal, journal.ts). `open` loads the registrations
 * (refusing to start when the stored keys do not open: WEBHOOK_KEY changed); `resume` loads the journal
 * segments a previous run left, then reloads the deliveries it left pending; `subscribe` attaches the
 * outbox to the signal bus.
 */
import path from 'node:path'
import type { WebhookConfig } from './config.js'
import type { Logger } from '../log.js'
import type { SignalBus } from '../signals/signal-event.js'
import type { Store } from '../store/store.js'
import { AddressPolicy } from './address-policy.js'
import { ATTEMPT_COLUMNS, DELIVERY_COLUMNS } from './delivery.js'
import { TableJournal } from './journal.js'
import { recoverSegments } from './journal-recovery.js'
import { Outbox } from './outbox.js'
import { WebhookRegistry } from './registry.js'
import type { Clock } from './scheduler.js'
import { SecretBox } from './secret-box.js'
import type { WebhookTransport } from './transport.js'
import { checkWebhookUrl, systemResolve, type Resolve } from './url-check.js'
import { VersionClock } from './version-clock.js'

export interface WebhookServiceOptions {
  readonly store: Store
  readonly config: WebhookConfig
  /** where the generated webhook key lives when WEBHOOK_KEY is unset */
  readonly dataDir: string
  readonly log: Logger
  /** builds the HTTP transport from the URL rule (server/webhooks/undici-transport.ts) */
  readonly transport: (policy: AddressPolicy) => WebhookTransport
  /** DNS override (tests) */
  readonly resolve?: Resolve
  readonly clock?: Clock
}

/** Rows journaled and not yet in the store, per table, at which attempts pause and new events are dropped. */
const JOURNAL_MAX_ROWS = 200_000

/** The outbox's journal directory in DATA_DIR. */
export function journalDir(dataDir: string): string {
  return path.join(dataDir, 'webhook-journal')
}

export class WebhookService {
  readonly registry: WebhookRegistry
  readonly outbox: Outbox
  readonly policy: AddressPolicy
  private readonly resolve: Resolve
  private unsubscribe: (() => void) | null = null
  private readonly journals: readonly TableJournal[]
  private readonly store: Store
  private readonly log: Logger

  private constructor(
    o: WebhookServiceOptions,
    box: SecretBox,
    /** the key file written now (first start without WEBHOOK_KEY), else null */
    readonly generatedKeyFile: string | null
  ) {
    const versions = new VersionClock()
    this.policy = new AddressPolicy(o.config.allowPrivate)
    this.resolve = o.resolve ?? systemResolve
    this.registry = new WebhookRegistry(o.store, box, versions)
    this.store = o.store
    this.log = o.log
    // counted in the outbox's store_errors
    const onError = (err: unknown): void =>
      this.outbox.storeError(err, 'webhook journal write or load failed; retrying')
    const onRefused = (file: string, err: unknown): void =>
      o.log.error(
        { file, err: err instanceof Error ? err.message : String(err) },
        'webhook journal segment refused by the store; moved to failed/ (its rows are not in the delivery log)'
      )
    const journal = (table: string, columns: readonly string[]): TableJournal =>
      new TableJournal({
        store: o.store,
        dir: journalDir(o.dataDir),
        table,
        columns,
        maxRows: JOURNAL_MAX_ROWS,
        onError,
        onRefused
      })
    const deliveries = journal('webhook_deliveries', DELIVERY_COLUMNS)
    const attempts = journal('webhook_attempts', ATTEMPT_COLUMNS)
    this.journals = [deliveries, attempts]
    this.outbox = new Outbox(
      {
        store: o.store,
        registry: this.registry,
        transport: o.transport(this.policy),
        config: o.config,
        versions,
        log: o.log,
        ...(o.clock ? { clock: o.clock } : {})
      },
      { deliveries, attempts }
    )
  }

  /** Opens the key box and loads the registrations. */
  static async open(o: WebhookServiceOptions): Promise<WebhookService> {
    const { box, generatedFile } = SecretBox.open(o.config.key, o.dataDir)
    const s = new WebhookService(o, box, generatedFile)
    await s.registry.load()
    return s
  }

  /** 400 naming `url` and why, or the parsed URL (https, no credentials, a public address). */
  checkUrl(raw: string): Promise<URL> {
    return checkWebhookUrl(raw, this.policy, this.resolve)
  }

  /**
   * Loads the journal segments the previous run left (a store that is down throws: call again), then
   * resumes the deliveries it left pending; returns how many were resumed.
   */
  async resume(): Promise<number> {
    for (const j of this.journals) await recoverSegments(this.store, j.dir, j.table, j.runPrefix, this.log)
    return this.outbox.resume()
  }

  subscribe(bus: SignalBus): void {
    this.unsubscribe?.()
    this.unsubscribe = bus.subscribe(this.outbox.onEvent)
  }

  async stop(deadlineMs: number): Promise<void> {
    this.unsubscribe?.()
    await this.outbox.stop(deadlineMs)
  }
}
