/**
 * @module
 * Who may call what, checked before a handler runs, in this order:
 * 1. the caller: admin token, API key (401 for missing, malformed, unknown or revoked alike; the message
 *    never says which), or, on public endpoints without a key, the per-IP throttle (429 rate_limited);
 *    without a key, a live session cookie stands in for its account's dashboard key (docs/accounts.md:
 *    403 csrf_failed for a state change without the session's X-CSRF-Token or from another origin);
 * 2. the plan's features (403 naming the cheapest plan that has it);
 * 3. the daily quota (429 quota_exceeded, Retry-After = seconds to the next UTC midnight).
 * A symbol outside the plan is checked after parameter validation (`checkSymbol`).
 * `check` only looks at the quota; the call is counted by `count`, which the app runs once nothing refused
 * the call: a 400 from parameter validation counts, every refusal (401, 403 for a feature or a symbol, 429,
 * 503 warming up) does not (docs/access.md). Check and count run in one synchronous step, so concurrent
 * calls cannot overrun a quota.
 * Rate-limit headers: the `RateLimit-Limit` / `RateLimit-Remaining` / `RateLimit-Reset` trio (seconds to
 * reset) on every keyed response and every throttled public one; unlimited plans send none.
 */
import { ApiError } from '../../engine/errors.js'
import type { KeyRecord, KeyRegistry } from '../../engine/access/key-registry.js'
import { PLANS, cheapestPlanWith, type Plan } from '../../engine/access/plans.js'
import type { IpThrottle } from '../../engine/access/ip-throttle.js'
import type { QuotaCounter } from '../../engine/access/quota.js'
import { secondsToUtcMidnight } from '../../engine/access/utc-day.js'
import { requireAdmin } from '../admin-token.js'
import type { HttpRequest, Route } from '../http/types.js'
import { clientIp } from './client-ip.js'

export interface Caller {
  readonly key: KeyRecord | null
  readonly plan: Plan | null
  /** rate-limit headers of an uncounted answer (a refusal): the quota as it stands */
  readonly headers: Readonly<Record<string, string>>
  /** the call counts against the key's daily quota once accepted (see `count`) */
  readonly counted: boolean
}

/** Headers of callers that get none (unlimited plans, admin): shared, never mutated. */
export const NO_RATE_HEADERS: Readonly<Record<string, string>> = Object.freeze({})

const NO_CALLER: Caller = { key: null, plan: null, headers: NO_RATE_HEADERS, counted: false }

/**
 * The caller of a key with a daily limit. Its `headers` (the quota as it stands, for a refusal before the
 * call is counted) are built only when read: an accepted call gets the headers `count` builds instead.
 */
class LimitedCaller implements Caller {
  constructor(
    readonly key: KeyRecord,
    readonly plan: Plan,
    readonly counted: boolean,
    private readonly access: AccessControl
  ) {}

  get headers(): Readonly<Record<string, string>> {
    return this.access.standing(this.key, this.plan.callsPerDay!)
  }
}

/** `RateLimit-Limit` texts by limit (a handful of plans): no number formatting per request. */
const LIMIT_TEXT = new Map<number, string>()

export interface AccessOptions {
  readonly registry: KeyRegistry
  readonly quota: QuotaCounter
  readonly throttle: IpThrottle
  readonly adminToken: string
  readonly trustedProxyHops: number
  readonly now?: () => number
  // accounts (docs/accounts.md)
  /**
   * The session cookie standing in for a key: on keyed and public routes a request without X-API-Key but
   * with a live session is served as the account's dashboard key (it throws 403 csrf_failed per its rules).
   */
  readonly session?: { keyOf(req: HttpRequest): KeyRecord | null }
}

export class AccessControl {
  private readonly now: () => number
  /**
   * The Caller of an unlimited key on a counted route, one per key record: it never changes (no rate
   * headers), so the hot path allocates none. Keyed by the record, so a reloaded or changed key gets a new one.
   */
  private readonly unlimitedCallers = new WeakMap<KeyRecord, Caller>()
  /** `RateLimit-Reset` text and the whole epoch second it was computed in (constant within a second) */
  private resetText = ''
  private resetSecond = -1

  constructor(private readonly o: AccessOptions) {
    this.now = o.now ?? Date.now
  }

  private unauthorized(): ApiError {
    return new ApiError('unauthorized', 'a valid API key is required in the X-API-Key header', {
      headers: { 'www-authenticate': 'ApiKey realm="tidewatch", header="X-API-Key"' }
    })
  }

  check(route: Route, req: HttpRequest): Caller {
    switch (route.access) {
      case 'none':
        return NO_CALLER
      case 'admin':
        requireAdmin(req.headers['authorization'], this.o.adminToken)
        return NO_CALLER
      case 'public': {
        if (req.headers['x-api-key'] !== undefined) return this.keyed(route, req)
        const sessionKey = this.o.session?.keyOf(req) ?? null // accounts: a session stands in for a key
        return sessionKey ? this.keyed(route, req, sessionKey) : this.throttled(req)
      }
      case 'key':
        return this.keyed(route, req)
    }
  }

  /**
   * `check` before a body is read (server/app.ts `admit`): throws the same refusals, except on a public
   * route called without a key, which is checked (throttle token, session) once, when it is handled.
   */
  admit(route: Route, req: HttpRequest): void {
    if (route.access === 'public' && req.headers['x-api-key'] === undefined) return
    this.check(route, req)
  }

