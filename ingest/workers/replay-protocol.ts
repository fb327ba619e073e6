/**
 * @module
 * Messages between a replay (ingest/sources/replay-source.ts) and its worker thread
 * (replay-worker.ts). The worker reads, normalizes and encodes; each `batch` carries the ready TSV chunks
 * of one flush (transferred ArrayBuffers, no copy) and the counters after it. Flow control by credits as
 * for the demo market (protocol.ts): a batch takes one, the main thread returns it once the pipeline
 * accepted the batch's chunks, so at most REPLAY_CREDITS batches are between the threads.
 */
import type { ReplayCounts } from '../record/replay-lines.js'
import type { CreditMessage, StopMessage } from './protocol.js'

/** Start parameters: the recording files, in replay order. */
export interface ReplayWorkerData {
  readonly files: readonly string[]
}

/** One encoded chunk as it crosses the threads (`EncodedChunk` with its bytes as an ArrayBuffer). */
export interface ChunkPayload {
  readonly table: string
  readonly columns: readonly string[]
  readonly rows: number
  readonly data: ArrayBuffer
  readonly hash: string
  readonly bulk: boolean
}

export interface ReplayBatchMessage {
  readonly type: 'batch'
  readonly chunks: readonly ChunkPayload[]
  readonly counts: ReplayCounts
}

/** A file ended early (truncated gzip): counted, the replay goes on with the next file. */
export interface ReplayTruncatedMessage {
  readonly type: 'truncated'
  readonly file: string
  readonly error: string
}

/** The recording is done (or the worker stopped on request): final counters. */
export interface ReplayEndMessage {
  readonly type: 'end'
  readonly counts: ReplayCounts
  /** false when it stopped on request before the end */
  readonly complete: boolean
}

export interface ReplayErrorMessage {
  readonly type: 'error'
  readonly message: string
}

export type ReplayToMain = ReplayBatchMessage | ReplayTruncatedMessage | ReplayEndMessage | ReplayErrorMessage
export type MainToReplay = CreditMessage | StopMessage

/** Batches (of up to CHUNK_RECORDS records each) in flight between the threads. */
export const REPLAY_CREDITS = 8
