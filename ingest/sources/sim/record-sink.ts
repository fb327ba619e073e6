/**
 * @module
 * Bounded chunking of generated records: emitters push one record at a time; full chunks of exactly
 * `chunkSize` records are handed to the generator, which yields them. Memory stays bounded by one
 * generation block (an hour of records) plus one chunk.
 */
import type { NormalizedRecord } from '../../../engine/records/types.js'

export class RecordSink {
  private readonly chunkSize: number
  private current: NormalizedRecord[] = []
  private full: NormalizedRecord[][] = []

  constructor(chunkSize: number) {
    this.chunkSize = chunkSize
  }

  push(record: NormalizedRecord): void {
    this.current.push(record)
    if (this.current.length >= this.chunkSize) {
      this.full.push(this.current)
      this.current = []
    }
  }

  /** chunks filled since the last call, each exactly `chunkSize` long */
  takeFull(): NormalizedRecord[][] {
    const out = this.full
    this.full = []
    return out
  }

  /** the partial chunk, if any (call once at the end) */
  takeRest(): NormalizedRecord[] | undefined {
    const out = this.current
    this.current = []
    return out.length > 0 ? out : undefined
  }
}
