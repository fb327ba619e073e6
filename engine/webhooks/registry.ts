/**
 * @module
 * The webhook registrations: rows of `webhooks` (ReplacingMergeTree, the last version of an id wins, read
 * with FINAL) mirrored in memory, so matching an event is a walk over a map, never a query. Changes made
 * through the API are stored first and applied in memory after (a failed write changes nothing); state
 * changes made by delivery (410, the failing clock) apply in memory at once, so nothing more is sent, and
 * are stored after. Ids are integers allocated from the largest stored id (one writing server per store).
 */
import { ApiError } from '../errors.js'
import type { Store } from '../store/store.js'
import type { SecretBox } from './secret-box.js'
import { signingKeyOf } from './signing.js'
import type { VersionClock } from './version-clock.js'
import type { Webhook, WebhookState } from './webhook.js'

/** Webhooks one API key may hold (active and disabled): enough for several receivers per event kind. */
export const MAX_WEBHOOKS_PER_KEY = 20

interface WebhookRow {
  id: number
  key_id: string
  url: string
  events: string[]
  symbols: string[]
  signing_key_sealed: string
  state: WebhookState
  state_reason: string
  created_ms: number
  updated_ms: number
  failing_ms: number | null
}

export interface NewWebhook {
  readonly url: string
  readonly events: Webhook['events']
  readonly symbols: readonly string[]
  readonly secret: string
}

export interface WebhookChanges {
  readonly url?: string
  readonly events?: Webhook['events']
  readonly symbols?: readonly string[]
  readonly secret?: string
}

export class WebhookRegistry {
  private readonly byId = new Map<number, Webhook>()
  private nextId = 1
  /** called when a webhook leaves `active` (disabled or removed): the outbox ends its waiting deliveries */
  onLeaveActive: (w: Webhook) => void = () => {}

  constructor(
    private readonly store: Store,
    private readonly box: SecretBox,
    private readonly versions: VersionClock,
    private readonly now: () => number = Date.now
  ) {}

  /** Loads every registration. Throws when the stored signing keys do not open with this box (WEBHOOK_KEY changed). */
  async load(): Promise<void> {
    const rows = await this.store.query<WebhookRow>(
      `SELECT id, key_id, url, events, symbols, signing_key_sealed, state, state_reason,
              toUnixTimestamp64Milli(created_at) AS created_ms, toUnixTimestamp64Milli(updated_at) AS updated_ms,
              if(isNull(failing_since), NULL, toUnixTimestamp64Milli(assumeNotNull(failing_since))) AS failing_ms
       FROM webhooks FINAL`
    )
    let unopened = 0
    for (const r of rows) {
      const id = Number(r.id)
      this.nextId = Math.max(this.nextId, id + 1)
      if (r.state === 'removed') continue
      let signingKey: string
      try {
        signingKey = this.box.open(r.signing_key_sealed, String(id))
      } catch {
        unopened++
        continue
      }
      this.byId.set(id, {
        id,
        keyId: r.key_id,
        url: r.url,
        events: r.events as Webhook['events'],
        symbols: r.symbols,
        signingKey,
        state: r.state,
        stateReason: r.state_reason,
        createdAt: r.created_ms,
        updatedAt: r.updated_ms,
        failingSince: r.failing_ms
      })
    }
    if (unopened > 0) {
      throw new Error(
        `WEBHOOK_KEY (or DATA_DIR/webhook.key) does not open the signing keys of ${unopened} stored webhook(s): restore the key they were sealed with`
      )
    }
  }

  get(id: number): Webhook | undefined {
    return this.byId.get(id)
  }

  /** The key's webhook `id`; 404 when it does not exist, was removed, or belongs to another key. */
  owned(keyId: string, id: number): Webhook {
    const w = this.byId.get(id)
    if (!w || w.keyId !== keyId) throw new ApiError('not_found', `no webhook ${id} for this API key`)
    return w
  }

