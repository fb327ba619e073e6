/**
 * @module
 * chain_whale_events rows as the ingest pipeline takes them: TSV in CHAIN_EVENT_COLUMNS order
 * (engine/whales/chain-batch-tsv.ts) wrapped as an encoded chunk, so the chain sources' detail rows are
 * batched, journaled, retried (a full disk included), deduplicated and counted like every other source's
 * rows. Live chunks: a batch is sealed by the source's barrier (or its size), never held for more rows.
 *
 * The rows are idempotent by (chain, tx_hash, log_index, address): the table keeps the newest `version` of a
 * key under FINAL, so a batch written again (a journal replay, a restart that re-reads a range) changes nothing,
 * and the order in which a retraction and a confirmation of one key are written does not matter.
 */
import { CHAIN_EVENT_COLUMNS } from '../../../engine/whales/chain-event-store.js'
import { encodeChainBatch, type ChainEventStatus } from '../../../engine/whales/chain-batch-tsv.js'
import type { ChainWhaleEvent } from '../../../engine/whales/tx-events.js'
import { chunkOf, type EncodedChunk } from '../../encoded-chunk.js'

/** the detail table of chain whale events (schemas/018_chain_whale_events.sql) */
export const CHAIN_EVENTS_TABLE = 'chain_whale_events'

/** `rows` lines of chain_whale_events TSV as a chunk */
export function chainEventsChunk(data: Uint8Array, rows: number): EncodedChunk {
  return chunkOf(CHAIN_EVENTS_TABLE, CHAIN_EVENT_COLUMNS, rows, data, false)
}

/**
 * `events` with `status` at `version` (epoch ms or a counter: newer wins; retracted rows are deletions) as a
 * chunk, with the encoder's bytes to hand back to engine/whales/sink-pool.ts once the chunk is written (after
 * the barrier that follows it). null without events.
 */
export function chainEventRows(
  events: readonly ChainWhaleEvent[],
  status: ChainEventStatus,
  version: number
): { readonly chunk: EncodedChunk; readonly bytes: Buffer } | null {
  if (events.length === 0) return null
  const bytes = encodeChainBatch(events, status, version, null).events
  return { chunk: chainEventsChunk(bytes, events.length), bytes }
}
