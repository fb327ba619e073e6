/**
 * @module
 * `GET /v1/account/usage`: per key of the account, the plan's daily quota, calls counted today, the reset
 * time, and the last 30 UTC days (today included, oldest first) of counted calls and 429 quota refusals.
 * Today's figures come from memory (exact); earlier days from `api_usage` and `api_throttled`.
 */
import { PLANS } from '../../../engine/access/plans.js'
import type { QuotaCounter } from '../../../engine/access/quota.js'
import { nextUtcMidnight, utcDay } from '../../../engine/access/utc-day.js'
import { Usage } from '../../../schemas/api/account.js'
import type { SessionGate } from '../../accounts/session-gate.js'
import { json, type Route } from '../../http/types.js'
import { ACCOUNT_ROUTE, NO_STORE } from './session-routes.js'

/** Days the usage view covers, today included. */
export const USAGE_DAYS = 30
const DAY_MS = 86_400_000

export function usageRoutes(gate: SessionGate, quota: QuotaCounter, now: () => number = Date.now): Route[] {
  const service = gate.service
  return [
    {
      ...ACCOUNT_ROUTE,
      method: 'GET',
      path: '/v1/account/usage',
      summary: "Calls per key today and per UTC day over 30 days, with the plan's quota, reset time and 429 counts",
      response: Usage,
      handler: async (req) => {
        const s = gate.require(req)
        const keys = service.keys.forAccount(s.account.id)
        const t = now()
        const past = await quota.history(
          keys.map((k) => k.id),
          USAGE_DAYS - 1
        )
        const byKeyDay = new Map(past.map((r) => [`${r.key_id} ${r.day}`, r]))
        const days = Array.from({ length: USAGE_DAYS }, (_, i) => utcDay(t - (USAGE_DAYS - 1 - i) * DAY_MS))
        const today = days[days.length - 1]!
        return json(
          200,
          {
            keys: keys.map((k) => ({
              id: k.id,
              name: k.name,
              plan: k.plan,
              quota_per_day: PLANS[k.plan].callsPerDay,
              used_today: quota.used(k.id),
              reset_at: new Date(nextUtcMidnight(t)).toISOString(),
              days: days.map((day) => {
                if (day === today) return { day, calls: quota.used(k.id), throttled: quota.refusedToday(k.id) }
                const r = byKeyDay.get(`${k.id} ${day}`)
                return { day, calls: r?.calls ?? 0, throttled: r?.throttled ?? 0 }
              })
            }))
          },
          { ...NO_STORE }
        )
      }
    }
  ]
}