  forKey(keyId: string): Webhook[] {
    return [...this.byId.values()].filter((w) => w.keyId === keyId).sort((a, b) => a.id - b.id)
  }

  /**
   * Every webhook held, in registration order, whatever its state (the event intake's per-event walk:
   * `matches` checks the state itself).
   */
  all(): IterableIterator<Webhook> {
    return this.byId.values()
  }

  async create(keyId: string, n: NewWebhook): Promise<Webhook> {
    if (this.forKey(keyId).length >= MAX_WEBHOOKS_PER_KEY) {
      throw new ApiError(
        'invalid_parameter',
        `this API key holds ${MAX_WEBHOOKS_PER_KEY} webhooks, the most it may; delete one first (DELETE /v1/webhooks/{id})`,
        { param: 'url' }
      )
    }
    const now = this.now()
    const w: Webhook = {
      id: this.nextId++,
      keyId,
      url: n.url,
      events: n.events,
      symbols: n.symbols,
      signingKey: signingKeyOf(n.secret),
      state: 'active',
      stateReason: '',
      createdAt: now,
      updatedAt: now,
      failingSince: null
    }
    await this.persist(w)
    this.byId.set(w.id, w)
    return w
  }

  /** Changes the URL, filters or secret (stored first). */
  async update(w: Webhook, c: WebhookChanges): Promise<Webhook> {
    const next: Webhook = {
      ...w,
      ...(c.url === undefined ? {} : { url: c.url }),
      ...(c.events === undefined ? {} : { events: c.events }),
      ...(c.symbols === undefined ? {} : { symbols: c.symbols }),
      ...(c.secret === undefined ? {} : { signingKey: signingKeyOf(c.secret) }),
      updatedAt: this.now()
    }
    await this.persist(next)
    return this.replace(next)
  }

  /**
   * Moves a webhook to `state` with a reason. `storeFirst` (API changes): the change applies once stored.
   * Otherwise (delivery's own decisions) it applies at once and is stored after.
   */
  async setState(w: Webhook, state: WebhookState, reason: string, storeFirst = true): Promise<Webhook> {
    const current = this.byId.get(w.id) ?? w
    const next: Webhook = {
      ...current,
      state,
      stateReason: reason,
      updatedAt: this.now(),
      failingSince: state === 'active' ? null : current.failingSince
    }
    if (storeFirst) await this.persist(next)
    const out = this.replace(next)
    if (!storeFirst) await this.persist(next)
    return out
  }

  /** Starts (ms) or stops (null) the failing clock; applies at once, stored after. */
  async setFailingSince(id: number, since: number | null): Promise<void> {
    const w = this.byId.get(id)
    if (!w || w.failingSince === since) return
    const next: Webhook = { ...w, failingSince: since }
    this.byId.set(id, next)
    await this.persist(next)
  }

  private replace(next: Webhook): Webhook {
    const before = this.byId.get(next.id)
    if (next.state === 'removed') this.byId.delete(next.id)
    else this.byId.set(next.id, next)
    if (before?.state === 'active' && next.state !== 'active') this.onLeaveActive(next)
    return next
  }

  private async persist(w: Webhook): Promise<void> {
    const version = this.versions.next()
    const row = {
      id: w.id,
      key_id: w.keyId,
      url: w.url,
      events: w.events,
      symbols: w.symbols,
      signing_key_sealed: this.box.seal(w.signingKey, String(w.id)),
      state: w.state,
      state_reason: w.stateReason,
      created_at: w.createdAt,
      updated_at: w.updatedAt,
      failing_since: w.failingSince,
      version
    }
    await this.store.insert({
      table: 'webhooks',
      columns: Object.keys(row),
      format: 'JSONEachRow',
      data: Buffer.from(JSON.stringify(row) + '\n'),
      dedupToken: `webhook:${w.id}:${version}`
    })
  }
}
