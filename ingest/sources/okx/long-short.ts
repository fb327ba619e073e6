/**
 * @module
 * Long/short polling. OKX publishes the accounts long/short ratio per coin over REST only
 * (`/api/v5/rubik/stat/contracts/long-short-account-ratio?ccy=&period=5m`: rows `[ts, ratio]`, the ratio
 * of accounts net long to accounts net short over the coin's OKX contracts, one reading per 5 minutes) and
 * only for the coins listed by `/api/v5/rubik/stat/trading-data/support-coin` (`data.contract`). Each pass
 * asks once per followed coin that has statistics; the normalizer keeps only readings it has not seen.
 */
import { pollEach } from '../feed/poll-each.js'
import { longShortPath, type OkxRest } from './rest.js'

/** Coins with contract statistics from a support-coin answer; null when the text is not one. */
export function statisticsCoins(text: string): Set<string> | null {
  try {
    const body = JSON.parse(text) as { code?: unknown; data?: { contract?: unknown } }
    const list = body.code === '0' ? body.data?.contract : undefined
    return Array.isArray(list) ? new Set(list.filter((c): c is string => typeof c === 'string')) : null
  } catch {
    return null
  }
}

/** Polls the ratio of every coin in `coins()` once per `everyMs` until `signal` aborts (one request at a time). */
export async function pollLongShort(
  rest: OkxRest,
  coins: () => readonly string[],
  everyMs: number,
  signal: AbortSignal
): Promise<void> {
  await pollEach(coins, { everyMs, concurrency: 1 }, (ccy) => rest.fetch(longShortPath(ccy), signal), signal)
}
