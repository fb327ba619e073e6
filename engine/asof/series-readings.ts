/**
 * @module
 * One table's grouped readings of a run of moments (engine/asof/series-load.ts `Group`: the newest reading
 * of a market, event hour and effective step), swept once in step order: `advance(i)` applies the groups
 * first usable at step i, so after it each market holds the newest reading of each hour usable at step i
 * (`hour`) and the newest usable reading of all (`newest`). Usable sets only grow with the step (a row
 * usable at step i is usable at every later one), so each group is applied once over the whole run.
 *
 * Ties: two groups of one hour with the same event time keep the one first usable later, as a list sorted
 * by step with the newest reading carried forward does (series-load.ts `usableAt`). Two groups with the
 * same event time lie in one hour, so `newest` follows the same rule.
 */
import type { Group } from './series-load.js'

/** One market's readings usable at the sweep's step. */
export interface MarketReadings {
  readonly exchange: string
  readonly symbol: string
  /** the newest usable reading of each event hour, at index epoch hour − the sweep's `firstHour` */
  readonly hours: (Group | undefined)[]
  /** the newest usable reading of all; undefined before the first */
  newest: Group | undefined
}

export class ReadingSweep {
  /** the groups by first usable step, ascending */
  private readonly order: readonly Group[]
  private next = 0
  /** by market key `exchange|symbol` */
  readonly markets = new Map<string, MarketReadings>()
  /** the earliest event hour of the groups, epoch hour */
  readonly firstHour: number

  constructor(groups: readonly Group[]) {
    this.order = [...groups].sort((a, b) => a.e - b.e)
    let first = Infinity
    let last = -Infinity
    for (const g of this.order) {
      if (g.h < first) first = g.h
      if (g.h > last) last = g.h
    }
    this.firstHour = Number.isFinite(first) ? first : 0
    // dense arrays over the groups' hours (a hole-free array stays a fast element store)
    const n = Number.isFinite(first) ? last - first + 1 : 0
    for (const g of this.order) {
      const k = `${g.exchange}|${g.symbol}`
      if (!this.markets.has(k)) {
        const hours = new Array<Group | undefined>(n).fill(undefined)
        this.markets.set(k, { exchange: g.exchange, symbol: g.symbol, hours, newest: undefined })
      }
    }
  }

  /** The newest reading of market `m`'s epoch hour `h` usable at the sweep's step, or undefined. */
  at(m: MarketReadings | undefined, h: number): Group | undefined {
    return h < this.firstHour ? undefined : m?.hours[h - this.firstHour]
  }

  /** Applies every group first usable at or before step `i` (steps ascending over calls). */
  advance(i: number): void {
    const order = this.order
    while (this.next < order.length && order[this.next]!.e <= i) {
      const g = order[this.next++]!
      const m = this.markets.get(`${g.exchange}|${g.symbol}`)!
      const j = g.h - this.firstHour
      const cur = m.hours[j]
      if (cur && cur.ts > g.ts) continue // an older reading received later changes nothing
      m.hours[j] = g
      if (!m.newest || g.ts >= m.newest.ts) m.newest = g
    }
  }
}
