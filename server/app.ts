/**
 * @module
 * The transport-independent application. For each request: route lookup (404/405), access control
 * (401/403/429, rate-limit headers), query and body validation (400), the plan's symbol check (403),
 * readiness of data routes (503 warming_up), the quota count (only now: refusals are not counted), the
 * handler. On a service holding demo data, data answers are labelled synthetic (see `labelSynthetic`). Every failure becomes the JSON error envelope; unexpected errors answer 500 with a correlation
 * id that is also logged with the cause; no stack trace or SQL reaches a client.
 */
import crypto from 'node:crypto'
import { ApiError, errorBody } from '../engine/errors.js'
import { StoreError } from '../engine/store/store-error.js'
import { planBase } from '../engine/symbols/resolve.js'
import type { Logger } from '../engine/log.js'
import type { KeyRecord } from '../engine/access/key-registry.js'
import type { Plan } from '../engine/access/plans.js'
import { AccessControl, NO_RATE_HEADERS, type Caller } from './access/access-control.js'
import { json, type HttpRequest, type HttpResponse, type Route, type RouteRequest } from './http/types.js'
import { Router, type Match } from './router.js'
import type { Readiness } from './readiness.js'
import { SYNTHETIC_HEADER } from '../engine/live/synthetic-data.js'
import { compileQuery, parseJsonBody, type QueryValidator } from './validate.js'
import type { WebRoute } from './web/web-route.js'

const NO_HEADERS = NO_RATE_HEADERS

const NO_CALLER: Caller = { key: null, plan: null, headers: NO_HEADERS, counted: false }

/** Seconds a client is told to wait after a 503 for an unavailable store. */
const STORE_RETRY_AFTER_S = 5

/** Statuses of refusals, never counted against a quota (docs/access.md). */
const UNCOUNTED_STATUS: ReadonlySet<number> = new Set([401, 403, 429, 503])

/** The answer to a request that arrives once the stop began. */
const STOPPING = new ApiError('unavailable', 'the service is stopping; retry once it has restarted', {
  headers: { 'retry-after': '5' }
})

/** Whether a route serves market data (labelled synthetic on a demo deployment, gated by readiness). */
export function isDataRoute(route: Route): boolean {
  return route.data ?? (route.access === 'public' || route.access === 'key')
}

const SYNTHETIC_HEADERS: Readonly<Record<string, string>> = Object.freeze({ [SYNTHETIC_HEADER]: 'true' })

/** Adds the caller's rate-limit headers to a handler's response (none: the response as it is). */
function withHeaders(res: HttpResponse, headers: Readonly<Record<string, string>>): HttpResponse {
  if (headers === NO_HEADERS) return res
  return { status: res.status, headers: { ...res.headers, ...headers }, body: res.body }
}

/**
 * A data answer labelled synthetic: the header, and in a JSON object body a leading `"synthetic":true`
 * field. Hot routes return one shared response object, or one shared body buffer, per cached answer, so
 * labelled copies are cached by those objects (no per-request copy of the body).
 */
const labelled = new WeakMap<HttpResponse, HttpResponse>()
const labelledBodies = new WeakMap<Buffer, Buffer>()
const SYNTHETIC_FIELD = '{"synthetic":true'
const SYNTHETIC_FIELD_BYTES = Buffer.from(SYNTHETIC_FIELD)

function labelBody(body: HttpResponse['body']): HttpResponse['body'] {
  if (typeof body === 'string') {
    if (body.charCodeAt(0) !== 123 /* { */) return body
    return body.length === 2 ? SYNTHETIC_FIELD + '}' : SYNTHETIC_FIELD + ',' + body.slice(1)
  }
  if (!Buffer.isBuffer(body) || body[0] !== 123) return body
  let out = labelledBodies.get(body)
  if (!out) {
    const rest = body.length === 2 ? Buffer.from('}') : Buffer.concat([Buffer.from(','), body.subarray(1)])
    out = Buffer.concat([SYNTHETIC_FIELD_BYTES, rest])
    labelledBodies.set(body, out)
  }
  return out
}

/** Labelled copies of shared (frozen) header objects, frozen in turn: server/http/header-block.ts encodes each such object once. */
const labelledHeaders = new WeakMap<Readonly<Record<string, string>>, Readonly<Record<string, string>>>()

function labelHeaders(headers: Readonly<Record<string, string>>): Readonly<Record<string, string>> {
  if (!Object.isFrozen(headers)) return { ...headers, ...SYNTHETIC_HEADERS }
  let out = labelledHeaders.get(headers)
  if (!out) labelledHeaders.set(headers, (out = Object.freeze({ ...headers, ...SYNTHETIC_HEADERS })))
  return out
}

