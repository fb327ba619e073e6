/**
 * @module
 * Schemas of the accounts API (`/v1/account/*`, docs/accounts.md): request bodies and answers. The
 * dashboard (web/) is coded against these shapes.
 */
import { Type } from '@sinclair/typebox'
import { PLAN_NAMES, type PlanName } from '../../engine/access/plans.js'
import { EMAIL_MAX } from '../../engine/accounts/account-registry.js'
import { INVALID_INVITE, INVITE_TOKEN_PATTERN } from '../../engine/accounts/invites.js'
import { PASSWORD_MAX, PASSWORD_MIN } from '../../engine/accounts/password.js'
import { REFUSAL, type Refusal } from './params.js'

const Plan = Type.Unsafe<PlanName>({ type: 'string', enum: [...PLAN_NAMES], description: 'plan' })
const DateTime = (description?: string) => Type.String({ format: 'date-time', ...(description ? { description } : {}) })
const Password = (description: string) => Type.String({ minLength: PASSWORD_MIN, maxLength: PASSWORD_MAX, description })

export const Account = Type.Object({
  id: Type.String({ description: 'account id (16 hex characters)' }),
  email: Type.String({ description: 'lower case' }),
  role: Type.Union([Type.Literal('owner'), Type.Literal('member')]),
  plan: Plan,
  created_at: DateTime()
})

export const AccountSession = Type.Object({
  account: Account,
  csrf_token: Type.String({
    description: 'send it as header X-CSRF-Token on every POST, PUT, PATCH and DELETE made under the session cookie'
  })
})

export const SignupBody = Type.Object(
  {
    email: Type.String({
      minLength: 3,
      maxLength: EMAIL_MAX,
      pattern: '^\\s*[^\\s@]+@[^\\s@]+\\.[^\\s@]+\\s*$',
      examples: ['trader@example.com'],
      description: 'an email address (x@y.z), read trimmed and lower case'
    }),
    password: Password(`Rule: ${PASSWORD_MIN} to ${PASSWORD_MAX} characters (code points)`),
    invite: Type.Optional(
      Object.assign(
        Type.String({
          pattern: INVITE_TOKEN_PATTERN,
          'x-rule': 'the token of an invite link',
          description:
            'the token of an invite link (/signup?invite=<token>). Rule: required unless this is the first account or SIGNUP=open; an invite this server made, valid 7 days, once'
        }),
        { [REFUSAL]: ((name) => `${name} ${INVALID_INVITE}`) satisfies Refusal }
      )
    )
  },
  { required: ['email', 'password'], additionalProperties: false }
)

export const LoginBody = Type.Object(
  {
    email: Type.String({ minLength: 1, maxLength: EMAIL_MAX }),
    password: Type.String({ minLength: 1, maxLength: PASSWORD_MAX })
  },
  { required: ['email', 'password'], additionalProperties: false }
)

export const PasswordBody = Type.Object(
  {
    current_password: Type.String({ minLength: 1, maxLength: PASSWORD_MAX }),
    new_password: Password(`Rule: ${PASSWORD_MIN} to ${PASSWORD_MAX} characters (code points)`)
  },
  { required: ['current_password', 'new_password'], additionalProperties: false }
)

export const PasswordChanged = Type.Object({
  ended_sessions: Type.Integer({ description: 'other sessions of the account that were ended' })
})

export const InviteResponse = Type.Object({
  token: Type.String(),
  url: Type.String({ description: '/signup?invite=<token>, relative to the dashboard' }),
  expires_at: DateTime()
})

export const AccountList = Type.Object({ accounts: Type.Array(Account) })

export const PlanBody = Type.Object({ plan: Plan }, { required: ['plan'], additionalProperties: false })

export const AccountKey = Type.Object({
  id: Type.String({ description: 'public id of the key' }),
  name: Type.String({ description: "'dashboard' for the key the session stands in for" }),
  plan: Plan,
  created_at: DateTime(),
  last_used_at: Type.Union([DateTime('the last counted call'), Type.Null()]),
  revoked_at: Type.Union([DateTime(), Type.Null()]),
  dashboard: Type.Boolean({
    description: 'true for the key the session stands in for: it cannot be revoked (log out instead)'
  })
})

export const AccountKeys = Type.Object({ keys: Type.Array(AccountKey) })

export const KeyBody = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 100, description: 'label, 1 to 100 characters (code points)' }) },
  { required: ['name'], additionalProperties: false }
)

export const CreatedKey = Type.Object({
  id: Type.String(),
  name: Type.String(),
  plan: Plan,
  key: Type.String({ description: 'the full API key: shown only in this answer' })
})

export const AlertSecret = Type.Object({
  secret: Type.String({
    description: "the key's new inbound-alert secret (shown once; the previous one stops working)"
  }),
  alert_url: Type.String({ description: 'path of the TradingView webhook URL on this server' }),
  message_template: Type.String({
    description: 'a TradingView alert message carrying the secret, with {{exchange}}:{{ticker}} and the direction'
  })
})

export const Usage = Type.Object({
  keys: Type.Array(
    Type.Object({
      id: Type.String(),
      name: Type.String(),
      plan: Plan,
      quota_per_day: Type.Union([Type.Integer(), Type.Null()], { description: 'null = unlimited' }),
      used_today: Type.Integer(),
      reset_at: DateTime('next UTC midnight'),
      days: Type.Array(
        Type.Object({
          day: Type.String({ description: 'YYYY-MM-DD (UTC)' }),
          calls: Type.Integer({ description: 'counted calls' }),
          throttled: Type.Integer({ description: 'calls refused with 429 quota_exceeded' })
        }),
        { description: '30 days ending today, oldest first' }
      )
    })
  )
})
