/**
 * @module
 * Plain request and response objects. Handlers see only these; the uWebSockets.js adapter (uws-server.ts)
 * converts to and from the wire, and tests call the app with them directly.
 */
import type { TObject, TSchema } from '@sinclair/typebox'
import type { KeyRecord } from '../../engine/access/key-registry.js'
import type { Feature, Plan } from '../../engine/access/plans.js'
import type { SpooledBody } from './uws-body.js'

export interface HttpRequest {
  /** upper case, e.g. GET */
  readonly method: string
  /** path without the query string, e.g. /v1/health */
  readonly path: string
  readonly query: URLSearchParams
  /**
   * The query string as sent (without `?`), when the transport has it: validated queries are cached by it
   * (server/app.ts), so a hot read need not parse `query` at all. Absent: `query` is validated every time.
   */
  readonly rawQuery?: string
  /** header names in lower case */
  readonly headers: Readonly<Record<string, string>>
  readonly body: Buffer | null
  /** the body as a temp file, on routes with `spoolBody` (removed once the request ends) */
  readonly bodyFile?: SpooledBody | null
  /** client address as the socket saw it */
  readonly ip: string
}

/**
 * A body produced while it is sent (exports). The adapter writes each chunk, waits for the socket to
 * drain before pulling the next (so a slow client never makes memory grow), and ends the response when
 * the iterator finishes. An error thrown mid-stream closes the connection without the final chunk, so
 * the client sees a truncated transfer, never a silently short file. On client abort the iterator's
 * `return()` runs (cancelling the query, deleting temp files).
 */
export interface StreamBody {
  readonly stream: AsyncIterable<Uint8Array>
  /** called with the error when the stream fails after the status was sent (logging) */
  readonly onError?: (err: unknown) => void
}

export interface HttpResponse {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: string | Buffer | StreamBody
}

export function isStreamBody(body: HttpResponse['body']): body is StreamBody {
  return typeof body === 'object' && !Buffer.isBuffer(body)
}

/** The content-type header of JSON answers, shared (never mutated) so a hot handler allocates none. */
export const JSON_HEADERS: Readonly<Record<string, string>> = Object.freeze({ 'content-type': 'application/json' })

/** A JSON answer; without extra headers it shares JSON_HEADERS (written as one pre-encoded block, header-block.ts). */
export function json(status: number, value: unknown, headers?: Record<string, string>): HttpResponse {
  return {
    status,
    headers: headers === undefined ? JSON_HEADERS : { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(value)
  }
}

/** Request with the path parameters of the matched route, validated query and body, and the caller. */
export interface RouteRequest extends HttpRequest {
  readonly params: Readonly<Record<string, string>>
  /** query parameters validated against `route.query`, defaults applied */
  readonly q: Readonly<Record<string, unknown>>
  /** JSON body validated against `route.body` (routes with a JSON body only) */
  readonly json: Readonly<Record<string, unknown>> | null
  /** the API key of the caller, when one was sent and is valid */
  readonly key: KeyRecord | null
  /** the caller's plan (keyed calls only) */
  readonly plan: Plan | null
}

export type Handler = (req: RouteRequest) => Promise<HttpResponse> | HttpResponse

/**
 * - `none`: open (health, OpenAPI document)
 * - `public`: open under the shared per-IP throttle; a sent key applies that key's limits instead
 * - `key`: needs a valid X-API-Key
 * - `admin`: needs the admin bearer token
 */
export type Access = 'none' | 'public' | 'key' | 'admin'

export interface Route {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH'
  /** `/v1/admin/ingest/:kind` style; `:name` matches one path segment */
  readonly path: string
  readonly handler: Handler
  readonly access: Access
  /** plan feature a keyed caller needs */
  readonly feature?: Feature
  /** the query parameters (unknown ones answer 400) */
  readonly query?: TObject
  /** the path parameters' schemas, for the OpenAPI document (the handler reads and checks them) */
  readonly pathParams?: TObject
  /** a JSON object body, validated before the handler runs */
  readonly body?: TObject
  /** a raw body (e.g. NDJSON) the handler reads itself, described for the OpenAPI document */
  readonly rawBody?: {
    readonly contentType: string
    readonly description: string
    /**
     * the schema of one line of an NDJSON body, per value of the route's first path parameter (admin
     * ingest: per record kind); the OpenAPI document gives them as `oneOf` in the media type's
     * `x-item-schema` (OpenAPI 3.1 has no keyword for per-line schemas; 3.2's is `itemSchema`)
     */
    readonly itemSchemas?: Readonly<Record<string, TSchema>>
  }
  /** the success response's schema, for the OpenAPI document */
  readonly response?: TSchema
  /** success status. @default 200 */
  readonly status?: number
  /** query parameter naming a base asset the caller's plan must include */
  readonly symbolParam?: string
  /**
   * Serves market data: answers 503 warming_up until the service is ready, and is labelled synthetic on a
   * service holding demo data. @default true for `public` and `key` routes, false otherwise
   */
  readonly data?: boolean
  /** false: a keyed call here is checked but not counted against the daily quota. @default true */
  readonly counted?: boolean
  /** largest accepted body, bytes; 0 means the route takes no body. @default 0 */
  readonly maxBodyBytes?: number
  /**
   * The body is written to a temp file as it arrives (`bodyFile`), never held whole in memory: for bodies
   * up to hundreds of MiB (admin NDJSON). Otherwise it is buffered (`body`) within the server's budget of
   * buffered bodies (docs/access.md, "Bodies"). @default false
   */
  readonly spoolBody?: boolean
  readonly summary: string
  readonly description?: string
  readonly tags: readonly string[]
}
