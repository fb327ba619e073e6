/**
 * @module
 * Registration-time check of a webhook URL: https:// only, no credentials, and a host that is neither an
 * address the SSRF rule refuses (address-policy.ts) nor a name resolving to one. A name that does not
 * resolve is refused too (no receiver can be there). This is the early, friendly answer; the guard that
 * counts runs again at connect time on the address actually connected to (server/webhooks/guarded-connect.ts),
 * so a name whose DNS answer changes later (DNS rebinding) is still refused.
 */
import dns from 'node:dns'
import net from 'node:net'
import { ApiError } from '../errors.js'
import type { AddressPolicy } from './address-policy.js'

/** A resolver: every address of a name (node's dns.lookup with `all: true` by default). */
export type Resolve = (hostname: string) => Promise<readonly { readonly address: string; readonly family: number }[]>

export const systemResolve: Resolve = (hostname) => dns.promises.lookup(hostname, { all: true, verbatim: true })

/** Longest wait for DNS at registration, ms. */
const RESOLVE_TIMEOUT_MS = 5_000
/** Longest URL accepted, characters. */
export const MAX_URL_LENGTH = 2_048

const bad = (message: string): ApiError => new ApiError('invalid_parameter', message, { param: 'url' })

/** The host of a parsed URL as an address or name: IPv6 without brackets. */
export function hostOf(url: URL): string {
  const h = url.hostname
  return h.startsWith('[') && h.endsWith(']') ? h.slice(1, -1) : h
}

/** Throws 400 naming `url` and why, or returns the parsed URL. */
export async function checkWebhookUrl(raw: string, policy: AddressPolicy, resolve: Resolve): Promise<URL> {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw bad('url must be an absolute https:// URL')
  }
  if (url.protocol !== 'https:') throw bad('url must begin with https://')
  if (url.username !== '' || url.password !== '') throw bad('url must not carry a user name or password')
  const host = hostOf(url)
  // the URL parser has already turned 2130706433, 0177.0.0.1 and 127.1 into 127.0.0.1
  if (net.isIP(host) !== 0) {
    const why = policy.refusal(host)
    if (why) throw bad(`url is refused: ${why}; webhooks are delivered to public addresses only`)
    return url
  }
  let addrs: readonly { address: string }[]
  try {
    addrs = await withTimeout(resolve(host), RESOLVE_TIMEOUT_MS)
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'timeout'
    throw bad(`url host ${host} does not resolve (${code})`)
  }
  if (addrs.length === 0) throw bad(`url host ${host} does not resolve`)
  for (const a of addrs) {
    const why = policy.refusal(a.address)
    if (why) throw bad(`url is refused: ${host} resolves to ${why}; webhooks are delivered to public addresses only`)
  }
  return url
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const t = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error('DNS timeout'), { code: 'timeout' })), ms)
  })
  return Promise.race([p, t]).finally(() => clearTimeout(timer))
}