export function labelSynthetic(res: HttpResponse): HttpResponse {
  const hit = labelled.get(res)
  if (hit) return hit
  const json = res.status < 300 && (res.headers['content-type'] ?? '').startsWith('application/json')
  const out: HttpResponse = {
    status: res.status,
    headers: labelHeaders(res.headers),
    body: json ? labelBody(res.body) : res.body
  }
  labelled.set(res, out)
  return out
}

/**
 * The handler's view of a request. A class rather than an object literal with a getter: one hidden class
 * for every request, and the client address stays lazy (reading it has a cost, see uws-server.ts). What the
 * transport's request holds is read through getters, not copied: this object is allocated by every hot read,
 * and the request path's garbage sets how often the young generation is collected (docs/benchmarks.md,
 * "Hot reads").
 */
class RoutedRequest implements RouteRequest {
  constructor(
    private readonly req: HttpRequest,
    readonly params: Readonly<Record<string, string>>,
    readonly q: Readonly<Record<string, unknown>>,
    readonly json: Readonly<Record<string, unknown>> | null,
    readonly key: KeyRecord | null,
    readonly plan: Plan | null
  ) {}

  get method(): string {
    return this.req.method
  }

  get path(): string {
    return this.req.path
  }

  get headers(): Readonly<Record<string, string>> {
    return this.req.headers
  }

  get body(): Buffer | null {
    return this.req.body
  }

  get bodyFile(): HttpRequest['bodyFile'] {
    return this.req.bodyFile ?? null
  }

  /** parsed only when a handler reads it (the transport's `query` is lazy) */
  get query(): URLSearchParams {
    return this.req.query
  }

  get ip(): string {
    return this.req.ip
  }
}

/** Validated queries kept per GET route, by raw query string; the map is emptied when it reaches this. */
const QUERY_CACHE_MAX = 256

/** Whether a validated query holds only primitives (safe to share, frozen, between requests). */
function primitivesOnly(q: Readonly<Record<string, unknown>>): boolean {
  for (const k in q) {
    const v = q[k]
    if (v !== null && typeof v === 'object') return false
  }
  return true
}

export class App {
  readonly router: Router
  /** query validators compiled once per route */
  private readonly validators = new Map<Route, QueryValidator>()
  /**
   * Validated queries of GET routes by raw query string (at most QUERY_CACHE_MAX per route): validation is
   * a pure function of the string, so a hot read repeating a query skips parsing and validating it. Only
   * all-primitive results are kept, frozen (a handler cannot change what the next request sees); a query
   * that fails validation is never kept (it throws each time, with the same message).
   */
  private readonly queryCache = new Map<Route, Map<string, Readonly<Record<string, unknown>>>>()
  /** set by `stop`: every later request (a kept-alive connection outlives the listen socket) answers 503 */
  private stopping = false

  constructor(
    readonly routes: readonly Route[],
    private readonly log: Logger,
    /** null: only `access: 'none'` routes can be served (unit tests of routing alone) */
    private readonly access: AccessControl | null,
    private readonly opts: {
      /** gates data routes until the service is ready (absent: always ready) */
      readonly readiness?: Readiness
      /** label data answers synthetic (the service holds demo data) */
      readonly synthetic?: boolean
      /** serves the dashboard's files and app routes outside /v1 (server/web, docs/dashboard.md) */
      readonly web?: WebRoute
    } = {}
  ) {
    this.router = new Router(routes)
    for (const r of routes) this.validators.set(r, compileQuery(r.query))
    // web dashboard: any query (?invite=...) is the page's own business
    if (opts.web) this.validators.set(opts.web, () => ({}))
  }

  /**
   * The service is stopping: requests from now on answer 503 `unavailable` without being counted, so the
   * stop's last flush of usage counts holds every call answered. Requests already under way complete.
   */
  stop(): void {
    this.stopping = true
  }

  /** Route lookup before the body is read (the adapter needs the route's body limit). */
  match(method: string, path: string): Match | ApiError {
    // the dashboard (outside /v1) is matched before the API router
    const web = this.opts.web
    if (web && web.serves(method, path)) return { route: web, params: {} }
    return this.router.match(method, path)
  }

  /**
   * The access check alone, from the headers, before a body is read (the adapter calls it on routes that
   * take a body): the refusal's answer (401, 403, 429), or null. Nothing is counted here: `handle` checks
   * again once the body is in (so check and count stay one step) and counts. A public route without a key
   * takes its throttle token in `handle` only.
   */
  admit(req: HttpRequest, m: Match): HttpResponse | null {
    if (m.route.access === 'none') return null
    try {
      if (!this.access) throw new Error(`no access control for ${m.route.path}`)
      this.access.admit(m.route, req)
      return null
    } catch (err) {
      return this.errorResponse(err, req)
    }
  }

