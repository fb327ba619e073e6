/**
 * @module
 * REST polling of what Bybit does not stream: the accounts long/short ratio (`/v5/market/account-ratio`,
 * 5-minute readings, one symbol per call). Each pass walks the current market list with a few requests in
 * flight; the limiter in BybitRest paces them (about 550 markets at 300 a minute: a pass takes ~2 minutes).
 */
import { pollEach } from '../feed/poll-each.js'
import { accountRatioPath, type BybitRest } from './rest.js'

/** Requests in flight: hides round-trip time without bursting (the limiter paces anyway). */
const CONCURRENCY = 4

/** Polls every market in `symbols()` once per `everyMs` until `signal` aborts. */
export async function pollLongShort(
  rest: BybitRest,
  symbols: () => readonly string[],
  everyMs: number,
  signal: AbortSignal
): Promise<void> {
  await pollEach(symbols, { everyMs, concurrency: CONCURRENCY }, (s) => rest.fetch(accountRatioPath(s), signal), signal)
}
