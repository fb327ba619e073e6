/**
 * @module
 * The typed client of the Tidewatch /v1 API: openapi-fetch calls over the types openapi-typescript generates
 * from the service's OpenAPI document (schema.d.ts, `npm run client:generate`). Each method answers the
 * success body of its route, typed by path and method; any other answer throws a TidewatchError carrying the
 * API's error envelope (`{"error":{"code","message","param"?}}`).
 */
import createFetchClient, {
  type ClientOptions,
  type FetchResponse,
  type MaybeOptionalInit,
  type Middleware
} from 'openapi-fetch'
import type {
  HttpMethod,
  PathsWithMethod,
  RequestBodyJSON,
  RequiredKeysOf,
  SuccessResponseJSON
} from 'openapi-typescript-helpers'
import type { components, operations, paths } from './schema.js'

export type { components, operations, paths }

/** The JSON success body of a route, e.g. `Answer<'/v1/confirm'>` or `Answer<'/v1/account/keys', 'post'>`. */
export type Answer<P extends keyof paths, M extends HttpMethod = 'get'> = SuccessResponseJSON<
  paths[P][M] & Record<string | number, unknown>
>

/** The JSON body a route takes, e.g. `RequestBody<'/v1/webhooks', 'post'>`. */
export type RequestBody<P extends keyof paths, M extends HttpMethod> = RequestBodyJSON<paths[P][M]>

/** The API's error envelope (one catalogue of codes: engine/errors.ts). */
export type ApiErrorBody = components['schemas']['Error']
export type ErrorCode = ApiErrorBody['error']['code']

/**
 * A non-2xx answer. `code` is the envelope's code; `http_error` when the answer carried no envelope (a
 * proxy's error page), whose text, if any, is the message.
 */
export class TidewatchError extends Error {
  override readonly name = 'TidewatchError'
  constructor(
    /** the HTTP status */
    readonly status: number,
    readonly code: ErrorCode | 'http_error',
    message: string,
    /** the envelope's `error` object; null without one */
    readonly detail: ApiErrorBody['error'] | null
  ) {
    super(message)
  }

  /** The parameter or field at fault, when the API names one. */
  get param(): string | undefined {
    return this.detail?.param
  }
}

export interface TidewatchClientOptions {
  /** origin of the service, e.g. `http://127.0.0.1:8080`; '' for the page's own origin (browser) */
  readonly baseUrl: string
  /** sent as X-API-Key on every call; omit for public routes or cookie sessions */
  readonly apiKey?: string
  /** @default 'same-origin' (the browser sends the session cookie to its own origin only) */
  readonly credentials?: 'omit' | 'same-origin' | 'include'
  /** @default globalThis.fetch */
  readonly fetch?: ClientOptions['fetch']
}

type Media = `${string}/${string}`
/** The init argument: optional when the route has no required parameter or body (as openapi-fetch). */
type InitParam<Init> =
  RequiredKeysOf<Init> extends never ? [(Init & { [key: string]: unknown })?] : [Init & { [key: string]: unknown }]
/** The success body of a call: its JSON answer (undefined for 204). */
type Data<Op> = Op extends Record<string | number, unknown> ? SuccessResponseJSON<Op> : never

type DataMethod<M extends HttpMethod> = <
  Path extends PathsWithMethod<paths, M>,
  Init extends MaybeOptionalInit<paths[Path], M>
>(
  url: Path,
  ...init: InitParam<Init>
) => Promise<Data<paths[Path][M]>>

export interface TidewatchClient {
  readonly GET: DataMethod<'get'>
  readonly POST: DataMethod<'post'>
  readonly PUT: DataMethod<'put'>
  readonly PATCH: DataMethod<'patch'>
  readonly DELETE: DataMethod<'delete'>
  /** openapi-fetch middleware, e.g. headers decided per request */
  use(...middleware: Middleware[]): void
}

/** The error a failed answer throws; `body` is what openapi-fetch parsed (JSON, else text). */
export function toTidewatchError(response: Response, body: unknown): TidewatchError {
  const detail = (body as Partial<ApiErrorBody> | null)?.error
  if (detail && typeof detail.code === 'string' && typeof detail.message === 'string') {
    return new TidewatchError(response.status, detail.code, detail.message, detail)
  }
  const text = typeof body === 'string' && body ? body : response.statusText || `HTTP ${response.status}`
  return new TidewatchError(response.status, 'http_error', text, null)
}

export function createClient(options: TidewatchClientOptions): TidewatchClient {
  const raw = createFetchClient<paths>({
    baseUrl: options.baseUrl,
    credentials: options.credentials ?? 'same-origin',
    headers: options.apiKey ? { 'x-api-key': options.apiKey } : {},
    ...(options.fetch ? { fetch: options.fetch } : {})
  })
  const call =
    (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE') =>
    async (url: string, init?: object): Promise<unknown> => {
      const r = await (raw[method] as (u: string, i?: object) => Promise<FetchResponse<{}, {}, Media>>)(url, init)
      if (r.error !== undefined || !r.response.ok) throw toTidewatchError(r.response, r.error)
      return r.data
    }
  // the casts restore the per-path signatures the generic wrapper cannot spell; `call` passes init through
  return {
    GET: call('GET') as DataMethod<'get'>,
    POST: call('POST') as DataMethod<'post'>,
    PUT: call('PUT') as DataMethod<'put'>,
    PATCH: call('PATCH') as DataMethod<'patch'>,
    DELETE: call('DELETE') as DataMethod<'delete'>,
    use: (...m) => raw.use(...m)
  }
}
