/**
 * @module
 * A small time-bounded cache of async answers with in-flight sharing: concurrent asks for the same key
 * share one computation; a failed computation is not kept. At most `max` entries (the oldest inserted is
 * dropped first), so memory stays bounded whatever callers ask for.
 */
export class TtlCache<T> {
  private readonly entries = new Map<string, { at: number; value: Promise<T> }>()
  hits = 0
  misses = 0

  constructor(
    private readonly ttlMs: number,
    private readonly max = 10_000
  ) {}

  /** the cached answer (`hit` true) or a new one from `compute`; `fresh` skips a cached one (not one in flight) */
  async get(key: string, compute: () => Promise<T>, fresh = false): Promise<{ value: T; hit: boolean }> {
    const now = Date.now()
    const e = this.entries.get(key)
    if (
      e &&
      (now - e.at < this.ttlMs || e.at === Number.POSITIVE_INFINITY) &&
      !(fresh && e.at !== Number.POSITIVE_INFINITY)
    ) {
      this.hits++
      return { value: await e.value, hit: true }
    }
    this.misses++
    const value = compute()
    // in flight: shared by every ask until it settles (at = +inf), then stamped with its finish time
    const entry = { at: Number.POSITIVE_INFINITY, value }
    this.entries.delete(key)
    if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value!)
    this.entries.set(key, entry)
    try {
      const v = await value
      entry.at = Date.now()
      return { value: v, hit: false }
    } catch (err) {
      if (this.entries.get(key) === entry) this.entries.delete(key)
      throw err
    }
  }

  get size(): number {
    return this.entries.size
  }
}
