/**
 * @module
 * Key management (admin) and the caller's own usage (`GET /v1/usage`). The full key appears only in the
 * 201 answer of its creation; lists show the public id, name, plan and dates.
 */
import { Type } from '@sinclair/typebox'
import { ApiError } from '../../engine/errors.js'
import { PLAN_NAMES, PLANS, type PlanName } from '../../engine/access/plans.js'
import type { KeyRegistry } from '../../engine/access/key-registry.js'
import type { QuotaCounter } from '../../engine/access/quota.js'
import { nextUtcMidnight, secondsToUtcMidnight } from '../../engine/access/utc-day.js'
import { json, type Route } from '../http/types.js'

const PLAN = Type.Unsafe<PlanName>({ type: 'string', enum: [...PLAN_NAMES], description: 'plan of the key' })
const KEY_INFO = Type.Object({
  id: Type.String({ description: 'public id of the key' }),
  name: Type.String(),
  plan: PLAN,
  created_at: Type.String({ format: 'date-time' }),
  revoked_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()])
})

export function keyRoutes(registry: KeyRegistry, quota: QuotaCounter): Route[] {
  return [
    {
      method: 'POST',
      path: '/v1/admin/keys',
      access: 'admin',
      status: 201,
      maxBodyBytes: 4096,
      summary: 'Create an API key (the key is shown only in this answer)',
      tags: ['admin'],
      body: Type.Object(
        {
          plan: PLAN,
          name: Type.Optional(
            Type.String({ minLength: 1, maxLength: 100, description: 'label, 1 to 100 characters (code points)' })
          )
        },
        { required: ['plan'], additionalProperties: false, description: 'unknown fields are refused (400)' }
      ),
      response: Type.Object({ id: Type.String(), key: Type.String(), plan: PLAN, name: Type.String() }),
      handler: async (req) => {
        const plan = req.json!['plan'] as PlanName
        const name = (req.json!['name'] as string | undefined) ?? ''
        const { record, key } = await registry.create(plan, name)
        return json(201, { id: record.id, key, plan: record.plan, name: record.name })
      }
    },
    {
      method: 'GET',
      path: '/v1/admin/keys',
      access: 'admin',
      summary: 'List API keys (never their secrets)',
      tags: ['admin'],
      response: Type.Object({ keys: Type.Array(KEY_INFO) }),
      handler: () => json(200, { keys: registry.list() })
    },
    {
      method: 'DELETE',
      path: '/v1/admin/keys/:id',
      access: 'admin',
      summary: 'Revoke an API key; it stops working at once',
      tags: ['admin'],
      response: Type.Object({ id: Type.String(), revoked: Type.Literal(true) }),
      handler: async (req) => {
        const id = req.params['id']!
        if (!(await registry.revoke(id))) throw new ApiError('not_found', `no API key with id ${id}`)
        return json(200, { id, revoked: true })
      }
    },
    {
      method: 'GET',
      path: '/v1/usage',
      access: 'key',
      feature: 'usage',
      counted: false,
      data: false,
      summary: "The calling key's plan, calls today, remaining calls and reset time (not counted)",
      tags: ['account'],
      response: Type.Object({
        key_id: Type.String(),
        name: Type.String(),
        plan: PLAN,
        calls_today: Type.Integer(),
        limit: Type.Union([Type.Integer(), Type.Null()], { description: 'calls per UTC day; null = unlimited' }),
        remaining: Type.Union([Type.Integer(), Type.Null()]),
        resets_at: Type.String({ format: 'date-time', description: 'next UTC midnight' }),
        reset_in_seconds: Type.Integer(),
        history_days: Type.Union([Type.Integer(), Type.Null()], { description: 'null = full archive' }),
        symbols: Type.Union([Type.Array(Type.String()), Type.Null()], { description: 'null = all' })
      }),
      handler: (req) => {
        const key = req.key!
        const plan = PLANS[key.plan]
        const used = quota.used(key.id)
        const now = Date.now()
        return json(200, {
          key_id: key.id,
          name: key.name,
          plan: plan.name,
          calls_today: used,
          limit: plan.callsPerDay,
          remaining: plan.callsPerDay === null ? null : Math.max(0, plan.callsPerDay - used),
          resets_at: new Date(nextUtcMidnight(now)).toISOString(),
          reset_in_seconds: secondsToUtcMidnight(now),
          history_days: plan.historyDays,
          symbols: plan.symbols
        })
      }
    }
  ]
}
