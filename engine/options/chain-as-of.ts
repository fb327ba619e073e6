/**
 * @module
 * `GET /v1/options/chain?as_of=T`: the chain of a currency at T from the quotes received by `known_by`, with
 * the live book's own code (engine/live/options-book.ts) fed the store's snapshot at T (chain-load.ts), so the
 * answer is the one the live endpoint gave at T when every quote of then had arrived by then.
 */
import { oldestKnown } from '../asof/known-at.js'
import { pointInTimeInfo, type PointInTime, type PointInTimeInfo } from '../asof/point-in-time.js'
import { OptionsBook } from '../live/options-book.js'
import type { Store } from '../store/store.js'
import { loadChainQuotes } from './chain-load.js'
import type { ChainSummary, OptionsCurrency } from './chain-types.js'

export type ChainAsOf = ChainSummary & { readonly point_in_time: PointInTimeInfo }

/** The chain of `currency` at `pit.asOfMs` from the quotes received by `pit.knownByMs`. */
export async function chainAsOf(
  store: Store,
  currency: OptionsCurrency,
  pit: PointInTime,
  nowMs: number
): Promise<ChainAsOf> {
  const [quotes, oldest] = await Promise.all([
    loadChainQuotes(store, { asOfMs: pit.asOfMs, knownByMs: pit.knownByMs }, nowMs, [currency]),
    oldestKnown(store, 'option_quotes', pit.knownByMs)
  ])
  const book = new OptionsBook()
  book.reset(quotes)
  return { ...book.chain(currency, pit.asOfMs), point_in_time: pointInTimeInfo(pit, oldest) }
}
