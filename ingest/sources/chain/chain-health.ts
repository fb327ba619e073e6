/**
 * @module
 * What /v1/health shows of an EVM chain source (sources[].chain): the node, the blocks processed, reorgs and
 * the RPC counters.
 */
import type { SourceStatus } from '../source.js'
import type { WsState } from './new-heads.js'

/** health fields of a chain source (sources[].chain in /v1/health) */
export interface ChainHealth {
  readonly chain_id: number
  readonly chain_id_ok: boolean | null
  /** newest block number the node reported */
  readonly head: number | null
  /** newest block whose confirmed events are stored */
  readonly last_processed: number | null
  readonly lag_blocks: number | null
  /** now − time of the last processed block, seconds */
  readonly lag_s: number | null
  readonly confirmations: number
  readonly reorgs: number
  readonly deep_reorgs: number
  readonly retracted: number
  readonly logs: number
  readonly malformed_logs: number
  readonly receipts: number
  readonly rpc_calls: number
  readonly rpc_errors: number
  readonly span_blocks: number
  readonly span_halvings: number
  readonly pending_events: number
  readonly unpriced_events: number
  readonly ws: WsState
}

export interface ChainSourceStatus extends SourceStatus {
  readonly chain: ChainHealth
}
