/**
 * @module
 * `ALERT_ALLOWED_IPS`: the addresses inbound alerts are accepted from (defence in depth on top of the
 * secret). A comma list of IPv4/IPv6 addresses and CIDRs; the word `tradingview` stands for TradingView's
 * published webhook senders. Empty: any address. The client address is the one `TRUSTED_PROXY_HOPS` makes
 * of `X-Forwarded-For` (server/access/client-ip.ts); IPv4-mapped IPv6 (`::ffff:a.b.c.d`) is read as IPv4.
 */
import ipaddr from 'ipaddr.js'

/**
 * TradingView's webhook senders (tradingview.com/support/solutions/43000529348, read 2025; IPv4 only,
 * ports 80 and 443). They can change: check that page when alerts are refused after a TradingView update.
 */
export const TRADINGVIEW_SENDER_IPS: readonly string[] = [
  '52.89.214.238',
  '34.212.75.30',
  '54.218.53.128',
  '52.32.178.7'
]

/** The word in ALERT_ALLOWED_IPS that stands for TRADINGVIEW_SENDER_IPS. */
export const TRADINGVIEW_WORD = 'tradingview'

type Address = ipaddr.IPv4 | ipaddr.IPv6

/**
 * Reads an allow-list as normalized CIDRs (`52.89.214.238/32`, `fd00::/8`). Throws an Error naming the
 * entry at fault; the configuration prefixes the variable's name.
 */
export function parseAllowList(raw: string): string[] {
  const out: string[] = []
  for (const item of raw.split(',')) {
    const s = item.trim()
    if (s === '') continue
    const entries = s.toLowerCase() === TRADINGVIEW_WORD ? TRADINGVIEW_SENDER_IPS : [s]
    for (const e of entries) {
      const text = e.includes('/') ? e : `${e}/${ipaddr.isValid(e) && ipaddr.parse(e).kind() === 'ipv6' ? 128 : 32}`
      let cidr: [Address, number]
      try {
        cidr = ipaddr.parseCIDR(text)
      } catch {
        throw new Error(`'${s}' is not an address, a CIDR (52.89.214.0/24, fd00::/8) or '${TRADINGVIEW_WORD}'`)
      }
      const norm = `${cidr[0].toString()}/${cidr[1]}`
      if (!out.includes(norm)) out.push(norm)
    }
  }
  return out
}

export class SenderAllowList {
  private readonly nets: readonly [Address, number][]

  /** @param cidrs normalized by `parseAllowList`; empty allows every address */
  constructor(cidrs: readonly string[]) {
    this.nets = cidrs.map((c) => ipaddr.parseCIDR(c))
  }

  get restricted(): boolean {
    return this.nets.length > 0
  }

  /** Whether an alert from `ip` (textual, as the socket or X-Forwarded-For gives it) is accepted. */
  allows(ip: string): boolean {
    if (this.nets.length === 0) return true
    const text = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip
    if (!ipaddr.isValid(text)) return false
    const addr = ipaddr.process(text)
    for (const [net, bits] of this.nets) {
      if (net.kind() === addr.kind() && addr.match(net as never, bits)) return true
    }
    return false
  }
}
