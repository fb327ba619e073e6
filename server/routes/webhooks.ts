/**
 * @module
 * Outbound webhook API (spec "Webhooks", docs/webhooks.md): register, list, read, change, delete, enable,
 * send a test delivery, read the delivery log and redeliver. Pro and enterprise keys (feature `webhooks`:
 * 403 naming the plan otherwise); a key sees only its own webhooks (404 for any other id). Answers never
 * carry the secret or the signing key. Admin: inject a signal event into webhook delivery, and counters.
 */
import crypto from 'node:crypto'
import { Type } from '@sinclair/typebox'
import { ApiError } from '../../engine/errors.js'
import type { KnownBases } from '../../engine/symbols/resolve.js'
import { resolveBase, symbolOf } from '../../engine/symbols/resolve.js'
import type { SignalEvent, SignalEventName } from '../../engine/signals/signal-event.js'
import type { DeliveryState } from '../../engine/webhooks/delivery.js'
import type { WebhookService } from '../../engine/webhooks/service.js'
import { viewOf, WILDCARD, type Webhook } from '../../engine/webhooks/webhook.js'
import {
  AdminWebhookEventBody,
  DeliveriesQuery,
  DeliveryInfo,
  DeliveryPageResponse,
  WebhookCreateBody,
  WebhookCreated,
  WebhookInfo,
  WebhookList,
  WebhookPatchBody,
  WebhookRemoved,
  WebhookTestBody,
  WebhookTestResult,
  WebhookPath,
  DeliveryPath,
  WEBHOOK_ID_PATTERN,
  DELIVERY_ID_PATTERN
} from '../../schemas/api/webhooks.js'
import { json, type Route, type RouteRequest } from '../http/types.js'

/** Largest body of a registration or change, bytes (100 symbols of 40 characters fit). */
const MAX_BODY_BYTES = 16 * 1024
const TAGS = ['webhooks']

function hasAny(known: KnownBases): boolean {
  return !known.values()[Symbol.iterator]().next().done
}

/**
 * `events` as stored: `["*"]`, or catalog names without repeats (the body schema admits only those two
 * forms: `*` stands alone).
 */
function readEvents(list: readonly string[]): Webhook['events'] {
  return [...new Set(list)]
}

/**
 * `symbols` as stored: `["*"]` (the schema lets `*` only stand alone), else bases (BTCUSDT, BTC/USDT and
 * BINANCE:BTCUSDT.P are BTC). Once the service knows its markets, an unknown base is 400 unknown_symbol
 * with the nearest known bases.
 */
function readSymbols(list: readonly string[], known: KnownBases | null): string[] {
  if (list[0] === WILDCARD) return [WILDCARD]
  const checked = known !== null && hasAny(known)
  const out = new Set<string>()
  for (const s of list) out.add(checked ? resolveBase(s, known, 'symbols') : symbolOf(s, 'symbols').base)
  return [...out]
}

const WEBHOOK_ID = new RegExp(WEBHOOK_ID_PATTERN)
const DELIVERY_ID = new RegExp(DELIVERY_ID_PATTERN)

function idOf(raw: string | undefined, what = 'webhook'): number {
  if (raw === undefined || !WEBHOOK_ID.test(raw)) throw new ApiError('not_found', `no ${what} ${raw ?? ''}`)
  return Number(raw)
}

export interface WebhookRouteDeps {
  readonly webhooks: WebhookService
  /** bases with a perpetual market (the live screener); null: symbols are read but not checked */
  readonly known: KnownBases | null
}

