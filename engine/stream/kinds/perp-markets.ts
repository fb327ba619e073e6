/**
 * @module
 * The market check of channels that name a base: a channel is created only for a base with a perpetual
 * market in the live screener (on the venue it names, if any); otherwise 400 `unknown_symbol` suggesting
 * the nearest bases that have one (engine/symbols/resolve.ts `unknownSymbol`), as the HTTP routes do.
 */
import { perpVenueLabels } from '../../../catalog/venues.js'
import type { LiveState } from '../../live/live-state.js'
import type { ScreenerBook } from '../../live/screener-book.js'
import { screenerBases } from '../../symbols/known-bases.js'
import { noPerpetualMarket, unknownSymbol } from '../../symbols/resolve.js'

export interface PerpMarket {
  readonly exchange: string
  readonly symbol: string
}

/** `Binance, Bybit or OKX` */
const PERP_LABELS = perpVenueLabels('or')

/** `param` of the ApiError (the ack's per-channel error carries code and message only). */
const PARAM = 'channel'

/**
 * The perpetual markets of `base` (on `exchange` when not null), in the default venue order (Binance, Bybit,
 * OKX); throws `unknown_symbol` when there is none, suggesting bases of that venue.
 */
export function perpMarkets(live: LiveState, base: string, exchange: string | null): readonly PerpMarket[] {
  const book = live.screener
  const markets = book.marketsOf(base).filter((m) => !exchange || m.exchange === exchange)
  if (markets.length === 0) {
    throw unknownSymbol(
      base,
      screenerBases(exchange ? onVenue(book, exchange) : book),
      PARAM,
      (b) => `no perpetual market for ${b}${exchange ? ` on ${exchange}` : ''} (${PERP_LABELS})`
    )
  }
  return markets
}

/** Throws `unknown_symbol` unless `base` has a perpetual market on some venue (channels covering every venue). */
export function requireBase(live: LiveState, base: string): void {
  if (!live.screener.hasBase(base)) throw unknownSymbol(base, screenerBases(live.screener), PARAM, noPerpetualMarket)
}

/** The screener's bases listed on one venue (suggestions for a channel naming it). */
function onVenue(book: ScreenerBook, exchange: string): Pick<ScreenerBook, 'hasBase' | 'rows'> {
  return {
    hasBase: (base) => book.marketsOf(base).some((m) => m.exchange === exchange),
    rows: (nowMs) => book.rows(nowMs).filter((r) => r.exchange === exchange)
  }
}
