/**
 * @module
 * The SSRF guard at connect time: an undici connector that checks the address each socket actually
 * connects to. A literal-IP host is checked before connecting (undici's `connect.lookup` is not called for
 * literal IPs, nodejs/undici#2019); a name is resolved by a lookup that drops every refused address and
 * fails when none is left, so the address checked is the address connected to, and a name whose DNS
 * answer changed since registration (DNS rebinding) is refused here. The rule is address-policy.ts.
 *
 * TLS: without `ca`, Node's default trust store is used, which includes NODE_EXTRA_CA_CERTS (read by Node
 * at process start); `ca` replaces it (tests in one process pass a test CA plus `tls.rootCertificates`).
 */
import dns from 'node:dns'
import net from 'node:net'
import { buildConnector } from 'undici'
import type { AddressPolicy } from '../../engine/webhooks/address-policy.js'
import type { Resolve } from '../../engine/webhooks/url-check.js'

/** Error of a refused address; its message names the address and its range. */
export class BlockedAddressError extends Error {
  readonly code = 'WEBHOOK_ADDRESS_REFUSED'
  constructor(message: string) {
    super(message)
    this.name = 'BlockedAddressError'
  }
}

type LookupAll = (err: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void
type LookupOne = (err: NodeJS.ErrnoException | null, address: string, family: number) => void

/** A `net.connect` lookup resolving with `resolve` and keeping only addresses the policy allows. */
export function guardedLookup(policy: AddressPolicy, resolve: Resolve | undefined) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupAll | LookupOne): void => {
    const found: Promise<readonly { address: string; family: number }[]> = resolve
      ? resolve(hostname)
      : dns.promises.lookup(hostname, {
          all: true,
          verbatim: true,
          ...(options.family ? { family: options.family } : {})
        })
    found.then(
      (addrs) => {
        const allowed: dns.LookupAddress[] = []
        let why = ''
        for (const a of addrs) {
          const refusal = policy.refusal(a.address)
          if (refusal === null) allowed.push({ address: a.address, family: a.family })
          else why ||= refusal
        }
        if (allowed.length === 0) {
          const err = new BlockedAddressError(`refused: ${hostname} resolves to ${why || 'no address'}`)
          if (options.all) (callback as LookupAll)(err, [])
          else (callback as LookupOne)(err, '', 0)
          return
        }
        if (options.all) (callback as LookupAll)(null, allowed)
        else (callback as LookupOne)(null, allowed[0]!.address, allowed[0]!.family)
      },
      (err: NodeJS.ErrnoException) => {
        if (options.all) (callback as LookupAll)(err, [])
        else (callback as LookupOne)(err, '', 0)
      }
    )
  }
}

export interface GuardedConnectOptions {
  readonly policy: AddressPolicy
  /** resolver override (tests: a stub DNS); default node's dns.lookup */
  readonly resolve?: Resolve
  /** trusted CAs replacing Node's default store (tests); default: Node's store incl. NODE_EXTRA_CA_CERTS */
  readonly ca?: readonly string[]
  /** TCP + TLS handshake limit, ms */
  readonly connectTimeoutMs: number
}

/** An undici `connect` function that refuses addresses the policy refuses. */
export function guardedConnector(o: GuardedConnectOptions): buildConnector.connector {
  const connect = buildConnector({
    timeout: o.connectTimeoutMs,
    lookup: guardedLookup(o.policy, o.resolve) as never,
    ...(o.ca ? { ca: [...o.ca] } : {})
  })
  return (opts, callback) => {
    const raw = opts.hostname
    const host = raw.startsWith('[') && raw.endsWith(']') ? raw.slice(1, -1) : raw
    if (net.isIP(host) !== 0) {
      const why = o.policy.refusal(host)
      if (why !== null) {
        callback(new BlockedAddressError(`refused: ${why}`), null)
        return
      }
    }
    connect(opts, callback)
  }
}
