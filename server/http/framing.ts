/**
 * @module
 * The declared length of a request body, from every `Content-Length` header the request carries (the
 * HTTP layer frames the body by the first one it sees, a proxy in front may take another: a
 * request-smuggling risk, RFC 9112 section 6.3). Copies of one value, repeated or as a comma list
 * (`5, 5`), are that value; differing values, a value that is not a decimal number, or `Content-Length`
 * beside `Transfer-Encoding` answer 400 `invalid_request`, and the adapter closes the connection (where
 * the next request starts is not known). uWS 20.30 already closes the last case unanswered before any
 * handler runs; the check stays so that a build that lets it through is still refused.
 */
import { ApiError } from '../../engine/errors.js'

const DIGITS = /^[0-9]+$/

function ambiguous(why: string): ApiError {
  return new ApiError('invalid_request', `the request's body length is ambiguous: ${why}; the connection is closed`)
}

/**
 * `values`: every Content-Length header value, in order (at least one); `transferEncoding`: the request
 * also has a Transfer-Encoding header. Returns the length in bytes (possibly beyond 2^53 for absurd values:
 * still above any limit).
 */
export function declaredLength(values: readonly string[], transferEncoding: boolean): number | ApiError {
  if (transferEncoding) return ambiguous('both Content-Length and Transfer-Encoding are sent')
  let length: string | null = null
  for (const value of values) {
    for (const part of value.split(',')) {
      const v = part.trim()
      if (!DIGITS.test(v)) return ambiguous(`Content-Length '${v.slice(0, 32)}' is not a number of bytes`)
      if (length !== null && Number(v) !== Number(length)) {
        return ambiguous(`Content-Length is sent as both ${length} and ${v}`)
      }
      length = v
    }
  }
  return Number(length)
}
