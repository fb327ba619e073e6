/**
 * @module
 * The webhook registration and its states (docs/webhooks.md, "States"):
 *
 *   active ──(PATCH state=disabled | receiver answered 410 | every delivery failed for WEBHOOK_DISABLE_AFTER_S)──▶ disabled
 *   disabled ──(POST /v1/webhooks/{id}/enable | PATCH state=active)──▶ active
 *   active | disabled ──(DELETE)──▶ removed   (terminal; the API answers 404 for it)
 *
 * Only an active webhook is sent anything. Leaving `active` ends every delivery still waiting for it as
 * `failed` (redeliverable once it is active again).
 */
export type WebhookState = 'active' | 'disabled' | 'removed'

/** In `events` or `symbols`, alone: every event type, every symbol. */
export const WILDCARD = '*'

export interface Webhook {
  /** integer id, unique on this service */
  readonly id: number
  /** the API key that registered it: only that key sees or changes it */
  readonly keyId: string
  /** https:// URL deliveries are POSTed to */
  readonly url: string
  /** catalog event type names (catalog/webhook-events.ts), or ['*'] */
  readonly events: readonly string[]
  /** base assets (BTC), or ['*'] */
  readonly symbols: readonly string[]
  /** the signing key (SHA-256 hex of the secret): in memory only; stored sealed (secret-box.ts) */
  readonly signingKey: string
  readonly state: WebhookState
  /** why the state was last changed (e.g. `receiver answered 410 Gone`); '' for a new webhook */
  readonly stateReason: string
  /** epoch ms */
  readonly createdAt: number
  /** epoch ms of the last change */
  readonly updatedAt: number
  /** epoch ms of the first failed attempt since the last success; null while deliveries succeed */
  readonly failingSince: number | null
}

/** What the API shows of a webhook: never the key, nor the secret. */
export interface WebhookView {
  readonly webhook_id: number
  readonly url: string
  readonly events: readonly string[]
  readonly symbols: readonly string[]
  readonly state: 'active' | 'disabled'
  readonly state_reason: string | null
  readonly created_at: string
  readonly updated_at: string
  readonly failing_since: string | null
}

export function viewOf(w: Webhook): WebhookView {
  return {
    webhook_id: w.id,
    url: w.url,
    events: w.events,
    symbols: w.symbols,
    state: w.state === 'active' ? 'active' : 'disabled',
    state_reason: w.stateReason === '' ? null : w.stateReason,
    created_at: new Date(w.createdAt).toISOString(),
    updated_at: new Date(w.updatedAt).toISOString(),
    failing_since: w.failingSince === null ? null : new Date(w.failingSince).toISOString()
  }
}
