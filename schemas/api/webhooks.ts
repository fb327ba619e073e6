/**
 * @module
 * Bodies and answers of the outbound webhook API (spec "Webhook registration", docs/webhooks.md). The
 * same schemas validate requests (server/validate.ts) and describe them in /v1/openapi.json.
 */
import { Type, type TSchema } from '@sinclair/typebox'
import { WEBHOOK_EVENT_NAMES, WEBHOOK_EVENT_TYPES } from '../../catalog/webhook-events.js'
import { SYMBOL_MAX_LENGTH, SYMBOL_PATTERN } from '../../engine/symbols/grammar.js'
import { symbolRefusal } from '../../engine/symbols/resolve.js'
import { SIGNAL_EVENT_NAMES } from '../../engine/signals/signal-event.js'
import { MAX_URL_LENGTH } from '../../engine/webhooks/url-check.js'
import { RESPONSE_EXCERPT_BYTES } from '../../engine/webhooks/transport.js'
import { REFUSAL, type Refusal } from './params.js'

const URL_FIELD = Type.String({
  minLength: 9,
  maxLength: MAX_URL_LENGTH,
  pattern: '^https://',
  'x-rule': 'an absolute https:// URL',
  description:
    'HTTPS endpoint deliveries are POSTed to; must begin with https://. Rule: its host must be, or resolve to, a public address (loopback, private, link-local, CGNAT, multicast, reserved and metadata addresses are refused, also at each connection), must resolve, and the URL carries no user name or password'
})

/**
 * A list that is either `["*"]` alone or items of `item` without `*`: one JSON Schema `oneOf`, which the
 * request validator applies as the document states (server/validate.ts); `rule` is its message.
 */
function wildcardOr(item: TSchema, maxItems: number, rule: string, description: string) {
  return Type.Unsafe<string[]>({
    oneOf: [
      Type.Array(Type.String({ enum: ['*'] }), { minItems: 1, maxItems: 1 }),
      Type.Array(item, { minItems: 1, maxItems })
    ],
    'x-rule': rule,
    description
  })
}

const EVENTS_FIELD = wildcardOr(
  Type.String({ enum: [...WEBHOOK_EVENT_NAMES] }),
  WEBHOOK_EVENT_NAMES.length,
  `["*"], which stands alone (it means every event), or a list of ${WEBHOOK_EVENT_NAMES.join(', ')}`,
  `event types to receive, or ["*"] for all. Rule: "*" stands alone. Types: ${WEBHOOK_EVENT_TYPES.map((t) => `${t.name} (${t.description})`).join('; ')}`
)

const SYMBOLS_FIELD = wildcardOr(
  // a value off the grammar answers the resolver's own message (REFUSAL), naming the item (`symbols[0]`)
  Object.assign(
    Type.String({
      pattern: SYMBOL_PATTERN,
      maxLength: SYMBOL_MAX_LENGTH,
      'x-rule': 'a symbol (BTC, BTCUSDT, BTC/USDT, BINANCE:BTCUSDT.P)'
    }),
    { [REFUSAL]: ((name, value) => symbolRefusal(name, value, false)) satisfies Refusal }
  ),
  100,
  '["*"], which stands alone (it means every symbol), or a list of symbols (BTC, BTCUSDT, BTC/USDT, BINANCE:BTCUSDT.P)',
  'base assets to receive (BTC; pairs such as BTCUSDT or BINANCE:BTCUSDT.P are read as their base), or ["*"] for all. Rule: "*" stands alone; each symbol names a base with a perpetual market once market data is loaded (else 400 unknown_symbol with the nearest bases); an event without a symbol goes only to ["*"]'
)

const SECRET_FIELD = Type.String({
  minLength: 16,
  maxLength: 512,
  description:
    'signing secret, at least 16 characters. Stored only as its SHA-256 hex digest (the signing key), itself encrypted at rest; never shown again. Keep the raw value'
})

/** A webhook id as a path segment: the decimal id the registration answered (a positive integer). */
export const WEBHOOK_ID_PATTERN = '^[1-9][0-9]{0,15}$'
/** A delivery id as a path segment: `msg_` and 32 hex digits (the Standard Webhooks `webhook-id`). */
export const DELIVERY_ID_PATTERN = '^msg_[0-9a-f]{32}$'

const WebhookIdParam = Type.String({ pattern: WEBHOOK_ID_PATTERN, description: 'webhook_id' })

/** The path parameters of `/v1/webhooks/{id}...` (server/routes/webhooks.ts checks them with the same pattern). */
export const WebhookPath = Type.Object({ id: WebhookIdParam })

/** The path parameters of `/v1/webhooks/{id}/deliveries/{delivery_id}/redeliver`. */
export const DeliveryPath = Type.Object({
  id: WebhookIdParam,
  delivery_id: Type.String({ pattern: DELIVERY_ID_PATTERN, description: 'delivery_id, msg_ and 32 hex digits' })
})

