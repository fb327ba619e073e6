/**
 * @module
 * The source contract. A source is an async iterable of ingest items (encoded chunks of normalized records
 * and barriers), plus a status for `/v1/health`. Record-level sources encode with `encodeRecords`; heavy
 * sources do it in a worker thread so parsing and encoding stay off the event loop.
 */
import type { IngestItem } from '../encoded-chunk.js'

export interface SourceStatus {
  readonly name: string
  /** true for the demo market: its data is invented */
  readonly synthetic: boolean
  readonly connected: boolean
  /** newest record time seen, epoch ms */
  readonly last_event_ts: number | null
  /** rows handed to the pipeline */
  readonly rows: number
  /** current phase, e.g. backfill or live */
  readonly phase?: string
}

export interface Source {
  readonly name: string
  readonly synthetic: boolean
  items(signal: AbortSignal): AsyncIterable<IngestItem>
  status(): SourceStatus
}
