/**
 * @module
 * Sign-up, login, logout, the signed-in account and password change (docs/accounts.md). Sign-up and login
 * have no session yet: they need `Content-Type: application/json` (a cross-site HTML form cannot send it
 * without a CORS preflight, which this server never grants) and a same-origin `Origin` when one is sent.
 * Answers that open a session set cookie `tw_session` and carry the session's `csrf_token`.
 */
import { ApiError } from '../../../engine/errors.js'
import { csrfTokenOf } from '../../../engine/accounts/sessions.js'
import { viewOf, type Account } from '../../../engine/accounts/account-registry.js'
import { AccountSession, LoginBody, PasswordBody, PasswordChanged, SignupBody } from '../../../schemas/api/account.js'
import { clientIp } from '../../access/client-ip.js'
import { cameOverTls, clearedCookie, sessionCookie } from '../../accounts/cookies.js'
import { requireSameOrigin } from '../../accounts/origin.js'
import type { SessionGate } from '../../accounts/session-gate.js'
import { json, type HttpResponse, type Route, type RouteRequest } from '../../http/types.js'

/** Largest body of these routes, bytes: an email, two passwords and an invite token fit many times over. */
export const ACCOUNT_MAX_BODY_BYTES = 4096
/** Answers about a session are never cached. */
export const NO_STORE = { 'cache-control': 'no-store' } as const

export const ACCOUNT_ROUTE = { access: 'none', data: false, tags: ['account'] } as const

function requireJson(req: RouteRequest, hops: number): void {
  if (!(req.headers['content-type'] ?? '').toLowerCase().startsWith('application/json')) {
    throw new ApiError('unsupported_media_type', 'send the body as Content-Type: application/json')
  }
  requireSameOrigin(req.headers, hops)
}

export function sessionRoutes(gate: SessionGate): Route[] {
  const service = gate.service
  const hops = gate.trustedHops
  const opened = (req: RouteRequest, status: number, account: Account, rawId: string): HttpResponse =>
    json(
      status,
      { account: viewOf(account), csrf_token: csrfTokenOf(rawId) },
      { ...NO_STORE, 'set-cookie': sessionCookie(rawId, cameOverTls(req.headers, hops)) }
    )
  return [
    {
      ...ACCOUNT_ROUTE,
      method: 'POST',
      path: '/v1/account/signup',
      status: 201,
      maxBodyBytes: ACCOUNT_MAX_BODY_BYTES,
      summary: 'Create an account and open a session (the first account is the owner)',
      description:
        'The first account is the owner (enterprise plan); later ones start on the free plan and need an invite unless SIGNUP=open. Sets cookie tw_session. Rule: a valid email, a password of 10 to 200 characters, an invite when required. Sign-ups count against the per-IP login throttle (429).',
      body: SignupBody,
      response: AccountSession,
      handler: async (req) => {
        requireJson(req, hops)
        const b = req.json!
        const ip = clientIp(req.ip, req.headers['x-forwarded-for'], hops)
        const { account, rawId } = await service.signup(
          b['email'] as string,
          b['password'] as string,
          b['invite'] as string | undefined,
          ip
        )
        return opened(req, 201, account, rawId)
      }
    },
    {
      ...ACCOUNT_ROUTE,
      method: 'POST',
      path: '/v1/account/login',
      maxBodyBytes: ACCOUNT_MAX_BODY_BYTES,
      summary: 'Log in with email and password (sets cookie tw_session)',
      description:
        '401 invalid_credentials whether or not the email exists. Failed attempts are throttled per account (5 in 15 minutes) and per IP (20 in 15 minutes): 429 with Retry-After.',
      body: LoginBody,
      response: AccountSession,
      handler: async (req) => {
        requireJson(req, hops)
        const ip = clientIp(req.ip, req.headers['x-forwarded-for'], hops)
        const { account, rawId } = await service.login(
          req.json!['email'] as string,
          req.json!['password'] as string,
          ip
        )
        return opened(req, 200, account, rawId)
      }
    },
    {
      ...ACCOUNT_ROUTE,
      method: 'POST',
      path: '/v1/account/logout',
      status: 204,
      maxBodyBytes: ACCOUNT_MAX_BODY_BYTES,
      summary: 'End the session and clear its cookie (X-CSRF-Token required under a session)',
      handler: async (req) => {
        const signed = gate.signedIn(req) === null ? null : gate.require(req)
        if (signed) await service.sessions.end(signed.rawId)
        return {
          status: 204,
          headers: { ...NO_STORE, 'set-cookie': clearedCookie(cameOverTls(req.headers, hops)) },
          body: ''
        }
      }
    },
    {
      ...ACCOUNT_ROUTE,
      method: 'GET',
      path: '/v1/account',
      summary: "The signed-in account and its session's CSRF token",
      response: AccountSession,
      handler: (req) => {
        const s = gate.require(req)
        return json(200, { account: viewOf(s.account), csrf_token: csrfTokenOf(s.rawId) }, { ...NO_STORE })
      }
    },
    {
      ...ACCOUNT_ROUTE,
      method: 'POST',
      path: '/v1/account/password',
      maxBodyBytes: ACCOUNT_MAX_BODY_BYTES,
      summary: 'Change the password; every other session of the account ends (this one is kept)',
      description:
        'Rule: new_password of 10 to 200 characters. A wrong current_password is 401 invalid_credentials and counts as a failed login.',
      body: PasswordBody,
      response: PasswordChanged,
      handler: async (req) => {
        const s = gate.require(req)
        const ip = clientIp(req.ip, req.headers['x-forwarded-for'], hops)
        const ended = await service.changePassword(
          s.account,
          s.session,
          req.json!['current_password'] as string,
          req.json!['new_password'] as string,
          ip
        )
        return json(200, { ended_sessions: ended }, { ...NO_STORE })
      }
    }
  ]
}