export const WebhookCreateBody = Type.Object(
  { url: URL_FIELD, events: EVENTS_FIELD, symbols: SYMBOLS_FIELD, secret: SECRET_FIELD },
  { additionalProperties: false, description: 'unknown fields are refused (400)' }
)

export const WebhookPatchBody = Type.Object(
  {
    url: Type.Optional(URL_FIELD),
    events: Type.Optional(EVENTS_FIELD),
    symbols: Type.Optional(SYMBOLS_FIELD),
    secret: Type.Optional(SECRET_FIELD),
    state: Type.Optional(
      Type.String({
        enum: ['active', 'disabled'],
        description:
          'disabled: nothing is sent (waiting deliveries end failed); active: as POST /v1/webhooks/{id}/enable'
      })
    )
  },
  { additionalProperties: false, description: 'the fields to change (at least one); unknown fields are refused (400)' }
)

export const WebhookTestBody = Type.Object(
  { webhook_id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'the webhook to test' }) },
  { additionalProperties: false }
)

export const WebhookCreated = Type.Object({
  webhook_id: Type.Integer(),
  url: Type.String(),
  events: Type.Array(Type.String()),
  symbols: Type.Array(Type.String()),
  message: Type.String({ description: 'how to send a test delivery (POST /v1/webhooks/test)' })
})

export const WebhookInfo = Type.Object({
  webhook_id: Type.Integer(),
  url: Type.String(),
  events: Type.Array(Type.String()),
  symbols: Type.Array(Type.String()),
  state: Type.String({ enum: ['active', 'disabled'] }),
  state_reason: Type.Union([Type.String(), Type.Null()], {
    description: 'why it was disabled (e.g. receiver answered 410 Gone), null for a new webhook'
  }),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
  failing_since: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'first failed attempt since the last success; disabled after WEBHOOK_DISABLE_AFTER_S of failures'
  })
})

export const WebhookList = Type.Object({ webhooks: Type.Array(WebhookInfo) })

export const WebhookRemoved = Type.Object({ webhook_id: Type.Integer(), state: Type.Literal('removed') })

export const WebhookTestResult = Type.Object({
  webhook_id: Type.Integer(),
  delivery_id: Type.String({ description: 'also the webhook-id header sent' }),
  delivered: Type.Boolean({ description: 'the receiver answered 2xx' }),
  status_code: Type.Union([Type.Integer(), Type.Null()], { description: 'null: no answer (see error)' }),
  error: Type.Union([Type.String(), Type.Null()]),
  duration_ms: Type.Number(),
  response_excerpt: Type.String({ description: `first ${RESPONSE_EXCERPT_BYTES} bytes of the answer's body` })
})

const ATTEMPT = Type.Object({
  attempt: Type.Integer({ description: '1-based, counting every attempt of the delivery (redeliveries continue it)' }),
  trigger: Type.String({ enum: ['event', 'manual', 'test'] }),
  at: Type.String({ format: 'date-time' }),
  duration_ms: Type.Integer(),
  status_code: Type.Union([Type.Integer(), Type.Null()], { description: 'null: no answer (see error)' }),
  error: Type.Union([Type.String(), Type.Null()]),
  response_excerpt: Type.String({ description: `at most ${RESPONSE_EXCERPT_BYTES} bytes` }),
  next_retry_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()])
})

export const DeliveryInfo = Type.Object({
  delivery_id: Type.String({ description: 'the webhook-id header: the same in every attempt; receivers dedupe on it' }),
  event_id: Type.String(),
  event: Type.String(),
  symbol: Type.String(),
  state: Type.String({ enum: ['pending', 'delivered', 'failed'] }),
  trigger: Type.String({ enum: ['event', 'manual', 'test'] }),
  created_at: Type.String({ format: 'date-time' }),
  attempts: Type.Integer(),
  next_retry_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  last_status_code: Type.Union([Type.Integer(), Type.Null()]),
  last_error: Type.Union([Type.String(), Type.Null()]),
  attempt_log: Type.Array(ATTEMPT)
})

export const DeliveryPageResponse = Type.Object({
  deliveries: Type.Array(DeliveryInfo),
  next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'pass as cursor for the next page' })
})

export const DeliveriesQuery = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'deliveries per page, newest first' }),
  cursor: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'next_cursor of the previous page. Rule: only a next_cursor this API gave'
    })
  ),
  state: Type.Optional(Type.String({ enum: ['pending', 'delivered', 'failed'], description: 'only this state' }))
})

export const AdminWebhookEventBody = Type.Object(
  {
    event: Type.String({ enum: [...SIGNAL_EVENT_NAMES] }),
    symbol: Type.String({ pattern: '^[A-Z0-9]{1,20}$', 'x-rule': 'a base asset in capitals (BTC)' }),
    direction: Type.String({ enum: ['long', 'short'] }),
    confidence: Type.Optional(Type.String({ maxLength: 20 })),
    composite: Type.Optional(Type.Number({ minimum: -100, maximum: 100 })),
    id: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'event id; default a new UUID' })),
    key_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: "only this key's webhooks" }))
  },
  { additionalProperties: false }
)
