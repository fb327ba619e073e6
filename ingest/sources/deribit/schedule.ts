/**
 * @module
 * When the Deribit adapter looks at the instrument list again, and what it polls. Options expire (and the
 * next daily is listed) at 08:00 UTC, so besides the hourly rediscovery there is one just after every
 * 08:00 UTC; expired instruments then leave the poll list. Quotes are polled per currency (one request
 * answers the whole chain) or, when DERIBIT_SYMBOLS restricts the feed, per instrument.
 */
import { DERIBIT_PATHS, type InstrumentMeta } from '../../normalize/deribit-instruments.js'
import type { RpcParams } from './rpc-socket.js'

const HOUR_MS = 3_600_000
const DAY_MS = 86_400_000
/** Deribit's expiry time of day, ms after 00:00 UTC (08:00 UTC). */
const EXPIRY_TIME_OF_DAY_MS = 8 * HOUR_MS
/** Wait after 08:00 UTC before rediscovering: the venue delists and lists around the settlement. */
export const EXPIRY_GRACE_MS = 60_000

/** Epoch ms of the next rediscovery: `everyMs` after `now`, or just after the next 08:00 UTC if sooner. */
export function nextDiscoveryAt(now: number, everyMs: number): number {
  const today = Math.floor(now / DAY_MS) * DAY_MS + EXPIRY_TIME_OF_DAY_MS + EXPIRY_GRACE_MS
  const nextExpiry = today > now ? today : today + DAY_MS
  return Math.min(now + everyMs, nextExpiry)
}

export interface PollRequest {
  /** JSON-RPC method without the leading slash */
  readonly method: string
  readonly params: RpcParams
}

/**
 * Book summary requests of one poll pass: per currency when `perInstrument` is false, else one per
 * instrument that has not expired at `now`.
 */
export function pollRequests(
  currencies: readonly string[],
  instruments: readonly InstrumentMeta[],
  perInstrument: boolean,
  now: number
): PollRequest[] {
  if (!perInstrument) {
    const method = DERIBIT_PATHS.bookSummaryByCurrency.slice(1)
    return currencies.map((currency) => ({ method, params: { currency, kind: 'option' } }))
  }
  const method = DERIBIT_PATHS.bookSummaryByInstrument.slice(1)
  return instruments.filter((i) => i.expiryMs > now).map((i) => ({ method, params: { instrument_name: i.name } }))
}
