/**
 * @module
 * Schemas of inbound alerts (`POST /v1/{alert_source}/webhook`) and of a key's alert secret and settings
 * (`/v1/alerts/*`), docs/alerts.md. The alert body is read by engine/alerts/alert-body.ts (JSON whatever the
 * Content-Type); `AlertBody` describes it.
 */
import { Type } from '@sinclair/typebox'
import { ALERT_ID_MAX, MESSAGE_MAX, STRATEGY_MAX } from '../../engine/alerts/alert-body.js'
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
    ),
    alert_id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: ALERT_ID_MAX,
        description: "the sender's id of the alert, e.g. {{strategy.order.id}}"
      })
    ),
    seq: Type.Optional(
      Type.Union([Type.Number({ minimum: 0 }), Type.String()], {
        description:
          'sequence of the strategy: a number that grows with each alert (or a string holding one), or a date in ISO 8601 UTC ({{timenow}}); docs/alerts.md "Sequence checks"'
      })
    ),
    time: Type.Optional(
      Type.Union([Type.String(), Type.Integer()], {
        description: "the bar's open time ({{time}}), ISO 8601 UTC or epoch ms"
      })
    ),
    ticker: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 40,
        description: '{{ticker}}: the symbol when symbol is absent; with symbol, both must name the same base'
      })
    ),
    exchange: Type.Optional(
      Type.String({ pattern: '^[A-Za-z0-9_.-]{1,32}$', description: '{{exchange}}: prefixed to ticker' })
    ),
    interval: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z0-9]{1,16}$',
        description: '{{interval}}: the timeframe when timeframe is absent; with it, both must agree'
      })
    ),
    action: Type.Optional(
      Type.String({
        enum: ['long', 'short', 'buy', 'sell'],
        description: '{{strategy.order.action}}: the direction when direction is absent; with it, both must agree'
      })
    ),
    message: Type.Optional(Type.String({ maxLength: MESSAGE_MAX, description: 'free text; accepted, not used' }))
  },
  {
    required: ['secret'],
    additionalProperties: false,
    description: 'symbol (or ticker) and direction (or action) are required'
  }
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
    price: nullable(Type.Number(), 'as sent'),
    alert_id: nullable(Type.String(), 'as sent'),
    seq: Type.Union([Type.Number(), Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'as read: the number, or the date in ISO 8601 UTC'
    })
  }),
  sequence: Type.Object(
    {
      missing: Type.Integer({ minimum: 0, description: "alerts skipped between the strategy's last seq and this one" }),
      late: Type.Boolean({ description: 'the alert fired more than one bar (at least 5 s) before it arrived' }),
      out_of_order: Type.Boolean({ description: "seq is not above the strategy's last one" })
    },
    { description: 'what this alert showed against its strategy (docs/alerts.md "Sequence checks")' }
  ),
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
  sender_allow_list: Type.Boolean({ description: 'ALERT_ALLOWED_IPS restricts the senders' }),
  silence_bars: Type.Integer({
    minimum: 0,
    description: "bars of a strategy's timeframe without an alert before alert.silent fires; 0: no silence check"
  }),
  sequence: Type.Object(
    {
      strategies: Type.Integer({ minimum: 0, description: 'strategy and symbol pairs tracked' }),
      received: Type.Integer({ minimum: 0 }),
      missing: Type.Integer({ minimum: 0 }),
      late: Type.Integer({ minimum: 0 }),
      out_of_order: Type.Integer({ minimum: 0 }),
      silent: Type.Integer({ minimum: 0, description: 'strategies silent now' })
    },
    { description: "the key's sequence checks summed over its strategies (GET /v1/alerts/strategies)" }
  )
}

export const AlertSettingsResponse = Type.Object(ALERT_SETTINGS_FIELDS)

export const AlertSecretResponse = Type.Object({
  ...ALERT_SETTINGS_FIELDS,
  secret: Type.String({ description: 'the alert secret: shown only in this answer; put it in the alert message' })
})

/** Largest `silence_bars`. */
export const SILENCE_BARS_MAX = 1_000

export const AlertSettingsBody = Type.Object(
  {
    forward: Type.Optional(
      Type.Boolean({
        description: "publish each accepted alert as a SIGNAL event to the key's webhooks (plans with webhooks)"
      })
    ),
    silence_bars: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: SILENCE_BARS_MAX,
        description:
          "bars of a strategy's timeframe without an alert before an alert.silent event fires; 0 turns it off"
      })
    )
  },
  {
    additionalProperties: false,
    description: 'forward, silence_bars or both; a field left out keeps its value; unknown fields are refused (400)'
  }
)

export const AlertStrategiesResponse = Type.Object({
  strategies: Type.Array(
    Type.Object({
      strategy: Type.String({ description: "as sent; '' for alerts without one" }),
      symbol: Type.String({ description: 'the base the symbol resolved to' }),
      timeframe: nullable(Type.String(), 'the last timeframe sent'),
      received: Type.Integer({ minimum: 0, description: 'alerts answered (duplicates not counted)' }),
      missing: Type.Integer({ minimum: 0, description: 'numeric seq values skipped' }),
      late: Type.Integer({ minimum: 0 }),
      out_of_order: Type.Integer({ minimum: 0 }),
      last_seq: Type.Union([Type.Number(), Type.String({ format: 'date-time' }), Type.Null()], {
        description: 'the newest seq: a number or a date'
      }),
      last_alert_at: nullable(Type.String({ format: 'date-time' }), 'when the last alert arrived'),
      silent: Type.Boolean({ description: 'no alert for silence_bars bars; the next alert ends it' }),
      silent_since: nullable(Type.String({ format: 'date-time' }), 'when it was declared silent'),
      silences: Type.Integer({ minimum: 0, description: 'alert.silent events fired' })
    })
  )
})
