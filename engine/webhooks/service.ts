/**
 * @module
 * Outbound webhooks of one server, wired: the signing-key box, the registrations, the outbox and the URL
 * rule. `open` loads the registrations (refusing to start when the stored keys do not open: WEBHOOK_KEY
 * changed); `resume` reloads the deliveries a previous run left pending; `subscribe` attaches the outbox
 * to the signal bus.
 */
import type { WebhookConfig } from '../config.js'
import type { Logger } from '../log.js'
import type { SignalBus } from '../signals/signal-event.js'
import type { Store } from '../store/store.js'
import { AddressPolicy } from './address-policy.js'
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

export class WebhookService {
  readonly registry: WebhookRegistry
  readonly outbox: Outbox
  readonly policy: AddressPolicy
  private readonly resolve: Resolve
  private unsubscribe: (() => void) | null = null

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
    this.outbox = new Outbox({
      store: o.store,
      registry: this.registry,
      transport: o.transport(this.policy),
      config: o.config,
      versions,
      log: o.log,
      ...(o.clock ? { clock: o.clock } : {})
    })
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

  /** Resumes deliveries left pending by the previous run; returns how many were loaded. */
  resume(): Promise<number> {
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
