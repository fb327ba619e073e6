/**
 * @module
 * What only the owner account may do (docs/accounts.md): make invite links, list the accounts, and set an
 * account's plan (its keys, the dashboard key included, follow at once). Other accounts get 403.
 */
import { ApiError } from '../../../engine/errors.js'
import type { PlanName } from '../../../engine/access/plans.js'
import { viewOf } from '../../../engine/accounts/account-registry.js'
import { Account, AccountList, InviteResponse, PlanBody } from '../../../schemas/api/account.js'
import { Type } from '@sinclair/typebox'
import type { SessionGate } from '../../accounts/session-gate.js'
import { json, type Route } from '../../http/types.js'
import { ACCOUNT_MAX_BODY_BYTES, ACCOUNT_ROUTE, NO_STORE } from './session-routes.js'

export function ownerRoutes(gate: SessionGate): Route[] {
  const service = gate.service
  return [
    {
      ...ACCOUNT_ROUTE,
      method: 'POST',
      path: '/v1/account/invites',
      status: 201,
      // a client may send `{}`; the body is not read
      maxBodyBytes: ACCOUNT_MAX_BODY_BYTES,
      summary: 'Owner: make an invite link for one sign-up, valid 7 days (the token is shown only here)',
      response: InviteResponse,
      handler: async (req) => {
        const s = gate.requireOwner(req)
        const { token, expiresAt } = await service.invites.create(s.account.id)
        return json(
          201,
          { token, url: `/signup?invite=${token}`, expires_at: new Date(expiresAt).toISOString() },
          { ...NO_STORE }
        )
      }
    },
    {
      ...ACCOUNT_ROUTE,
      method: 'GET',
      path: '/v1/account/accounts',
      summary: 'Owner: every account, oldest first',
      response: AccountList,
      handler: (req) => {
        gate.requireOwner(req)
        return json(200, { accounts: service.accounts.list().map(viewOf) }, { ...NO_STORE })
      }
    },
    {
      ...ACCOUNT_ROUTE,
      method: 'PATCH',
      path: '/v1/account/accounts/:id',
      maxBodyBytes: ACCOUNT_MAX_BODY_BYTES,
      summary: "Owner: set an account's plan; its keys (the dashboard key included) follow at once",
      body: PlanBody,
      response: Type.Object({ account: Account }),
      handler: async (req) => {
        gate.requireOwner(req)
        const id = req.params['id']!
        const target = service.accounts.get(id)
        if (!target) throw new ApiError('not_found', `no account with id ${id}`)
        const saved = await service.setPlan(target, req.json!['plan'] as PlanName)
        return json(200, { account: viewOf(saved) }, { ...NO_STORE })
      }
    }
  ]
}
