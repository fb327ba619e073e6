/** Start parameters of the demo-market worker (all times epoch ms). */
export interface SimWorkerData {
  readonly seed: number
  /** perpetual markets generated, the most liquid first; absent: the whole universe */
  readonly maxMarkets?: number | undefined
  /** backfill covers [doneTo, liveFrom) in backfill density; live windows start at liveFrom */
  readonly liveFrom: number
  /** everything before this time is already written */
  readonly doneTo: number
  /** length of one backfill window; windows end on its multiples from the epoch (the first and last may be shorter) */
  readonly backfillSliceMs: number
  /** a live phase resumed after a longer stop skips ahead to at most this far back */
  readonly maxCatchupMs: number
  /** after a restart, windows this far past `doneTo` are always regenerated (they may be written already) */
  readonly replayMs: number
}
