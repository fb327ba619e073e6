/**
 * @module
 * One channel's sequence numbers and its retained updates (for `from_seq` resume).
 *
 * Invariants:
 * - seq grows by exactly 1 per update; a snapshot carries the seq of the last update it includes.
 * - A channel's first seq is its creation time in epoch ms x 1,000, so numbers keep growing when a channel
 *   is re-created (idle expiry, restart): a client resuming across that sees a jump it cannot fill and gets
 *   a fresh snapshot flagged `reset`, never updates of another channel instance.
 * - Retention is bounded by both count (RETAIN_MAX updates) and age (RETAIN_MS): a ring, no growth.
 */

/** How long updates are kept for resume, ms. */
export const RETAIN_MS = 60_000
/** Updates kept at most per channel. */
export const RETAIN_MAX = 1_024

export interface Retained {
  readonly seq: number
  /** epoch ms when published */
  readonly at: number
  readonly data: unknown
}

export class ChannelLog {
  /** seq of the newest update (the seq a snapshot taken now carries) */
  seq: number
  private readonly ring: (Retained | undefined)[] = new Array<Retained | undefined>(RETAIN_MAX)
  /** index of the oldest retained entry and how many are retained */
  private head = 0
  private count = 0

  constructor(createdMs: number) {
    this.seq = createdMs * 1_000
  }

  append(data: unknown, nowMs: number): number {
    const entry: Retained = { seq: ++this.seq, at: nowMs, data }
    if (this.count === RETAIN_MAX) {
      this.ring[this.head] = entry
      this.head = (this.head + 1) % RETAIN_MAX
    } else {
      this.ring[(this.head + this.count) % RETAIN_MAX] = entry
      this.count++
    }
    return entry.seq
  }

  /** Drops entries older than the retention window. */
  expire(nowMs: number): void {
    while (this.count > 0) {
      const e = this.ring[this.head]!
      if (nowMs - e.at <= RETAIN_MS) break
      this.ring[this.head] = undefined
      this.head = (this.head + 1) % RETAIN_MAX
      this.count--
    }
  }

  /**
   * Updates with seq >= fromSeq, oldest first; null when some of them are no longer retained (or fromSeq
   * belongs to another instance of the channel), in which case the client needs a fresh snapshot.
   */
  since(fromSeq: number, nowMs: number): Retained[] | null {
    this.expire(nowMs)
    if (fromSeq === this.seq + 1) return []
    if (fromSeq > this.seq + 1) return null
    const oldest = this.count > 0 ? this.ring[this.head]!.seq : this.seq + 1
    if (fromSeq < oldest) return null
    const out: Retained[] = []
    for (let i = fromSeq - oldest; i < this.count; i++) out.push(this.ring[(this.head + i) % RETAIN_MAX]!)
    return out
  }

  /** The newest `n` retained entries, oldest first (snapshots of channels that are a feed, like trades). */
  recent(n: number): Retained[] {
    const k = Math.min(n, this.count)
    const out: Retained[] = []
    for (let i = this.count - k; i < this.count; i++) out.push(this.ring[(this.head + i) % RETAIN_MAX]!)
    return out
  }
}
