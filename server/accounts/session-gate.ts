/**
 * @module
 * Resolves the session cookie of a request and enforces CSRF (docs/accounts.md, "CSRF"):
 * - a request carrying a live session cookie and a cross-site `Origin` is refused (403 csrf_failed);
 * - a state-changing request (POST, PUT, PATCH, DELETE) authenticated by the cookie must carry header
 *   `X-CSRF-Token` equal to the session's token (403 csrf_failed otherwise).
 * Requests with an X-API-Key are not cookie-authenticated: AccessControl never asks this gate about them.
 * `keyOf` is what AccessControl calls on keyed routes: the account's `dashboard` key stands in for a key.
 */
import type { KeyRecord } from '../../engine/access/key-registry.js'
import type { Account } from '../../engine/accounts/account-registry.js'
import type { AccountService } from '../../engine/accounts/account-service.js'
import { csrfMatches, type Session } from '../../engine/accounts/sessions.js'
import { ApiError } from '../../engine/errors.js'
import type { HttpRequest } from '../http/types.js'
import { SESSION_COOKIE, readCookie } from './cookies.js'
import { csrfFailed, requireSameOrigin } from './origin.js'

/** Headers the HTTP adapter reads for these checks when a request has a cookie or a body. */
export const ACCOUNT_REQUEST_HEADERS: readonly string[] = [
  'origin',
  'host',
  'x-forwarded-proto',
  'x-forwarded-host',
  'x-csrf-token'
]

const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS'])

export interface SignedIn {
  readonly account: Account
  readonly session: Session
  /** the cookie's value (the session id in clear); its CSRF token is `csrfTokenOf(rawId)` */
  readonly rawId: string
}

export class SessionGate {
  /** counters for /v1/health */
  readonly counters = { csrf_refused: 0 }

  constructor(
    readonly service: AccountService,
    readonly trustedHops: number
  ) {}

  /** The live session of a request, unchecked for CSRF; null without one. */
  signedIn(req: Pick<HttpRequest, 'headers'>): SignedIn | null {
    const rawId = readCookie(req.headers['cookie'], SESSION_COOKIE)
    if (!rawId) return null
    const session = this.service.sessions.resolve(rawId)
    if (!session) return null
    const account = this.service.accounts.get(session.accountId)
    if (!account) return null
    return { account, session, rawId }
  }

  /** Origin and, for state changes, the CSRF token of a cookie-authenticated request. */
  private checkCsrf(req: Pick<HttpRequest, 'headers' | 'method'>, rawId: string): void {
    try {
      requireSameOrigin(req.headers, this.trustedHops)
    } catch (err) {
      this.counters.csrf_refused++
      throw err
    }
    if (SAFE_METHODS.has(req.method)) return
    if (!csrfMatches(rawId, req.headers['x-csrf-token'])) {
      this.counters.csrf_refused++
      throw csrfFailed(
        "a state-changing request under a session needs header X-CSRF-Token with the session's csrf_token (GET /v1/account)"
      )
    }
  }

  /** The signed-in caller of an account route: 401 without a session, 403 csrf_failed per the rules above. */
  require(req: Pick<HttpRequest, 'headers' | 'method'>): SignedIn {
    const s = this.signedIn(req)
    if (!s) throw new ApiError('unauthorized', 'log in first: this endpoint needs a session (cookie tw_session)')
    this.checkCsrf(req, s.rawId)
    return s
  }

  /** The owner's session, or 403. */
  requireOwner(req: Pick<HttpRequest, 'headers' | 'method'>): SignedIn {
    const s = this.require(req)
    if (s.account.role !== 'owner') throw new ApiError('forbidden', 'only the owner account may do this')
    return s
  }

  /** For AccessControl: the key a session stands in for, or null when the request has no live session. */
  keyOf(req: HttpRequest): KeyRecord | null {
    if (req.headers['cookie'] === undefined) return null
    const s = this.signedIn(req)
    if (!s) return null
    this.checkCsrf(req, s.rawId)
    return this.service.dashboardKey(s.account)
  }
}
