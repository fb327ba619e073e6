/**
 * @module
 * Schemas of inbound alerts (`POST /v1/{alert_source}/webhook`) and of a key's alert secret and settings
 * (`/v1/alerts/*`), docs/alerts.md. The alert body is read by engine/alerts/alert-body.ts (JSON whatever the
 * Content-Type); `AlertBody` describes it.
 */
import { Type } from '@sinclair/typebox'
import { STRATEGY_MAX } from '../../engine/alerts/alert-body.js'
import { ConfirmResponse } from './confirm.js'

const nullable = <T extends ReturnType<typeof Type.String> | ReturnType<typeof Type.Number>>(
  t: T,
  description: string
) => Type.Union([t, Type.Null()], { description })

export const AlertBody = Type.Object(
  {
    secret: Type.String({
      description: "the key's alert secret, tw_alert_<key id>_<43 characters> (POST /v1/alerts/secret)"
    }),
    symbol: Type.String({
      minLength: 1,
      maxLength: 40,
      description:
        'BTC, BTCUSDT, BTC/USDT or TradingView BINANCE:BTCUSDT.P ({{ticker}} or {{exchange}}:{{ticker}}); read as its base'
    }),
    direction: Type.String({
      enum: ['long', 'short', 'buy', 'sell'],
      description: 'long or short, case-insensitive; buy and sell ({{strategy.order.action}}) read as long and short'
    }),
    timeframe: Type.Optional(
      Type.String({ pattern: '^[A-Za-z0-9]{1,16}$', description: 'e.g. {{interval}}: 15, 60, 1D' })
    ),
    strategy: Type.Optional(Type.String({ minLength: 1, maxLength: STRATEGY_MAX })),
    price: Type.Optional(
      Type.Union([Type.Number({ exclusiveMinimum: 0 }), Type.String()], {
        description:
          'the price the alert fired at ({{close}}), a number or a string holding one; echoed, not used by the model'
      })
    )
  },
  { required: ['secret', 'symbol', 'direction'], additionalProperties: false }
)

export const AlertResponse = Type.Object({
  alert_id: Type.String({ description: 'id of the alert; the id of its SIGNAL event when forwarded' }),
  duplicate: Type.Boolean({
    description: 'true: the same alert arrived within the duplicate window; this is its first answer'
  }),
  source: Type.String({ description: 'the alert source of the path' }),
  forwarded: Type.Boolean({ description: "published as a SIGNAL event to the key's webhooks" }),
  received_at: Type.String({ format: 'date-time', description: 'when the (first) alert arrived' }),
  alert: Type.Object({
    symbol: Type.String({ description: 'as sent' }),
    timeframe: nullable(Type.String(), 'as sent'),
    strategy: nullable(Type.String(), 'as sent'),
    price: nullable(Type.Number(), 'as sent')
  }),
  ...ConfirmResponse.properties
})

const ALERT_SETTINGS_FIELDS = {
  key_id: Type.String({ description: 'the API key the alert secret runs under' }),
  has_secret: Type.Boolean({ description: 'false: alerts for this key answer 401' }),
  secret_created_at: nullable(Type.String({ format: 'date-time' }), 'when the current secret was created'),
  forward: Type.Boolean({ description: "each accepted alert is published as a SIGNAL event to the key's webhooks" }),
  forwarding_available: Type.Boolean({ description: "the key's plan has outbound webhooks (pro and higher)" }),
  webhook_paths: Type.Array(Type.String(), { description: 'where alerts are sent: one path per alert source' }),
  duplicate_window_s: Type.Integer({
    description: 'the same alert again within this many seconds answers the first answer'
  }),
  sender_allow_list: Type.Boolean({ description: 'ALERT_ALLOWED_IPS restricts the senders' })
}

export const AlertSettingsResponse = Type.Object(ALERT_SETTINGS_FIELDS)

export const AlertSecretResponse = Type.Object({
  ...ALERT_SETTINGS_FIELDS,
  secret: Type.String({ description: 'the alert secret: shown only in this answer; put it in the alert message' })
})

export const AlertSettingsBody = Type.Object(
  {
    forward: Type.Boolean({
      description: "publish each accepted alert as a SIGNAL event to the key's webhooks (plans with webhooks)"
    })
  },
  { required: ['forward'], additionalProperties: false, description: 'unknown fields are refused (400)' }
)
