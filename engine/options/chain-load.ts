/**
 * @module
 * The quotes of each currency's chain snapshot at a moment, read from the store (the rule of chain-at.ts):
 * the newest snapshot time of BTC and of ETH in (T - CHAIN_LOOKBACK_MS, T] among quotes received by
 * `knownBy`, then the quotes of that time received by `knownBy`. One loader for the live state's rebuild
 * (no upper bound: the newest snapshot stored) and for `GET /v1/options/chain?as_of=T`.
 */
import type { Store } from '../store/store.js'
import type { OptionQuoteRecord } from '../records/types.js'
import { CHAIN_LOOKBACK_MS } from './chain-at.js'
import type { OptionsCurrency } from './chain-types.js'

/** the chains this service summarizes */
const OPTIONS_CURRENCIES: readonly OptionsCurrency[] = ['BTC', 'ETH']

/** The bounds of a load, epoch ms. */
export interface ChainLoadBounds {
  /** the moment T: quotes with ts after it are not used; null for the live rebuild (every stored quote) */
  readonly asOfMs: number | null
  /** quotes received (ingest_ts) after it are not used; null: no bound */
  readonly knownByMs: number | null
}

/** far enough in the future to bound nothing (year 2200), epoch ms */
const NO_BOUND_MS = 7_258_118_400_000

/**
 * The quotes of the chain snapshots of `currencies` at `bounds.asOfMs` (the live rebuild: the newest ones of
 * the last CHAIN_LOOKBACK_MS). Each currency's quotes share one `ts`; none for a currency without a snapshot.
 */
export async function loadChainQuotes(
  store: Store,
  bounds: ChainLoadBounds,
  nowMs: number,
  currencies: readonly OptionsCurrency[] = OPTIONS_CURRENCIES
): Promise<OptionQuoteRecord[]> {
  const to = bounds.asOfMs ?? NO_BOUND_MS
  const from = (bounds.asOfMs ?? nowMs) - CHAIN_LOOKBACK_MS
  const params = { from, to, known: bounds.knownByMs ?? NO_BOUND_MS, prefix: `${currencies[0] ?? 'BTC'}-` }
  // one currency: its prefix (`ETH-`) lets the primary key (instrument, ts) skip the other's rows
  const instruments =
    currencies.length === 1
      ? 'startsWith(instrument, {prefix:String})'
      : "(startsWith(instrument, 'BTC-') OR startsWith(instrument, 'ETH-'))"
  // the quote time is aliased ts_ms: an alias named ts would shadow the column in WHERE
  const rows = await store.query<Omit<OptionQuoteRecord, 'ts'> & { ts_ms: number }>(
    `WITH snapshots AS (
       SELECT splitByChar('-', toString(instrument))[1] AS currency, max(ts) AS snapshot_ts FROM option_quotes
       WHERE ts > fromUnixTimestamp64Milli({from:Int64}, 'UTC') AND ts <= fromUnixTimestamp64Milli({to:Int64}, 'UTC')
         AND ingest_ts <= fromUnixTimestamp64Milli({known:Int64}, 'UTC')
         AND ${instruments}
       GROUP BY currency
     )
     SELECT 'option_quote' AS kind, toUnixTimestamp64Milli(ts) AS ts_ms, exchange, instrument, underlying_price,
            mark_price, mark_iv, open_interest, volume_24h, bid, ask
     FROM option_quotes
     WHERE ts > fromUnixTimestamp64Milli({from:Int64}, 'UTC') AND ts <= fromUnixTimestamp64Milli({to:Int64}, 'UTC')
       AND ingest_ts <= fromUnixTimestamp64Milli({known:Int64}, 'UTC')
       AND ${instruments} AND (splitByChar('-', toString(instrument))[1], ts) IN (SELECT currency, snapshot_ts FROM snapshots)
     ORDER BY instrument, ingest_ts`,
    params
  )
  // field by field, not by rest and spread: every quote shares one hidden class (engine/live/books-load.ts)
  return rows.map((q) => ({
    kind: q.kind,
    ts: Number(q.ts_ms),
    exchange: q.exchange,
    instrument: q.instrument,
    underlying_price: q.underlying_price,
    mark_price: q.mark_price,
    mark_iv: q.mark_iv,
    open_interest: q.open_interest,
    volume_24h: q.volume_24h,
    bid: q.bid,
    ask: q.ask
  }))
}
