/**
 * @module
 * Every route of the accounts API, `/v1/account/*` (docs/accounts.md). They authenticate with the session
 * cookie themselves (route access `none`: no API key is involved), through the session gate.
 */
import type { QuotaCounter } from '../../../engine/access/quota.js'
import type { AlertSettingsRegistry } from '../../../engine/alerts/alert-settings.js'
import type { SessionGate } from '../../accounts/session-gate.js'
import type { Route } from '../../http/types.js'
import { keyRoutes } from './key-routes.js'
import { ownerRoutes } from './owner-routes.js'
import { sessionRoutes } from './session-routes.js'
import { usageRoutes } from './usage-routes.js'

export function accountRoutes(
  gate: SessionGate,
  quota: QuotaCounter,
  alertSettings: () => AlertSettingsRegistry | undefined
): Route[] {
  return [
    ...sessionRoutes(gate),
    ...ownerRoutes(gate),
    ...keyRoutes(gate, quota, alertSettings),
    ...usageRoutes(gate, quota)
  ]
}
