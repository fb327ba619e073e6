/**
 * @module
 * REST polling of what Binance does not stream: open interest (`/fapi/v1/openInterest`, one symbol per
 * call, no bulk form) and the global accounts long/short ratio (`/futures/data/globalLongShortAccountRatio`,
 * 5-minute readings). Each pass walks the current market list with a few requests in flight; the rate
 * limiters in BinanceRest spread them out, so a pass over ~500 markets takes about half a minute.
 */
import { pollEach } from '../feed/poll-each.js'
import { WEIGHT, type BinanceRest } from './rest.js'

/** Requests in flight per poller: hides round-trip time without bursting (the limiter paces anyway). */
const CONCURRENCY = 4

export interface PollPlan {
  /** time between the starts of two passes, ms */
  readonly everyMs: number
  /** request path of one market */
  readonly path: (symbol: string) => string
  readonly weight: number
}

export const OPEN_INTEREST_PLAN = (everyMs: number): PollPlan => ({
  everyMs,
  path: (s) => `/fapi/v1/openInterest?symbol=${s}`,
  weight: WEIGHT.openInterest
})

export const LONG_SHORT_PLAN = (everyMs: number): PollPlan => ({
  everyMs,
  path: (s) => `/futures/data/globalLongShortAccountRatio?symbol=${s}&period=5m&limit=1`,
  weight: WEIGHT.statistics
})

/** Polls every market in `symbols()` once per `plan.everyMs` until `signal` aborts. */
export async function pollMarkets(
  rest: BinanceRest,
  symbols: () => readonly string[],
  plan: PollPlan,
  signal: AbortSignal
): Promise<void> {
  const passes = { everyMs: plan.everyMs, concurrency: CONCURRENCY }
  await pollEach(symbols, passes, (symbol) => rest.fetch(plan.path(symbol), plan.weight, signal), signal)
}
