/**
 * @module
 * A pause of the write path (ingest/pipeline.ts `hold`): rows accepted before it are written first, rows
 * accepted after it wait until `release`. The live state rebuilds and views are repaired under one.
 */
export interface WriteHold {
  /** the write generation that starts with this hold */
  readonly gen: number
  /** resolves once every row accepted before the hold is written (or failed) */
  readonly drained: Promise<void>
  /** lets the writes accepted since the hold go on */
  release(): void
}
