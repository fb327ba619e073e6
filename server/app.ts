/**
 * @module
 * The transport-independent application: routes a plain request to its handler and turns every failure
 * into the JSON error envelope. Unexpected errors answer 500 with a correlation id that is also logged
 * with the cause; no stack trace or SQL reaches a client.
 */
import crypto from 'node:crypto'
import { ApiError, errorBody } from '../engine/errors.js'
import type { Logger } from '../engine/log.js'
import { json, type HttpRequest, type HttpResponse, type Route } from './http/types.js'
import { Router, type Match } from './router.js'

export class App {
  readonly router: Router

  constructor(
    routes: readonly Route[],
    private readonly log: Logger
  ) {
    this.router = new Router(routes)
  }

  /** Route lookup before the body is read (the adapter needs the route's body limit). */
  match(method: string, path: string): Match | ApiError {
    return this.router.match(method, path)
  }

  errorResponse(err: unknown, req: Pick<HttpRequest, 'method' | 'path'>): HttpResponse {
    if (err instanceof ApiError) return json(err.status, errorBody(err), err.headers)
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
    return json(500, errorBody(e, correlationId), { 'x-correlation-id': correlationId })
  }

  /** Handles a request whose body (if any) is already read. */
  async handle(req: HttpRequest, matched?: Match | ApiError): Promise<HttpResponse> {
    const m = matched ?? this.match(req.method, req.path)
    if (m instanceof ApiError) return this.errorResponse(m, req)
    try {
      return await m.route.handler({ ...req, params: m.params })
    } catch (err) {
      return this.errorResponse(err, req)
    }
  }
}
