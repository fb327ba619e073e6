/**
 * @module
 * The whale event: one or more whale-transfer rows collapsed into what a reader should see once (items of
 * GET /v1/whales/events, service spec "Whale event"). Field names are the wire names (snake_case).
 * Times are epoch ms, UTC; USD values are USD at the time of the transfer.
 */
import type { WhaleTransferRecord } from '../records/types.js'
import type { Significance } from './significance.js'

/** how the event came to hold more than one row; null for a single row */
export type CollapseKind = 'multi_hop' | 'wash_loop'

export interface WhaleEvent {
  /** `${chain}:${tx_hash}:${log_index}:${address}` of the event's first row: unique per event (two tracked wallets on both sides of one transfer get one event each), and the same rows always give the same id */
  readonly id: string
  /** ts of the first row, epoch ms; never moves when later rows extend the event */
  readonly ts: number
  /** ts of the newest row folded in, epoch ms; equals `ts` for a single row */
  readonly last_ts: number
  readonly chain: string
  /** the tracked wallet */
  readonly address: string
  /** counterparty of the first row */
  readonly counterparty: string
  /** type of the first row */
  readonly event_type: WhaleTransferRecord['event_type']
  /** token of the first row */
  readonly token: string
  /** units of `token` (never of another token of the route): see collapse.ts for which row it comes from */
  readonly amount: number
  /** USD; a multi-hop route's largest leg, a wash loop's first leg, else the row's own value */
  readonly usd_value: number
  /** from `usd_value`; events below the `low` threshold are never produced */
  readonly significance: Significance
  /** tx_hash of the first row */
  readonly tx_hash: string
  /** block_number of the first row */
  readonly block_number: number
  /** rows folded into this event (legs of routes inside a wash loop included); 1 for a single row */
  readonly repeat_count: number
  readonly collapsed: CollapseKind | null
  // Chain-derived events only (engine/whales/chain-details.ts); absent for rows from other sources.
  /** Swap logs of the transaction (0 for transfers) */
  readonly hops?: number
  /** distinct pools of those Swap logs */
  readonly pools?: readonly string[]
  /** swaps: the asset given and its amount (`token` and `amount` are the asset received) */
  readonly token_in?: string | null
  readonly amount_in?: number | null
  /**
   * the side (`token` or `token_in`) that is a token off the watch list: named by its contract address, its
   * amount in raw integer units (decimals unknown); null when both sides are known
   */
  readonly decimals_unknown?: 'token' | 'token_in' | null
  /** where usd_value comes from: `stablecoin`, `candles_1m:<exchanges>` */
  readonly price_source?: string | null
  /** watch-list label of the wallet */
  readonly label?: string | null
  /** a transfer between two wallets of one owner: left out of exchange flows */
  readonly internal?: boolean
}
