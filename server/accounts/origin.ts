/**
 * @module
 * Same-origin check of browser requests (docs/accounts.md, "CSRF"). Browsers send `Origin` on every POST,
 * PUT, PATCH and DELETE and on WebSocket upgrades; when it is present it must name this server: its host
 * (with port) equal to the `Host` header, or to `X-Forwarded-Host` set by a trusted proxy. `Origin: null`
 * (sandboxed frames, some redirects) is refused. No Origin (a non-browser client) passes: those carry no
 * ambient cookie an attacker could ride on.
 */
import { ApiError } from '../../engine/errors.js'

function expectedHost(headers: Readonly<Record<string, string>>, trustedHops: number): string | undefined {
  const forwarded = trustedHops > 0 ? headers['x-forwarded-host'] : undefined
  if (forwarded) {
    const hops = forwarded.split(',').map((s) => s.trim())
    return hops[Math.max(0, hops.length - trustedHops)]?.toLowerCase()
  }
  return headers['host']?.toLowerCase()
}

/** Whether the request's Origin, when present, is this server. */
export function sameOrigin(headers: Readonly<Record<string, string>>, trustedHops: number): boolean {
  const origin = headers['origin']
  if (origin === undefined) return true
  let host: string
  try {
    host = new URL(origin).host.toLowerCase()
  } catch {
    return false // "null" and anything else that is not a URL
  }
  return host !== '' && host === expectedHost(headers, trustedHops)
}

export function csrfFailed(why: string): ApiError {
  return new ApiError('csrf_failed', why)
}

/** 403 csrf_failed unless the Origin, when present, is this server. */
export function requireSameOrigin(headers: Readonly<Record<string, string>>, trustedHops: number): void {
  if (!sameOrigin(headers, trustedHops)) {
    throw csrfFailed('the Origin header does not name this server; cross-site requests are refused')
  }
}
