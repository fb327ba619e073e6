/**
 * @module
 * The account's API keys (docs/accounts.md, "API access"): list, create (the secret shown once), revoke,
 * and rotate a key's inbound-alert secret with a ready-to-paste TradingView message. Only the account's own
 * keys are visible: another account's key id answers 404, exactly like an unknown one. New keys take the
 * account's plan.
 */
import type { KeyRecord } from '../../../engine/access/key-registry.js'
import type { QuotaCounter } from '../../../engine/access/quota.js'
import type { AlertSettingsRegistry } from '../../../engine/alerts/alert-settings.js'
import { ApiError } from '../../../engine/errors.js'
import { AccountKeys, AlertSecret, CreatedKey, KeyBody } from '../../../schemas/api/account.js'
import type { SessionGate } from '../../accounts/session-gate.js'
import { json, type Route } from '../../http/types.js'
import { ACCOUNT_MAX_BODY_BYTES, ACCOUNT_ROUTE, NO_STORE } from './session-routes.js'

/** Where TradingView posts alerts (docs/alerts.md). */
export const ALERT_PATH = '/v1/tradingview/webhook'

/** A TradingView alert message for a secret: symbol and direction from TradingView's placeholders. */
export function alertMessage(secret: string): string {
  return `{"secret":"${secret}","symbol":"{{exchange}}:{{ticker}}","direction":"{{strategy.order.action}}","timeframe":"{{interval}}","price":{{close}}}`
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString())

/** A key as the account's list shows it; `dashboardKeyId` names the key the account's sessions stand in for. */
export function keyView(k: KeyRecord, quota: QuotaCounter, dashboardKeyId: string) {
  return {
    id: k.id,
    name: k.name,
    plan: k.plan,
    created_at: new Date(k.createdAt).toISOString(),
    last_used_at: iso(quota.lastUsed(k.id)),
    revoked_at: iso(k.revokedAt),
    dashboard: k.id === dashboardKeyId
  }
}

/** `alertSettings` is read per request: the inbound-alert service is wired after the accounts (server/start.ts). */
export function keyRoutes(
  gate: SessionGate,
  quota: QuotaCounter,
  alertSettings: () => AlertSettingsRegistry | undefined
): Route[] {
  const service = gate.service
  return [
    {
      ...ACCOUNT_ROUTE,
      method: 'GET',
      path: '/v1/account/keys',
      summary: "This account's API keys (never their secrets), oldest first",
      response: AccountKeys,
      handler: (req) => {
        const s = gate.require(req)
        const dashboardKeyId = s.account.dashboardKeyId
        const keys = service.keys.forAccount(s.account.id).map((k) => keyView(k, quota, dashboardKeyId))
        return json(200, { keys }, { ...NO_STORE })
      }
    },
    {
      ...ACCOUNT_ROUTE,
      method: 'POST',
      path: '/v1/account/keys',
      status: 201,
      maxBodyBytes: ACCOUNT_MAX_BODY_BYTES,
      summary: "Create an API key on the account's plan (the key is shown only in this answer)",
      body: KeyBody,
      response: CreatedKey,
      handler: async (req) => {
        const s = gate.require(req)
        const { record, key } = await service.createKey(s.account, req.json!['name'] as string)
        return json(201, { id: record.id, name: record.name, plan: record.plan, key }, { ...NO_STORE })
      }
    },
    {
      ...ACCOUNT_ROUTE,
      method: 'DELETE',
      path: '/v1/account/keys/:id',
      status: 204,
      summary: "Revoke one of the account's keys; it stops working at once (the dashboard key cannot be revoked: 400)",
      description: 'Rule: not the dashboard key (the session uses it).',
      handler: async (req) => {
        const s = gate.require(req)
        await service.revokeKey(s.account, req.params['id']!)
        return { status: 204, headers: { ...NO_STORE }, body: '' }
      }
    },
    {
      ...ACCOUNT_ROUTE,
      method: 'POST',
      path: '/v1/account/keys/:id/alert-secret',
      status: 201,
      maxBodyBytes: ACCOUNT_MAX_BODY_BYTES,
      summary: "Create or rotate a key's inbound-alert secret, with a TradingView alert message (shown once)",
      response: AlertSecret,
      handler: async (req) => {
        const s = gate.require(req)
        const k = service.ownKey(s.account, req.params['id']!)
        if (k.revokedAt !== null) throw new ApiError('not_found', `API key ${k.id} is revoked`)
        const settings = alertSettings()
        if (!settings) throw new Error('inbound alerts are not wired') // start.ts always wires them
        const { secret } = await settings.rotate(k.id)
        return json(201, { secret, alert_url: ALERT_PATH, message_template: alertMessage(secret) }, { ...NO_STORE })
      }
    }
  ]
}
