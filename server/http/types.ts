/**
 * @module
 * Plain request and response objects. Handlers see only these; the uWebSockets.js adapter (uws-server.ts)
 * converts to and from the wire, and tests call the app with them directly.
 */

export interface HttpRequest {
  /** upper case, e.g. GET */
  readonly method: string
  /** path without the query string, e.g. /v1/health */
  readonly path: string
  readonly query: URLSearchParams
  /** header names in lower case */
  readonly headers: Readonly<Record<string, string>>
  readonly body: Buffer | null
  /** client address as the socket saw it */
  readonly ip: string
}

export interface HttpResponse {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: string | Buffer
}

export function json(status: number, value: unknown, headers: Record<string, string> = {}): HttpResponse {
  return { status, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(value) }
}

/** Request with the path parameters of the matched route. */
export interface RouteRequest extends HttpRequest {
  readonly params: Readonly<Record<string, string>>
}

export type Handler = (req: RouteRequest) => Promise<HttpResponse> | HttpResponse

export interface Route {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH'
  /** `/v1/admin/ingest/:kind` style; `:name` matches one path segment */
  readonly path: string
  readonly handler: Handler
  /** largest accepted body, bytes; 0 means the route takes no body. @default 0 */
  readonly maxBodyBytes?: number
}
