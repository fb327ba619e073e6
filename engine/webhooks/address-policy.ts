/**
 * @module
 * Which addresses a webhook may be delivered to (the SSRF guard's rule, docs/webhooks.md). Only globally routable
 * unicast addresses pass: ipaddr.js classifies every address into its special-purpose range (loopback,
 * private, link-local incl. the cloud metadata address 169.254.169.254, carrier-grade NAT 100.64/10,
 * multicast, broadcast, unspecified 0.0.0.0 and ::, reserved and documentation ranges, IPv6 unique-local,
 * NAT64, 6to4, Teredo, ...) and anything but `unicast` is refused. IPv4-mapped and IPv4-compatible IPv6
 * forms (`::ffff:127.0.0.1`) are judged as the IPv4 address they carry. No address is parsed by hand: the
 * URL parser normalizes decimal, octal and hex host forms (`2130706433`, `0177.0.0.1`, `127.1`), and
 * ipaddr.js reads the result.
 *
 * `WEBHOOK_ALLOW_PRIVATE` (a CIDR list, empty by default) lets tests and private deployments deliver to
 * ranges the rule refuses, e.g. `127.0.0.1/32` for a receiver on the same machine.
 */
import ipaddr from 'ipaddr.js'

type Address = ipaddr.IPv4 | ipaddr.IPv6
type Cidr = [Address, number]

/** What a person reads for each refused range. */
const RANGE_NAMES: Readonly<Record<string, string>> = {
  unspecified: 'an unspecified address',
  broadcast: 'the broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address (this range holds the cloud metadata service 169.254.169.254)',
  loopback: 'a loopback address',
  carrierGradeNat: 'a carrier-grade NAT address (100.64.0.0/10)',
  private: 'a private address',
  reserved: 'a reserved address',
  uniqueLocal: 'an IPv6 unique-local (private) address',
  ipv4Mapped: 'an IPv4-mapped IPv6 address',
  rfc6145: 'an IPv4-translated IPv6 address',
  rfc6052: 'a NAT64 address',
  '6to4': 'a 6to4 address',
  teredo: 'a Teredo address',
  discard: 'a discard-only address',
  benchmarking: 'a benchmarking address',
  deprecatedSiteLocal: 'a deprecated IPv6 site-local address'
}

export class AddressPolicy {
  private readonly allowed: readonly Cidr[]

  /** @param allowPrivate CIDRs allowed despite the rule (`WEBHOOK_ALLOW_PRIVATE`); validate with `parseCidrList` */
  constructor(allowPrivate: readonly string[] = []) {
    this.allowed = allowPrivate.map((c) => ipaddr.parseCIDR(c) as Cidr)
  }

  /**
   * Why `ip` (a literal address, as DNS or the URL parser gives it; IPv6 with or without brackets) is refused,
   * or null when deliveries may go there.
   */
  refusal(ip: string): string | null {
    const text = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip
    if (!ipaddr.isValid(text)) return `${ip} is not an IP address`
    // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible forms become the IPv4 address they carry
    const addr = ipaddr.process(text)
    if (this.isAllowed(addr)) return null
    const range = addr.range()
    if (range === 'unicast') return null
    return `${addr.toString()} is ${RANGE_NAMES[range] ?? `a special-purpose address (${range})`}`
  }

  private isAllowed(addr: Address): boolean {
    for (const [net, bits] of this.allowed) {
      if (net.kind() === addr.kind() && addr.match(net as never, bits)) return true
    }
    return false
  }
}

/** Reads a comma list of CIDRs (`127.0.0.1/32, ::1/128`); a bare address means that one address. Throws naming the item. */
export function parseCidrList(raw: string): string[] {
  const out: string[] = []
  for (const item of raw.split(',')) {
    const s = item.trim()
    if (s === '') continue
    const withBits = s.includes('/') ? s : `${s}/${ipaddr.isValid(s) && ipaddr.parse(s).kind() === 'ipv6' ? 128 : 32}`
    try {
      const [net, bits] = ipaddr.parseCIDR(withBits)
      out.push(`${net.toString()}/${bits}`)
    } catch {
      throw new Error(`'${s}' is not a CIDR such as 127.0.0.1/32 or fd00::/8`)
    }
  }
  return out
}
