/**
 * @module
 * The options chain snapshot (response of GET /v1/options/chain, service spec "Options chain snapshot") and the
 * compact per-minute metrics row derived from it. Field names are the wire names (snake_case).
 * OI and volume are in coins (one Deribit BTC/ETH option contract = 1 coin); prices and strikes in USD per coin.
 * Sums are serialized without float noise: coins to the decimals of the most precise amount summed (at most 8),
 * USD payouts to cents (chain-summary.ts); put/call ratios and max-pain strikes are not rounded.
 */

export type OptionsCurrency = 'BTC' | 'ETH'

export interface StrikeRow {
  /** USD per coin */
  readonly strike: number
  /** call OI summed across all unexpired expiries, coins */
  readonly call_oi: number
  /** put OI summed across all unexpired expiries, coins */
  readonly put_oi: number
}

export interface ExpirySummary {
  /** coins */
  readonly call_oi: number
  /** coins */
  readonly put_oi: number
  /** put_oi / call_oi; null when call_oi is 0 */
  readonly pcr: number | null
  /** the max-pain strike of this expiry, USD per coin */
  readonly max_pain: number
  /** call_oi + put_oi (as shown) rounded to an integer */
  readonly total_contracts: number
}

export interface MaxPainEntry {
  /** USD per coin */
  readonly strike: number
  /** total payout to option holders if the expiry settled at `strike`, USD */
  readonly total_pain_quote: number
  readonly quote_currency: 'USD'
}

export interface ChainSummary {
  readonly currency: OptionsCurrency
  /** underlying price of the newest quote (ties: nearest expiry, then smallest name), USD; 0 when there are no quotes */
  readonly underlying_price: number
  /** all unexpired calls, all strikes (not limited to the strike band), coins */
  readonly total_call_oi: number
  readonly total_put_oi: number
  /** 24h traded volume, coins */
  readonly total_call_volume: number
  readonly total_put_volume: number
  /** total_put_oi / total_call_oi; null when total_call_oi is 0 (never Infinity or NaN) */
  readonly pcr_oi: number | null
  /** total_put_volume / total_call_volume; null when total_call_volume is 0 */
  readonly pcr_volume: number | null
  /** strikes with 0.5 × underlying <= strike <= 2.0 × underlying, ascending */
  readonly oi_by_strike: readonly StrikeRow[]
  /** keyed by the expiry date code as Deribit writes it (`5JAN25`), keys in expiry order */
  readonly expiry_summary: Readonly<Record<string, ExpirySummary>>
  /** same keys as `expiry_summary` */
  readonly max_pain: Readonly<Record<string, MaxPainEntry>>
  /** ts of the newest quote, integer epoch SECONDS; 0 when there are no quotes */
  readonly updated: number
}

/** one row of the per-minute options metrics snapshot */
export interface ChainMetrics {
  readonly total_call_oi: number
  readonly total_put_oi: number
  readonly pcr_oi: number | null
  readonly pcr_volume: number | null
  /** max-pain strike of the nearest expiry in the summary, USD per coin; null when there is none */
  readonly max_pain_nearest: number | null
  /** date code of that expiry, e.g. `5JAN25`; null when there is none */
  readonly nearest_expiry: string | null
}
