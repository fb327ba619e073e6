/**
 * @module
 * Messages between a source worker thread and the main thread. Chunks travel as transferred ArrayBuffers
 * (no copy). Flow control is by credits: the worker may have at most `credits` chunks un-acknowledged, so
 * nothing between the threads grows without bound.
 */
import type { NormalizedRecord } from '../../engine/records/types.js'

export interface ChunkMessage {
  readonly type: 'chunk'
  readonly table: string
  readonly columns: readonly string[]
  readonly rows: number
  readonly data: ArrayBuffer
  readonly hash: string
  readonly bulk: boolean
  /** newest record time in the chunk, epoch ms */
  readonly maxTs: number
}

export interface BarrierMessage {
  readonly type: 'barrier'
  /** everything before this time (epoch ms) has been sent */
  readonly doneTo: number
  readonly phase: string
}

/** Decoded live-window records for the in-memory live state. */
export interface RecordsMessage {
  readonly type: 'records'
  readonly records: readonly NormalizedRecord[]
}

export interface ErrorMessage {
  readonly type: 'error'
  readonly message: string
}

export interface EndMessage {
  readonly type: 'end'
}

export type WorkerToMain = ChunkMessage | BarrierMessage | RecordsMessage | ErrorMessage | EndMessage

export interface CreditMessage {
  readonly type: 'credit'
  readonly n: number
}

export interface StopMessage {
  readonly type: 'stop'
}

export type MainToWorker = CreditMessage | StopMessage

/** Chunks a worker may have in flight before it waits for credit. */
export const CREDIT_WINDOW = 16
