/**
 * @module
 * Row versions of the ReplacingMergeTree tables of webhooks (the last version of a key wins under FINAL):
 * microseconds since the epoch, strictly increasing within a process, so two changes in the same
 * millisecond keep their order and a restart (a later wall clock) always writes newer versions.
 */
export class VersionClock {
  private last = 0

  constructor(private readonly now: () => number = Date.now) {}

  next(): number {
    // epoch µs stays below 2^53 until the year 2255
    const v = Math.max(this.now() * 1000, this.last + 1)
    this.last = v
    return v
  }
}
