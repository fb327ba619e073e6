/**
 * @module
 * Inputs and result of the confirmation model behind GET /v1/confirm (service spec, "Confirmation result").
 * The result carries every field of both published shapes: Shape A (composite, action, size_mult, sub-scores,
 * reasons) and Shape B (confirmation, score, smart_money, derivatives, as_of). Field names are wire names.
 * Advice only: the caller keeps control of execution and risk.
 */

export type Direction = 'long' | 'short'

/** CONFIRM: context supports the direction; REDUCE: mixed, trade smaller or wait; SKIP: context does not support it */
export type Action = 'CONFIRM' | 'REDUCE' | 'SKIP'

export type Confidence = 'HIGH' | 'MEDIUM'

export type ConfirmationLevel = 'HIGH' | 'MEDIUM' | 'LOW' | 'NONE'

/**
 * Market context of one symbol. Every field may be null when the data is missing; a non-finite number is
 * treated as missing too. Missing inputs make their term contribute 0, never NaN.
 */
export interface ConfirmInputs {
  /** current funding rate, decimal fraction per funding interval (0.0001 = 0.01%); positive = longs pay shorts */
  readonly funding_rate: number | null
  /** length of one funding interval, hours (8 on most venues; 4 or 1 on some); null = unknown, 8 assumed */
  readonly funding_interval_hours: number | null
  /** past funding rates of the same symbol over 30 days, same units and interval as `funding_rate` */
  readonly funding_history_30d: readonly number[] | null
  /** accounts long / accounts short (> 0); 1 = balanced */
  readonly long_short_ratio: number | null
  /** change of open interest over 24h, fraction (0.05 = +5%) */
  readonly oi_change_24h: number | null
  /** change of price over 24h, fraction */
  readonly price_change_24h: number | null
  /** USD net flow to exchanges over 24h; positive = coins moving TO exchanges = sell pressure */
  readonly exchange_netflow_usd_24h: number | null
  /** market value / realized value (> 0); above 3 historically overheated, below 1 undervalued */
  readonly mvrv: number | null
  /** USD net flow of tracked whale wallets over 24h; positive = whales accumulating */
  readonly whale_net_flow_usd_24h: number | null
  /** count of tracked whale wallets net accumulating over 24h (>= 0) */
  readonly whales_long: number | null
  /** count of tracked whale wallets net distributing over 24h (>= 0) */
  readonly whales_short: number | null
}

/** every input missing: spread it and override what is known */
export const EMPTY_CONFIRM_INPUTS: ConfirmInputs = {
  funding_rate: null,
  funding_interval_hours: null,
  funding_history_30d: null,
  long_short_ratio: null,
  oi_change_24h: null,
  price_change_24h: null,
  exchange_netflow_usd_24h: null,
  mvrv: null,
  whale_net_flow_usd_24h: null,
  whales_long: null,
  whales_short: null
}

/** Shape B `smart_money`: echoes of the inputs; null where the input was missing (never NaN) */
export interface SmartMoney {
  /** whale net flow over 24h, USD; positive = accumulating */
  readonly net_flow_usd: number | null
  readonly long_short_ratio: number | null
  readonly whales_long: number | null
  readonly whales_short: number | null
}

/** Shape B `derivatives`: echoes of the inputs; null where missing */
export interface DerivativesEcho {
  /** decimal fraction per funding interval, as given */
  readonly funding_rate: number | null
  /** fraction */
  readonly oi_change_24h: number | null
}

export interface ConfirmResult {
  /** epoch SECONDS of the evaluation (floor of nowMs / 1000) */
  readonly ts: number
  readonly symbol: string
  readonly direction: Direction
  /** [-1, 1] for the requested side: +1 strong confirm, -1 strong contra; short = exact negation of long */
  readonly composite: number
  readonly confidence: Confidence
  readonly action: Action
  /** [0, 1.5], non-decreasing in composite; 0 for SKIP */
  readonly size_mult: number
  /** [-1, 1], oriented to the requested side */
  readonly deriv_score: number
  /** [-1, 1], oriented to the requested side */
  readonly onchain_score: number
  /** [-1, 1], oriented to the requested side */
  readonly whale_score: number
  /** one line per driver with its number, plus one per missing input group; same for both sides */
  readonly reasons: readonly string[]
  /** bucket of composite; NONE when composite <= 0 */
  readonly confirmation: ConfirmationLevel
  /** (composite + 1) / 2, in [0, 1]: conviction for the requested side */
  readonly score: number
  readonly smart_money: SmartMoney
  readonly derivatives: DerivativesEcho
  /** ISO 8601 UTC of nowMs, e.g. 2025-01-05T08:00:00.000Z */
  readonly as_of: string
}

/** one sub-score, LONG-oriented, with the reasons that explain it */
export interface SubScore {
  /** [-1, 1]; positive supports a long */
  readonly score: number
  readonly reasons: readonly string[]
}
