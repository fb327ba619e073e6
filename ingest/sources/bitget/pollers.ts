/**
 * @module
 * REST polling of what Bitget does not stream: the accounts long/short ratio
 * (`/api/v2/mix/market/account-long-short`, 5-minute readings, one market per call, several readings per
 * answer). Bitget allows one such request a second per IP, so a pass over ~500 markets at the default 30
 * a minute takes about 17 minutes; each answer carries the recent readings, and the normalizer keeps
 * every reading it has not seen, so a slow pass loses none.
 */
import { pollEach } from '../feed/poll-each.js'
import { longShortPath, type BitgetRest } from './rest.js'

/** Polls every market in `symbols()` once per `everyMs` (one request at a time) until `signal` aborts. */
export async function pollLongShort(
  rest: BitgetRest,
  symbols: () => readonly string[],
  everyMs: number,
  signal: AbortSignal
): Promise<void> {
  await pollEach(symbols, { everyMs, concurrency: 1 }, (s) => rest.fetch(longShortPath(s), signal), signal)
}
