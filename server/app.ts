/**
 * @module
 * The transport-independent application. For each request: route lookup (404/405), access control
 * (401/403/429, rate-limit headers), query and body validation (400), the plan's symbol check (403), the
 * handler. Every failure becomes the JSON error envelope; unexpected errors answer 500 with a correlation
 * id that is also logged with the cause; no stack trace or SQL reaches a client.
 */
import crypto from 'node:crypto'
import { ApiError, errorBody } from '../engine/errors.js'
import type { Logger } from '../engine/log.js'
import type { KeyRecord } from '../engine/access/key-registry.js'
import type { Plan } from '../engine/access/plans.js'
import { AccessControl, NO_RATE_HEADERS, type Caller } from './access/access-control.js'
import { json, type HttpRequest, type HttpResponse, type Route, type RouteRequest } from './http/types.js'
import { Router, type Match } from './router.js'
import { compileQuery, parseJsonBody, type QueryValidator } from './validate.js'

const NO_HEADERS = NO_RATE_HEADERS

const NO_CALLER: Caller = { key: null, plan: null, headers: NO_HEADERS }

/** Adds the caller's rate-limit headers to a handler's response (none: the response as it is). */
function withHeaders(res: HttpResponse, headers: Readonly<Record<string, string>>): HttpResponse {
  if (headers === NO_HEADERS) return res
  return { status: res.status, headers: { ...res.headers, ...headers }, body: res.body }
}

/**
 * The handler's view of a request. A class rather than an object literal with a getter: one hidden class
 * for every request, and the client address stays lazy (reading it has a cost, see uws-server.ts).
 */
class RoutedRequest implements RouteRequest {
  readonly method: string
  readonly path: string
  readonly query: URLSearchParams
  readonly headers: Readonly<Record<string, string>>
  readonly body: Buffer | null

  constructor(
    private readonly req: HttpRequest,
    readonly params: Readonly<Record<string, string>>,
    readonly q: Readonly<Record<string, unknown>>,
    readonly json: Readonly<Record<string, unknown>> | null,
    readonly key: KeyRecord | null,
    readonly plan: Plan | null
  ) {
    this.method = req.method
    this.path = req.path
    this.query = req.query
    this.headers = req.headers
    this.body = req.body
  }

  get ip(): string {
    return this.req.ip
  }
}

export class App {
  readonly router: Router
  /** query validators compiled once per route */
  private readonly validators = new Map<Route, QueryValidator>()

  constructor(
    readonly routes: readonly Route[],
    private readonly log: Logger,
    /** null: only `access: 'none'` routes can be served (unit tests of routing alone) */
    private readonly access: AccessControl | null
  ) {
    this.router = new Router(routes)
    for (const r of routes) this.validators.set(r, compileQuery(r.query))
  }

  /** Route lookup before the body is read (the adapter needs the route's body limit). */
  match(method: string, path: string): Match | ApiError {
    return this.router.match(method, path)
  }

  errorResponse(
    err: unknown,
    req: Pick<HttpRequest, 'method' | 'path'>,
    extra: Record<string, string> = {}
  ): HttpResponse {
    if (err instanceof ApiError) return json(err.status, errorBody(err), { ...extra, ...err.headers })
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
    const m = matched ?? this.match(req.method, req.path)
    if (m instanceof ApiError) return this.errorResponse(m, req)
    let headers: Readonly<Record<string, string>> = NO_HEADERS
    try {
      const route = m.route
      const caller = this.caller(route, req)
      headers = caller.headers
      const q = this.validators.get(route)!(req.query)
      const body = route.body ? parseJsonBody(route.body, req.body) : null
      if (route.symbolParam && typeof q[route.symbolParam] === 'string') {
        AccessControl.checkSymbol(caller.plan, q[route.symbolParam] as string, route.symbolParam)
      }
      const routeReq = new RoutedRequest(req, m.params, q, body, caller.key, caller.plan)
      const res = route.handler(routeReq)
      if (res instanceof Promise) {
        return res.then(
          (r) => withHeaders(r, headers),
          (err: unknown) => this.errorResponse(err, req, headers)
        )
      }
      return withHeaders(res, headers)
    } catch (err) {
      return this.errorResponse(err, req, headers)
    }
  }
}