export function webhookRoutes(deps: WebhookRouteDeps): Route[] {
  const { webhooks, known } = deps
  const registry = webhooks.registry
  const outbox = webhooks.outbox
  const own = (req: RouteRequest, raw = req.params['id']): Webhook => registry.owned(req.key!.id, idOf(raw))
  const keyed = { access: 'key', feature: 'webhooks', data: false, tags: TAGS } as const
  return [
    {
      ...keyed,
      method: 'POST',
      path: '/v1/webhooks',
      status: 201,
      maxBodyBytes: MAX_BODY_BYTES,
      body: WebhookCreateBody,
      response: WebhookCreated,
      summary: 'Register an HTTPS URL for signed deliveries of matching events',
      description:
        'Pro and enterprise plans. Deliveries are POSTs signed with X-Service-Signature (hex HMAC-SHA256 of the body keyed with the SHA-256 hex of the secret) and Standard Webhooks headers; see docs/webhooks.md. Rule: a key holds at most 20 webhooks.',
      handler: async (req) => {
        const b = req.json!
        const events = readEvents(b['events'] as string[])
        const symbols = readSymbols(b['symbols'] as string[], known)
        const url = b['url'] as string
        await webhooks.checkUrl(url)
        const w = await registry.create(req.key!.id, { url, events, symbols, secret: b['secret'] as string })
        return json(201, {
          webhook_id: w.id,
          url: w.url,
          events: w.events,
          symbols: w.symbols,
          message: `Webhook ${w.id} registered. Send a signed test delivery now with POST /v1/webhooks/test and body {"webhook_id": ${w.id}}; each delivery carries X-Service-Signature, the hex HMAC-SHA256 of the raw body keyed with the SHA-256 hex digest of your secret.`
        })
      }
    },
    {
      ...keyed,
      method: 'GET',
      path: '/v1/webhooks',
      response: WebhookList,
      summary: "The calling key's webhooks (never their secrets)",
      handler: (req) => json(200, { webhooks: registry.forKey(req.key!.id).map(viewOf) })
    },
    {
      ...keyed,
      method: 'POST',
      path: '/v1/webhooks/test',
      maxBodyBytes: 1024,
      body: WebhookTestBody,
      response: WebhookTestResult,
      summary: 'Send a signed test delivery now and report the receiver’s answer',
      description:
        'Payload event TEST, symbol BTC, signed like every delivery; recorded in the delivery log (trigger test), never retried, and it does not change the webhook’s state. Rule: the webhook must be active.',
      handler: async (req) => {
        const w = registry.owned(req.key!.id, req.json!['webhook_id'] as number)
        return json(200, await outbox.test(w))
      }
    },
    {
      ...keyed,
      method: 'GET',
      path: '/v1/webhooks/:id',
      pathParams: WebhookPath,
      response: WebhookInfo,
      summary: 'One webhook of the calling key',
      handler: (req) => json(200, viewOf(own(req)))
    },
    {
      ...keyed,
      method: 'PATCH',
      path: '/v1/webhooks/:id',
      pathParams: WebhookPath,
      maxBodyBytes: MAX_BODY_BYTES,
      body: WebhookPatchBody,
      response: WebhookInfo,
      summary: 'Change the URL, events, symbols, secret or state (active, disabled) of a webhook',
      description: 'Rule: the body changes at least one field; a new url is checked as at registration.',
      handler: async (req) => {
        let w = own(req)
        const b = req.json!
        if (Object.keys(b).length === 0) {
          throw new ApiError('invalid_body', 'the body changes nothing; send url, events, symbols, secret or state')
        }
        if (b['url'] !== undefined) await webhooks.checkUrl(b['url'] as string)
        const changes = {
          ...(b['url'] === undefined ? {} : { url: b['url'] as string }),
          ...(b['events'] === undefined ? {} : { events: readEvents(b['events'] as string[]) }),
          ...(b['symbols'] === undefined ? {} : { symbols: readSymbols(b['symbols'] as string[], known) }),
          ...(b['secret'] === undefined ? {} : { secret: b['secret'] as string })
        }
        if (Object.keys(changes).length > 0) w = await registry.update(w, changes)
        const state = b['state'] as 'active' | 'disabled' | undefined
        if (state !== undefined && state !== w.state) {
          w = await registry.setState(w, state, state === 'disabled' ? 'disabled through the API' : '')
        }
        return json(200, viewOf(w))
      }
    },
    {
      ...keyed,
      method: 'DELETE',
      path: '/v1/webhooks/:id',
      pathParams: WebhookPath,
      response: WebhookRemoved,
      summary: 'Delete a webhook: nothing more is sent to it; waiting deliveries end failed',
      handler: async (req) => {
        const w = own(req)
        await registry.setState(w, 'removed', 'deleted through the API')
        return json(200, { webhook_id: w.id, state: 'removed' })
      }
    },
    {
      ...keyed,
      method: 'POST',
      path: '/v1/webhooks/:id/enable',
      pathParams: WebhookPath,
      response: WebhookInfo,
      summary: 'Enable a disabled webhook (deliveries failed meanwhile can be redelivered)',
      handler: async (req) => {
        const w = own(req)
        return json(200, viewOf(w.state === 'active' ? w : await registry.setState(w, 'active', '')))
      }
    },
    {
      ...keyed,
      method: 'GET',
      path: '/v1/webhooks/:id/deliveries',
      pathParams: WebhookPath,
      query: DeliveriesQuery,
      response: DeliveryPageResponse,
      summary:
        'The delivery log of a webhook, newest first: state, attempts, status or error, duration, excerpt, next retry',
      description: 'Kept 30 days. Page with next_cursor.',
      handler: async (req) => {
        const w = own(req)
        const q = req.q
        return json(
          200,
          await outbox.deliveries(w, {
            limit: q['limit'] as number,
            ...(q['cursor'] === undefined ? {} : { cursor: q['cursor'] as string }),
            ...(q['state'] === undefined ? {} : { state: q['state'] as DeliveryState })
          })
        )
      }
    },
    {
      ...keyed,
      method: 'POST',
      path: '/v1/webhooks/:id/deliveries/:delivery_id/redeliver',
      pathParams: DeliveryPath,
      status: 202,
      response: DeliveryInfo,
      summary: 'Deliver a delivered or failed delivery again: a new round of up to 4 attempts, same webhook-id',
      description: 'Rule: the webhook must be active and the delivery not pending.',
      handler: async (req) => {
        const w = own(req)
        const id = req.params['delivery_id'] ?? ''
        if (!DELIVERY_ID.test(id)) throw new ApiError('not_found', `no delivery ${id} for webhook ${w.id}`)
        return json(202, await outbox.redeliver(w, id))
      }
    },
    {
      method: 'POST',
      path: '/v1/admin/webhooks/events',
      access: 'admin',
      status: 202,
      maxBodyBytes: 4096,
      body: AdminWebhookEventBody,
      response: Type.Object({ event_id: Type.String(), deliveries: Type.Integer() }),
      summary: 'Hand a signal event to webhook delivery only (tests, demos, receiver checks)',
      description:
        'Not published on the signal bus: the push stream and the signal store do not see it. Answers once its deliveries are stored.',
      tags: ['admin'],
      handler: async (req) => {
        const b = req.json!
        const e: SignalEvent = {
          id: (b['id'] as string | undefined) ?? crypto.randomUUID(),
          event: b['event'] as SignalEventName,
          ts: Date.now(),
          symbol: b['symbol'] as string,
          direction: b['direction'] as 'long' | 'short',
          confidence: (b['confidence'] as string | undefined) ?? (b['event'] as string),
          composite: (b['composite'] as number | undefined) ?? 0,
          action: 'CONFIRM',
          source: 'admin',
          ...(b['key_id'] === undefined ? {} : { key_id: b['key_id'] as string })
        }
        return json(202, { event_id: e.id, deliveries: await outbox.accept(e) })
      }
    },
    {
      method: 'GET',
      path: '/v1/admin/webhooks/stats',
      access: 'admin',
      response: Type.Record(Type.String(), Type.Integer()),
      summary: 'Webhook delivery counters: events, deliveries, attempts, delivered, failed, retries, drops, pending',
      tags: ['admin'],
      handler: () => json(200, outbox.stats())
    }
  ]
}
