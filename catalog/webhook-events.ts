/**
 * @module
 * The webhook event types: each declared once with its name, what it means and the schema of its payload.
 * Delivery, signing, storage, matching, the registration API and the dashboard take their names and shapes
 * from here, so a new event type is one entry below plus the code that emits it (docs/webhooks.md,
 * "Event types").
 *
 * A delivery body is one JSON object: `event` (the type name), `ts` (ISO 8601 UTC), the payload's fields in
 * the order the schema declares them, then `webhook_id` (`deliveryBodySchema`). A payload with a string
 * `symbol` is matched against a registration's `symbols`; one without goes only to registrations for `*`.
 */
import { Type, type Static, type TObject } from '@sinclair/typebox'

export interface WebhookEventType<P extends TObject = TObject> {
  /** the `event` field and `X-Service-Event` header of its deliveries, and what registrations list */
  readonly name: string
  readonly description: string
  /** the payload's fields, in body order */
  readonly payload: P
}

/** The payload of the signal events (HIGH, MEDIUM, VETO, SIGNAL) and of the test delivery. */
const SignalPayload = Type.Object({
  symbol: Type.String({ description: 'base asset, e.g. BTC' }),
  direction: Type.Union([Type.Literal('long'), Type.Literal('short')]),
  confidence: Type.String({
    description:
      'the confirmation bucket that fired it (HIGH, MEDIUM, LOW, NONE, or VETO on engine events; TEST on the test delivery)'
  }),
  composite: Type.Number({ description: 'confirmation composite for `direction`, -1 (strong contra) to +1' })
})
export type SignalPayload = Static<typeof SignalPayload>

const signal = (name: string, description: string): WebhookEventType<typeof SignalPayload> => ({
  name,
  description,
  payload: SignalPayload
})

/** The payload of `whale.transfer`: one transfer row of a tracked wallet at or above the `high` significance. */
const WhaleTransferPayload = Type.Object({
  symbol: Type.String({ description: 'the token moved, e.g. ETH or USDT (matched against `symbols`)' }),
  chain: Type.String({ description: 'chain of the transfer, e.g. eth' }),
  direction: Type.Union([Type.Literal('transfer_in'), Type.Literal('transfer_out'), Type.Literal('swap')], {
    description: 'as seen from the tracked wallet'
  }),
  amount: Type.Number({ description: 'units of the token; raw integer units when `decimals_unknown` is `token`' }),
  decimals_unknown: Type.Union([Type.Literal('token'), Type.Null()], {
    description:
      '`token` when the token is off the watch list and its decimals are unknown: `symbol` is its contract address and `amount` is in raw integer units (as in /v1/whales/events); null otherwise'
  }),
  usd_value: Type.Number({ description: 'USD at the time of the transfer' }),
  significance: Type.Union([Type.Literal('high'), Type.Literal('critical')]),
  address: Type.String({ description: 'the tracked wallet' }),
  counterparty: Type.String(),
  tx_hash: Type.String(),
  log_index: Type.Integer({ minimum: 0 }),
  block_number: Type.Integer({ minimum: 0 })
})
export type WhaleTransferPayload = Static<typeof WhaleTransferPayload>

export const WHALE_TRANSFER = {
  name: 'whale.transfer',
  description: 'a transfer of a tracked whale wallet worth at least the high significance threshold ($2.5M)',
  payload: WhaleTransferPayload
} as const satisfies WebhookEventType

/** The payload of `alert.silent`: a strategy of the key sent no alert for its `silence_bars` bars. */
const AlertSilentPayload = Type.Object({
  symbol: Type.String({ description: "base asset of the strategy's alerts, e.g. BTC (matched against `symbols`)" }),
  strategy: Type.String({ description: "the alerts' `strategy`, '' for alerts without one" }),
  timeframe: Type.String({ description: 'the last timeframe its alerts sent, e.g. 15 or 1D' }),
  last_alert_at: Type.String({ format: 'date-time', description: 'when its last alert arrived' }),
  silence_bars: Type.Integer({ minimum: 1, description: "the key's setting: bars without an alert" })
})
export type AlertSilentPayload = Static<typeof AlertSilentPayload>

export const ALERT_SILENT = {
  name: 'alert.silent',
  description:
    "inbound alerts: a strategy of the key sent no alert for the key's silence_bars bars of its timeframe (only that key's webhooks)",
  payload: AlertSilentPayload
} as const satisfies WebhookEventType

