/**
 * @module
 * The answers of the /v1 API as the dashboard reads them: types derived from the TypeBox schemas that
 * validate requests and build the OpenAPI document (schemas/api), so a field renamed there fails the
 * dashboard's type check. Type-only imports: the bundle holds none of schemas/ or the server code.
 */
import type { Static } from '@sinclair/typebox'
import type {
  Account as AccountSchema,
  AccountList as AccountListSchema,
  AccountKeys as AccountKeysSchema,
  AccountSession as AccountSessionSchema,
  AlertSecret as AlertSecretSchema,
  CreatedKey as CreatedKeySchema,
  InviteResponse as InviteSchema,
  Usage as UsageSchema
} from '../../../schemas/api/account.js'
import type { ConfirmResponse } from '../../../schemas/api/confirm.js'
import type { ScreenerResponse } from '../../../schemas/api/derivatives.js'
import type { ComparativeResponse } from '../../../schemas/api/history-funding.js'
import type { OhlcvRecord, OhlcvResponse } from '../../../schemas/api/history.js'
import type { ChainResponse } from '../../../schemas/api/options.js'
import type { DeliveryPageResponse, WebhookList, WebhookTestResult } from '../../../schemas/api/webhooks.js'
import type { EventsResponse, SummaryResponse } from '../../../schemas/api/whales.js'

/** Answers of market-data routes carry `synthetic: true` on a service holding demo data (docs/synthetic.md). */
type Data<T> = T & { readonly synthetic?: true }

export type Account = Static<typeof AccountSchema>
export type AccountSession = Static<typeof AccountSessionSchema>
export type AccountList = Static<typeof AccountListSchema>
export type Invite = Static<typeof InviteSchema>
export type AccountKeys = Static<typeof AccountKeysSchema>
export type AccountKey = AccountKeys['keys'][number]
export type CreatedKey = Static<typeof CreatedKeySchema>
export type AlertSecret = Static<typeof AlertSecretSchema>
export type Usage = Static<typeof UsageSchema>
export type KeyUsage = Usage['keys'][number]

export type Confirm = Data<Static<typeof ConfirmResponse>>
export type Screener = Data<Static<typeof ScreenerResponse>>
export type ScreenerRow = Screener['rows'][number]
/** the comparative funding heatmap: one row per bucket, one entry per exchange */
export type Heatmap = Data<Static<typeof ComparativeResponse>>
export type Candle = Static<typeof OhlcvRecord>
export type Ohlcv = Data<Static<typeof OhlcvResponse>>
export type OptionsChain = Data<Static<typeof ChainResponse>>
export type WhaleSummary = Data<Static<typeof SummaryResponse>>
export type WhaleEvents = Data<Static<typeof EventsResponse>>
export type WhaleEvent = WhaleEvents['events'][number]

export type Webhooks = Static<typeof WebhookList>
export type Webhook = Webhooks['webhooks'][number]
export type Deliveries = Static<typeof DeliveryPageResponse>
export type Delivery = Deliveries['deliveries'][number]
export type WebhookTest = Static<typeof WebhookTestResult>
