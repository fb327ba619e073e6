/**
 * @module
 * The chain batch encoder's byte buffers (chain-batch-tsv.ts): the shared ByteBuffer
 * (engine/runtime/byte-buffer.ts) on the recycled buffers of sink-pool.ts, so a source that hands its
 * payloads back once they are stored (`releaseSinkBytes`) lets the next sinks reuse them.
 */
import { ByteBuffer, type BufferSource } from '../runtime/byte-buffer.js'
import { allocSinkBuffer, releaseSinkBytes } from './sink-pool.js'

/** the pool as a buffer source */
const SINK_POOL: BufferSource = { alloc: allocSinkBuffer, release: releaseSinkBytes }

export class ByteSink extends ByteBuffer {
  /** `bytes`: first capacity guess, at least 1 KiB (grows by doubling) */
  constructor(bytes: number) {
    super(Math.max(bytes, 1024), SINK_POOL)
  }
}