  private throttled(req: HttpRequest): Caller {
    const ip = clientIp(req.ip, req.headers['x-forwarded-for'], this.o.trustedProxyHops)
    const d = this.o.throttle.take(ip)
    const limit = String(this.o.throttle.perMinute)
    if (!d.ok) {
      throw new ApiError(
        'rate_limited',
        `public endpoints allow ${limit} requests a minute per client without a key; retry in ${d.retryAfterSeconds} s or send an API key`,
        {
          headers: {
            'retry-after': String(d.retryAfterSeconds),
            'ratelimit-limit': limit,
            'ratelimit-remaining': '0',
            'ratelimit-reset': String(d.retryAfterSeconds)
          }
        }
      )
    }
    return {
      key: null,
      plan: null,
      counted: false,
      headers: {
        'ratelimit-limit': limit,
        'ratelimit-remaining': String(d.remaining),
        'ratelimit-reset': String(d.resetSeconds)
      }
    }
  }

  private keyed(route: Route, req: HttpRequest, sessionKey: KeyRecord | null = null): Caller {
    const presented = req.headers['x-api-key']
    const key =
      sessionKey ??
      (presented === undefined ? (this.o.session?.keyOf(req) ?? null) : this.o.registry.authenticate(presented))
    if (!key) throw this.unauthorized()
    const plan = PLANS[key.plan]
    if (route.feature && !plan.features.has(route.feature)) {
      const needed = cheapestPlanWith(route.feature)
      throw new ApiError(
        'forbidden',
        `${route.path} needs the ${needed} plan or higher; this key is on the ${plan.name} plan`
      )
    }
    const limit = plan.callsPerDay
    if (limit === null) {
      if (route.counted === false) return { key, plan, headers: NO_RATE_HEADERS, counted: false }
      let caller = this.unlimitedCallers.get(key)
      if (!caller) this.unlimitedCallers.set(key, (caller = { key, plan, headers: NO_RATE_HEADERS, counted: true }))
      return caller
    }
    const used = this.o.quota.used(key.id)
    if (route.counted !== false && used >= limit) {
      const reset = this.resetSeconds()
      this.o.quota.refused(key.id) // accounts: 429s per key and day (usage view)
      throw new ApiError(
        'quota_exceeded',
        `the ${plan.name} plan allows ${limit} calls a day (UTC); the quota resets in ${reset} s`,
        {
          headers: { 'retry-after': reset, ...this.headers(limit, 0, reset) }
        }
      )
    }
    return new LimitedCaller(key, plan, route.counted !== false, this)
  }

  /** Rate-limit headers of a limited key's quota as it stands now (a refusal's; see LimitedCaller). */
  standing(key: KeyRecord, limit: number): Readonly<Record<string, string>> {
    return this.headers(limit, limit - this.o.quota.used(key.id), this.resetSeconds())
  }

  /**
   * Counts an accepted call against its key's quota (nothing for uncounted routes and keyless callers) and
   * returns the rate-limit headers of the answer. Runs synchronously after `check`, so the quota `check`
   * saw still has room.
   */
  count(caller: Caller): Readonly<Record<string, string>> {
    if (!caller.counted || !caller.key || !caller.plan) return caller.headers
    const limit = caller.plan.callsPerDay
    if (limit === null) {
      this.o.quota.add(caller.key.id)
      return NO_RATE_HEADERS
    }
    const d = this.o.quota.take(caller.key.id, limit)
    return this.headers(limit, d.ok ? (d.remaining ?? 0) : 0, this.resetSeconds())
  }

  /**
   * Takes back the count of a call the handler refused after it was counted (403 for a symbol outside the
   * plan, 503), and returns the rate-limit headers of the refusal.
   */
  refund(caller: Caller): Readonly<Record<string, string>> {
    if (!caller.counted || !caller.key || !caller.plan) return caller.headers
    this.o.quota.refund(caller.key.id)
    const limit = caller.plan.callsPerDay
    if (limit === null) return NO_RATE_HEADERS
    return this.standing(caller.key, limit)
  }

  /**
   * `RateLimit-Reset`: whole seconds to the next UTC midnight, when daily quotas reset. The value is the same
   * for every ms of one epoch second (midnights are whole seconds), so the text is built once per second.
   */
  private resetSeconds(): string {
    const now = this.now()
    const second = Math.floor(now / 1000)
    if (second !== this.resetSecond) {
      this.resetSecond = second
      this.resetText = String(secondsToUtcMidnight(now))
    }
    return this.resetText
  }

  private headers(limit: number, remaining: number, reset: string): Record<string, string> {
    let limitText = LIMIT_TEXT.get(limit)
    if (limitText === undefined) LIMIT_TEXT.set(limit, (limitText = String(limit)))
    return {
      'ratelimit-limit': limitText,
      'ratelimit-remaining': String(Math.max(0, remaining)),
      'ratelimit-reset': reset
    }
  }

  /** 403 when the caller's plan does not include the base asset `raw` (already resolved: see `planBase`). */
  static checkSymbol(plan: Plan | null, raw: string, param: string): void {
    const symbol = raw.toUpperCase()
    if (!plan?.symbols || plan.symbols.includes(symbol)) return
    throw new ApiError(
      'forbidden',
      `${symbol} is not included in the ${plan.name} plan (it has ${plan.symbols.join(', ')}); the trader plan and higher include every symbol`,
      {
        param
      }
    )
  }
}