/** A watched token's verdict at one check (docs/node-intel.md, "Watch list and re-checks"). */
const TokenVerdict = Type.Object({
  verdict: Type.String({ description: 'ok, high_tax, honeypot, no_liquidity or unknown (docs/node-intel.md)' }),
  is_honeypot: Type.Union([Type.Boolean(), Type.Null()]),
  method: Type.String({ description: 'the simulation method that answered' }),
  buy_tax_pct: Type.Union([Type.Number(), Type.Null()], { description: 'percent; null: the step did not run' }),
  sell_tax_pct: Type.Union([Type.Number(), Type.Null()]),
  transfer_tax_pct: Type.Union([Type.Number(), Type.Null()]),
  block_number: Type.Integer({ minimum: 0, description: 'the head block the check ran at' }),
  checked_at: Type.String({ format: 'date-time' }),
  reasons: Type.Array(Type.String())
})

/** The payload of `TOKEN_RISK_CHANGED`: a re-check of a watched token found its verdict or a tax changed. */
const TokenRiskChangedPayload = Type.Object({
  chain: Type.String({ description: 'node-intelligence chain, e.g. bsc' }),
  token: Type.String({ description: 'the token contract, checksummed' }),
  changed: Type.Array(Type.String(), {
    description: 'what differs: verdict, buy_tax_pct, sell_tax_pct, transfer_tax_pct'
  }),
  before: TokenVerdict,
  after: TokenVerdict,
  trigger: Type.Object({
    kind: Type.Union([Type.Literal('watch'), Type.Literal('owner_tx'), Type.Literal('log')]),
    tx_hash: Type.Union([Type.String(), Type.Null()], { description: 'the transaction that caused the re-check' }),
    block_number: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
    detail: Type.Union([Type.String(), Type.Null()], {
      description: 'the event signature (log) or the 4-byte selector the owner called (owner_tx)'
    }),
    from: Type.Union([Type.String(), Type.Null()], { description: 'the owner who sent it (owner_tx)' })
  })
})
export type TokenRiskChangedPayload = Static<typeof TokenRiskChangedPayload>

export const TOKEN_RISK_CHANGED = {
  name: 'TOKEN_RISK_CHANGED',
  description:
    "node intelligence: a watched token's honeypot verdict changed, or a tax moved by more than NODEINTEL_RECHECK_TAX_DELTA_PCT",
  payload: TokenRiskChangedPayload
} as const satisfies WebhookEventType

/** Every event type a webhook may register for, in the order the API and the dashboard list them. */
export const WEBHOOK_EVENT_TYPES = [
  signal('HIGH', 'the signal engine: a symbol and direction entered HIGH confidence'),
  signal('MEDIUM', 'the signal engine: a symbol and direction entered MEDIUM confidence'),
  signal('VETO', 'the signal engine: strong contra evidence against a direction'),
  signal('SIGNAL', 'a generic signal, including an inbound alert forwarded for the key that owns it'),
  WHALE_TRANSFER,
  ALERT_SILENT,
  TOKEN_RISK_CHANGED
] as const satisfies readonly WebhookEventType[]

export type WebhookEventName = (typeof WEBHOOK_EVENT_TYPES)[number]['name']

/** The registrable event names, in catalog order. */
export const WEBHOOK_EVENT_NAMES: readonly WebhookEventName[] = WEBHOOK_EVENT_TYPES.map((t) => t.name)

/** The test delivery (`POST /v1/webhooks/test`): signed like every delivery, never registrable. */
export const WEBHOOK_TEST_EVENT = signal('TEST', 'a test delivery sent on request (symbol BTC, composite 0)')

/** The catalog entry of `name` (the test event included), or undefined. */
export function webhookEventType(name: string): WebhookEventType | undefined {
  if (name === WEBHOOK_TEST_EVENT.name) return WEBHOOK_TEST_EVENT
  return (WEBHOOK_EVENT_TYPES as readonly WebhookEventType[]).find((t) => t.name === name)
}

/** The whole body a receiver gets for one event type: `event`, `ts`, the payload's fields, `webhook_id`. */
export function deliveryBodySchema(t: WebhookEventType): TObject {
  return Type.Object(
    {
      event: Type.Literal(t.name),
      ts: Type.String({ format: 'date-time', description: 'when the event fired, ISO 8601 UTC' }),
      ...t.payload.properties,
      webhook_id: Type.Integer({ minimum: 1 })
    },
    { additionalProperties: false }
  )
}
