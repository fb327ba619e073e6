/**
 * @module
 * New and grown whale events for the push stream. Each pass collapses the rows of the last
 * PUSH_WINDOW_MS (engine/whales/collapse.ts, the same rules as GET /v1/whales/events) and reports events
 * whose id was not pushed yet or whose repeat_count grew (an upsert by id for the client). Rows arriving
 * more than PUSH_WINDOW_MS after their own time are not pushed (they are listed by /v1/whales/events).
 */
import type { WhaleWindow } from '../live/whale-window.js'
import { collapseEvents, DEFAULT_WASH_WINDOW_MS, type WhaleEvent } from '../whales/collapse.js'

/** Rows looked at per pass, ms: twice the wash-loop window, so a loop's later legs still fold in. */
export const PUSH_WINDOW_MS = 2 * DEFAULT_WASH_WINDOW_MS

export class WhaleFeed {
  /** event id -> repeat_count pushed, for events of the last PUSH_WINDOW_MS */
  private readonly pushed = new Map<string, { count: number; ts: number }>()
  private seenSeq = -1

  constructor(private readonly window: WhaleWindow) {}

  /** Marks everything present as pushed (the first whale channel opened: history is its snapshot). */
  baseline(nowMs: number): void {
    this.changed(nowMs)
  }

  /** Events new or grown since the last pass, oldest first. */
  changed(nowMs: number): WhaleEvent[] {
    if (this.window.seq === this.seenSeq) return []
    this.seenSeq = this.window.seq
    const out: WhaleEvent[] = []
    for (const e of collapseEvents(this.window.since(nowMs - PUSH_WINDOW_MS, nowMs))) {
      const prev = this.pushed.get(e.id)
      if (prev && prev.count >= e.repeat_count) continue
      this.pushed.set(e.id, { count: e.repeat_count, ts: e.ts })
      out.push(e)
    }
    for (const [id, p] of this.pushed) if (p.ts < nowMs - 2 * PUSH_WINDOW_MS) this.pushed.delete(id)
    return out
  }

  /** Forgets what was pushed (no whale channel left). */
  reset(): void {
    this.pushed.clear()
    this.seenSeq = -1
  }
}