  errorResponse(
    err: unknown,
    req: Pick<HttpRequest, 'method' | 'path'>,
    extra: Record<string, string> = {}
  ): HttpResponse {
    if (err instanceof ApiError) return json(err.status, errorBody(err), { ...extra, ...err.headers })
    if (err instanceof StoreError && err.retryable) {
      // the store is down or overloaded: a temporary condition, not a fault of this request
      this.log.warn(
        { method: req.method, path: req.path, code: err.clickhouseCode, err: err.message },
        'store unavailable'
      )
      const e = new ApiError('unavailable', 'the data store is unavailable right now; retry shortly', {
        headers: { 'retry-after': String(STORE_RETRY_AFTER_S) }
      })
      return json(503, errorBody(e), { ...extra, ...e.headers })
    }
    const correlationId = crypto.randomUUID()
    this.log.error(
      {
        correlation_id: correlationId,
        method: req.method,
        path: req.path,
        err: err instanceof Error ? err.stack : String(err)
      },
      'internal error'
    )
    const e = new ApiError('internal', 'internal error; quote the correlation_id when reporting it')
    return json(500, errorBody(e, correlationId), { ...extra, 'x-correlation-id': correlationId })
  }

  /** A handler's refusal (401, 403, 429, 503) is not counted: the count taken before it runs is refunded. */
  private refusedHeaders(
    err: unknown,
    caller: Caller,
    counted: Readonly<Record<string, string>>
  ): Readonly<Record<string, string>> {
    if (!this.access || !(err instanceof ApiError) || !UNCOUNTED_STATUS.has(err.status)) return counted
    return this.access.refund(caller)
  }

  private validQuery(route: Route, req: HttpRequest): Readonly<Record<string, unknown>> {
    const raw = req.rawQuery
    if (raw === undefined || route.method !== 'GET') return this.validators.get(route)!(req.query)
    let cache = this.queryCache.get(route)
    const hit = cache?.get(raw)
    if (hit) return hit
    const q = this.validators.get(route)!(req.query)
    if (primitivesOnly(q)) {
      if (!cache) this.queryCache.set(route, (cache = new Map()))
      if (cache.size >= QUERY_CACHE_MAX) cache.clear()
      cache.set(raw, Object.freeze(q))
    }
    return q
  }

  private caller(route: Route, req: HttpRequest): Caller {
    if (route.access === 'none') return NO_CALLER
    if (!this.access) throw new Error(`no access control for ${route.path}`)
    return this.access.check(route, req)
  }

  /**
   * Handles a request whose body (if any) is already read. Synchronous handlers answer synchronously (no
   * promise per request on the hot path); asynchronous ones return a promise.
   */
  handle(req: HttpRequest, matched?: Match | ApiError): HttpResponse | Promise<HttpResponse> {
    // once the stop began, nothing new is served or counted: the final flush holds every counted call
    if (this.stopping) return this.errorResponse(STOPPING, req)
    const m = matched ?? this.match(req.method, req.path)
    if (m instanceof ApiError) return this.errorResponse(m, req)
    // the rate-limit headers of the answer once counted (or refused after counting); until then a refusal
    // takes the caller's, which a limited key builds only when asked (access-control.ts, LimitedCaller)
    let headers: Readonly<Record<string, string>> | null = null
    let checked: Caller = NO_CALLER
    try {
      const route = m.route
      const caller = this.caller(route, req)
      checked = caller
      let q: Readonly<Record<string, unknown>>
      let body: Readonly<Record<string, unknown>> | null
      try {
        q = this.validQuery(route, req)
        body = route.body ? parseJsonBody(route.body, req.body) : null
      } catch (err) {
        // a call that fails parameter validation counts (docs/access.md)
        if (this.access) headers = this.access.count(caller)
        throw err
      }
      if (route.symbolParam && typeof q[route.symbolParam] === 'string') {
        // the plan lists bases: BINANCE:BTCUSDT.P is checked as BTC (a refused form stays as written)
        AccessControl.checkSymbol(caller.plan, planBase(q[route.symbolParam] as string), route.symbolParam)
      }
      const data = isDataRoute(route)
      if (data) this.opts.readiness?.check()
      if (this.access) headers = this.access.count(caller)
      const routeReq = new RoutedRequest(req, m.params, q, body, caller.key, caller.plan)
      const counted = headers ?? caller.headers
      let res: HttpResponse | Promise<HttpResponse>
      try {
        res = route.handler(routeReq)
      } catch (err) {
        headers = this.refusedHeaders(err, caller, counted)
        throw err
      }
      const label = data && this.opts.synthetic === true
      if (res instanceof Promise) {
        return res.then(
          (r) => withHeaders(label ? labelSynthetic(r) : r, counted),
          (err: unknown) => this.errorResponse(err, req, this.refusedHeaders(err, caller, counted))
        )
      }
      return withHeaders(label ? labelSynthetic(res) : res, counted)
    } catch (err) {
      return this.errorResponse(err, req, headers ?? checked.headers)
    }
  }
}
