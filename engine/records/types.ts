/**
 * @module
 * Normalized records: the contract between ingest sources and the store (DESIGN.md "Normalized records").
 * Every record is a readonly plain object discriminated by `kind`. Times are integer epoch milliseconds, UTC.
 * Symbols are exchange-native (`BTCUSDT`, `BTC-USDT-SWAP`) with `base`/`quote` beside them.
 */
import { CHAIN_IDS, type ChainId } from '../../catalog/chains.js'
import { PERP_VENUE_IDS, type PerpVenueId } from '../../catalog/venues.js'

/** A perpetual venue's id (catalog/venues.ts). */
export type Exchange = PerpVenueId
/** A whale chain's id (catalog/chains.ts). */
export type Chain = ChainId

/** The whale chains, in listing order (catalog/chains.ts). */
export const CHAINS: readonly Chain[] = CHAIN_IDS
/** The perpetual venues, in the default venue order (catalog/venues.ts). */
export const PERP_EXCHANGES: readonly Exchange[] = PERP_VENUE_IDS

export { DEFAULT_FUNDING_INTERVAL_HOURS } from '../../catalog/venues.js'

export interface TradeRecord {
  readonly kind: 'trade'
  /** exchange timestamp, epoch ms */
  readonly ts: number
  readonly exchange: string
  readonly market: 'perp' | 'spot'
  readonly symbol: string
  readonly base: string
  readonly quote: string
  /** liquidity taker side (aggressor), not the resting maker order side */
  readonly side: 'buy' | 'sell'
  /** quote currency per base unit */
  readonly price: number
  /** base units (coins, never contracts) */
  readonly qty: number
  readonly trade_id: string
}

export interface FundingRecord {
  readonly kind: 'funding'
  readonly ts: number
  readonly exchange: string
  readonly symbol: string
  readonly base: string
  /** decimal fraction per funding interval (0.0001 = 0.01% per interval) */
  readonly funding_rate: number
  /** hours between settlements: 1, 4 or 8 on the supported venues */
  readonly interval_hours: number
  readonly next_funding_ts?: number | null
  readonly mark_price?: number | null
  readonly index_price?: number | null
}

export interface OpenInterestRecord {
  readonly kind: 'open_interest'
  readonly ts: number
  readonly exchange: string
  readonly symbol: string
  readonly base: string
  /** open interest in base coin (contracts already converted) */
  readonly oi_base: number
  /** open interest in USD at the time of the reading */
  readonly oi_usd: number
}

export interface LongShortRecord {
  readonly kind: 'long_short'
  readonly ts: number
  readonly exchange: string
  readonly symbol: string
  readonly base: string
  /** long accounts / short accounts */
  readonly long_short_ratio: number
  /** fraction of accounts net long, 0..1 */
  readonly long_account?: number | null
  /** fraction of accounts net short, 0..1 */
  readonly short_account?: number | null
}

export interface LiquidationRecord {
  readonly kind: 'liquidation'
  readonly ts: number
  readonly exchange: string
  readonly symbol: string
  readonly base: string
  /** side of the liquidation order: `sell` liquidates a long, `buy` liquidates a short */
  readonly side: 'buy' | 'sell'
  readonly price: number
  /** base units */
  readonly qty: number
}

export interface OptionQuoteRecord {
  readonly kind: 'option_quote'
  readonly ts: number
  readonly exchange: string
  /** Deribit instrument name, e.g. `BTC-5JAN25-100000-C` */
  readonly instrument: string
  /** index price of the underlying, USD */
  readonly underlying_price: number
  /** option mark price in base coin */
  readonly mark_price: number
  /** implied volatility in percent (Deribit convention), when known */
  readonly mark_iv?: number | null
  /** open interest in contracts; one Deribit BTC/ETH option contract = 1 coin */
  readonly open_interest: number
  /** 24h traded volume in contracts */
  readonly volume_24h: number
  readonly bid?: number | null
  readonly ask?: number | null
}

export interface WhaleTransferRecord {
  readonly kind: 'whale_transfer'
  readonly ts: number
  readonly chain: string
  readonly tx_hash: string
  /** log index within the transaction; legs of one multi-hop route share tx_hash */
  readonly log_index: number
  readonly block_number: number
  /** the tracked wallet */
  readonly address: string
  readonly counterparty: string
  readonly event_type: 'transfer_in' | 'transfer_out' | 'swap'
  readonly token: string
  /** token units */
  readonly amount: number
  readonly usd_value: number
}

export interface OnchainMetricRecord {
  readonly kind: 'onchain_metric'
  readonly ts: number
  readonly asset: string
  /** e.g. `exchange_netflow_usd`, `mvrv`, `active_addresses` */
  readonly metric: string
  readonly value: number
}

export type NormalizedRecord =
  | TradeRecord
  | FundingRecord
  | OpenInterestRecord
  | LongShortRecord
  | LiquidationRecord
  | OptionQuoteRecord
  | WhaleTransferRecord
  | OnchainMetricRecord

export type RecordKind = NormalizedRecord['kind']

export type RecordOf<K extends RecordKind> = Extract<NormalizedRecord, { kind: K }>
