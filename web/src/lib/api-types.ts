/**
 * @module
 * Names for the /v1 answers the dashboard reads: each the success body of its route in the typed client's
 * generated schema (clients/ts/schema.d.ts, from the OpenAPI document), so a field renamed in the API fails
 * the dashboard's type check. Types only: nothing here reaches the bundle.
 */
import type { Answer } from '@tidewatch/client'

export type AccountSession = Answer<'/v1/account'>
export type Account = AccountSession['account']
export type AccountList = Answer<'/v1/account/accounts'>
export type Invite = Answer<'/v1/account/invites', 'post'>
export type AccountKeys = Answer<'/v1/account/keys'>
export type AccountKey = AccountKeys['keys'][number]
export type CreatedKey = Answer<'/v1/account/keys', 'post'>
export type AlertSecret = Answer<'/v1/account/keys/{id}/alert-secret', 'post'>
export type Usage = Answer<'/v1/account/usage'>
export type KeyUsage = Usage['keys'][number]

export type Confirm = Answer<'/v1/confirm'>
export type ConfirmHistory = Answer<'/v1/confirm/history'>
export type ConfirmEvaluation = Answer<'/v1/confirm/evaluation'>
export type Screener = Answer<'/v1/derivatives/screener'>
export type ScreenerRow = Screener['rows'][number]
/** the comparative funding heatmap: one row per bucket, one entry per exchange */
export type Heatmap = Answer<'/v1/historical/derivatives/funding-heatmap/comparative'>
export type Ohlcv = Answer<'/v1/historical/ohlcv'>
export type Candle = Ohlcv['data'][number]
export type OptionsChain = Answer<'/v1/options/chain'>
export type WhaleSummary = Answer<'/v1/whales/summary'>
export type WhaleEvents = Answer<'/v1/whales/events'>
export type WhaleEvent = WhaleEvents['events'][number]

export type Webhooks = Answer<'/v1/webhooks'>
export type Webhook = Webhooks['webhooks'][number]
export type Deliveries = Answer<'/v1/webhooks/{id}/deliveries'>
export type Delivery = Deliveries['deliveries'][number]
export type WebhookTest = Answer<'/v1/webhooks/test', 'post'>
