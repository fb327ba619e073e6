/**
 * @module
 * What sources hand to the pipeline: rows already encoded for one table (TSV bytes), so the pipeline only
 * moves buffers. Encoding happens where the records are produced: in a worker thread for the demo market,
 * admin NDJSON and full-speed replays of large recordings (workers/replay-worker.ts), on the main thread
 * for the live exchange feeds and paced replays (feed-pump.ts).
 */
import crypto from 'node:crypto'
import type { NormalizedRecord } from '../engine/records/types.js'

export interface EncodedChunk {
  readonly table: string
  readonly columns: readonly string[]
  readonly rows: number
  /** TSV payload, one line per row */
  readonly data: Uint8Array
  /** sha1 of `data`, hex: batch dedup tokens are built from these, so equal content gives equal tokens */
  readonly hash: string
  /**
   * Bulk chunks (backfill, imports) are sealed into batches only by row count or an explicit barrier,
   * never by the flush timer, so re-running the same input yields byte-identical batches and the dedup
   * tokens make the re-run a no-op.
   */
  readonly bulk: boolean
}

const encoder = new TextEncoder()

/** Encodes TSV text into a chunk. The bytes own their ArrayBuffer (never Node's shared pool), so they can be transferred. */
export function makeChunk(
  table: string,
  columns: readonly string[],
  rows: number,
  tsv: string,
  bulk: boolean
): EncodedChunk {
  return chunkOf(table, columns, rows, encoder.encode(tsv), bulk)
}

/** A chunk of TSV bytes already encoded (`rows` lines), with its hash. */
export function chunkOf(
  table: string,
  columns: readonly string[],
  rows: number,
  data: Uint8Array,
  bulk: boolean
): EncodedChunk {
  // crypto.hash: the same digest as createHash().update().digest() without a Hash object per chunk (a live
  // feed makes one chunk per drained batch, up to one per message at a quiet rate)
  return { table, columns, rows, data, hash: crypto.hash('sha1', data, 'hex'), bulk }
}

/**
 * A marker from a source: seal every open batch and resolve once all of them are acknowledged. It is the
 * pipeline's durable acknowledgement: a source's generator resumes after yielding a barrier only once every row
 * it handed over before it is written (and `onDone` has run), or not at all (a row failed: its run ends there).
 */
export interface Barrier {
  readonly barrier: true
  /** called once everything before the barrier is written (e.g. to checkpoint progress) */
  readonly onDone?: () => Promise<void> | void
  /** the live state should reload from the store once this barrier is written (e.g. a backfill ended) */
  readonly rebuildLive?: boolean
  /** a bulk load (backfill, full-speed replay) ends here: its tables may be compacted (engine/store/compact.ts) */
  readonly bulkEnd?: boolean
  /**
   * Only these tables are sealed and waited for, and only their failed rows fail the barrier (a source that
   * must see its own rows in the store before it reads the store again, without sealing other sources'
   * batches early). @default every table
   */
  readonly tables?: readonly string[]
}

/** Decoded records of live data for the in-memory live state (their rows travel as chunks too). */
export interface LiveRecords {
  readonly live: true
  readonly records: readonly NormalizedRecord[]
  /** receive time of the oldest venue message behind them, epoch ms (live feeds; engine/live/path-probe.ts) */
  readonly recvTs?: number
}

export type IngestItem = EncodedChunk | Barrier | LiveRecords

export function isBarrier(item: IngestItem): item is Barrier {
  return (item as Barrier).barrier === true
}

export function isLiveRecords(item: IngestItem): item is LiveRecords {
  return (item as LiveRecords).live === true
}
