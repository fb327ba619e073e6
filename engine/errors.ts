/**
 * @module
 * The one catalogue of API error codes. Every error a client sees is an `ApiError` with a stable `code`,
 * the HTTP status attached here, a `message` written for a person, and `param` when one parameter is at
 * fault. The envelope is `{"error":{"code","message","param"?,"correlation_id"?}}`. Stack traces, SQL and
 * causes stay in logs.
 */

export const ERROR_STATUS = {
  invalid_parameter: 400,
  invalid_record: 400,
  invalid_body: 400,
  unknown_symbol: 400,
  /** the body's length is ambiguous (differing Content-Length headers, or one beside Transfer-Encoding) */
  invalid_request: 400,
  unauthorized: 401,
  /** accounts: wrong email or password (the same answer whether the email exists or not) */
  invalid_credentials: 401,
  forbidden: 403,
  /** accounts: a state change under a session cookie without the session's X-CSRF-Token, or cross-site */
  csrf_failed: 403,
  not_found: 404,
  method_not_allowed: 405,
  /** accounts: the email already has an account */
  conflict: 409,
  payload_too_large: 413,
  /** a plain HTTP request to the push stream's WebSocket endpoint */
  upgrade_required: 426,
  unsupported_media_type: 415,
  rate_limited: 429,
  quota_exceeded: 429,
  internal: 500,
  unavailable: 503,
  /** the service is starting: its live state or first backfill is not complete (Retry-After) */
  warming_up: 503,
  // chain nodes and node intelligence (engine/chain, docs/node-intel.md)
  /** an address that holds no contract code where a token was expected */
  not_a_contract: 404,
  /** the chain's node did not answer in time or refused the connection (names the chain) */
  chain_unavailable: 503,
  /** the chain's node reports another chain id than the chain's (names both) */
  chain_mismatch: 503,
  /** no node is configured for the chain (names the variable to set) */
  chain_not_configured: 503
} as const

export type ErrorCode = keyof typeof ERROR_STATUS

/**
 * Error codes of the push stream (docs/stream.md): sent in `error` frames and in the per-channel errors
 * of an `ack`; HTTP codes above apply to the upgrade request. Close codes: 1008 over a limit,
 * 4008 slow consumer, 1001 server shutting down.
 */
export const STREAM_ERRORS = {
  invalid_message: 'the frame is not a JSON (or MessagePack) object with an op',
  message_too_large: 'the frame is larger than the client message limit',
  unknown_op: 'op is not subscribe, unsubscribe or ping',
  invalid_parameter: 'a field of the op is missing or has the wrong type',
  unknown_channel: 'the channel type does not exist',
  invalid_channel: 'the channel name is malformed (symbol, timeframe, chain, significance)',
  unknown_symbol: 'no perpetual market for the symbol',
  forbidden: "the symbol is outside the key's plan",
  subscription_limit: "more subscriptions than the key's plan allows per connection",
  not_subscribed: 'unsubscribe from a channel the connection is not subscribed to',
  too_many_pending: 'more ops in flight than a connection may queue; the op was not processed',
  connection_limit: "more open connections than the key's plan allows",
  slow_consumer: 'the connection fell too far behind and is being closed',
  internal: 'the server failed to build a snapshot; retry the subscribe'
} as const

export type StreamErrorCode = keyof typeof STREAM_ERRORS

const kApiError = Symbol.for('tidewatch.error.api')

export interface ApiErrorOptions {
  readonly param?: string
  readonly cause?: unknown
  /** extra response headers (e.g. Allow, Retry-After, WWW-Authenticate) */
  readonly headers?: Readonly<Record<string, string>>
  /** extra machine-readable fields for the envelope, e.g. `{ line: 7 }` for a bad NDJSON line */
  readonly details?: Readonly<Record<string, string | number>>
}

export class ApiError extends Error {
  readonly code: ErrorCode
  readonly status: number
  readonly param: string | undefined
  readonly headers: Readonly<Record<string, string>>
  readonly details: Readonly<Record<string, string | number>>
  readonly [kApiError] = true

  constructor(code: ErrorCode, message: string, opts: ApiErrorOptions = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause })
    this.name = 'ApiError'
    this.code = code
    this.status = ERROR_STATUS[code]
    this.param = opts.param
    this.headers = opts.headers ?? {}
    this.details = opts.details ?? {}
  }

  /** Brand check that survives duplicate copies of this module (undici's pattern). */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[kApiError] === true
  }
}

export interface ErrorBody {
  readonly error: {
    readonly code: ErrorCode
    readonly message: string
    readonly param?: string
    readonly correlation_id?: string
    readonly [detail: string]: string | number | undefined
  }
}

export function errorBody(err: ApiError, correlationId?: string): ErrorBody {
  return {
    error: {
      code: err.code,
      message: err.message,
      ...err.details,
      ...(err.param === undefined ? {} : { param: err.param }),
      ...(correlationId === undefined ? {} : { correlation_id: correlationId })
    }
  }
}
