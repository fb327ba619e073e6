/**
 * @module
 * The security headers of every dashboard answer. The Content-Security-Policy allows only this origin:
 * scripts, styles, fonts and images from 'self' (Vite emits no inline script; the build sets no
 * modulepreload polyfill), no plugins, no framing (`frame-ancestors 'none'`), and fetches and the push
 * stream to this origin: `connect-src 'self'` plus `ws://` and `wss://` to the Host the browser used
 * (CSP Level 2 browsers do not count WebSockets as 'self'). A Host header that is not a plain
 * `name[:port]` or `[v6][:port]` is left out of the policy (the stream then only works where 'self'
 * covers WebSockets), never copied into a header.
 */

/** `example.com`, `127.0.0.1:8080`, `[::1]:8080`: what a browser sends as Host. */
const PLAIN_HOST = /^(?:[A-Za-z0-9.-]{1,253}|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/

const BASE_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'"
].join('; ')

/** The policy for a request that named `host` (the Host header, possibly empty). */
export function contentSecurityPolicy(host: string): string {
  const connect = PLAIN_HOST.test(host) ? `connect-src 'self' ws://${host} wss://${host}` : "connect-src 'self'"
  return `${BASE_POLICY}; ${connect}`
}

/** Headers every dashboard answer carries besides the policy. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin'
})
