/**
 * @module
 * The session cookie `tw_session`: read from the Cookie header, written with Set-Cookie. Flags: HttpOnly
 * (no script reads it), SameSite=Lax (not sent on cross-site subrequests or cross-site POSTs), Path=/,
 * Max-Age = the session's absolute lifetime, and Secure when the request came over TLS (docs/accounts.md,
 * "Cookies": this server speaks plain HTTP, so that means `X-Forwarded-Proto: https` set by a trusted
 * proxy, TRUSTED_PROXY_HOPS > 0).
 */
import { SESSION_MAX_MS } from '../../engine/accounts/sessions.js'

export const SESSION_COOKIE = 'tw_session'

/** The value of cookie `name` in a Cookie header, or undefined. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined
  for (const part of header.split(';')) {
    const eq = part.indexOf('=')
    if (eq < 0) continue
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim()
  }
  return undefined
}

/**
 * Whether the client reached us over TLS: the scheme the outermost trusted proxy saw in X-Forwarded-Proto
 * (the `trustedHops`-th entry from the right, like X-Forwarded-For in server/access/client-ip.ts). With no
 * trusted proxy the header is ignored (any client could send it) and the answer is false: the server itself
 * does not terminate TLS.
 */
export function cameOverTls(headers: Readonly<Record<string, string>>, trustedHops: number): boolean {
  const proto = headers['x-forwarded-proto']
  if (trustedHops <= 0 || !proto) return false
  const hops = proto
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean)
  return hops[Math.max(0, hops.length - trustedHops)] === 'https'
}

function flags(secure: boolean): string {
  return `Path=/; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`
}

export function sessionCookie(rawId: string, secure: boolean): string {
  return `${SESSION_COOKIE}=${rawId}; Max-Age=${Math.floor(SESSION_MAX_MS / 1000)}; ${flags(secure)}`
}

export function clearedCookie(secure: boolean): string {
  return `${SESSION_COOKIE}=; Max-Age=0; ${flags(secure)}`
}
