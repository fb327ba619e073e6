/**
 * @module
 * Fills aggTrade id gaps from REST: `GET /fapi/v1/aggTrades?symbol=&fromId=&limit=` returns consecutive
 * aggregate ids from `fromId`, so a gap of ids a..b is fetched in pages of up to 1000 with `limit` set to
 * end exactly at b (no overlap with trades already received). Gaps wait in a bounded queue; a gap that
 * does not fit, or is larger than MAX_PAGES pages, is counted as unfilled.
 */
import type { Logger } from '../../../engine/log.js'
import { WEIGHT, type BinanceRest } from './rest.js'

/** Ids per request (Binance's maximum). */
const PAGE = 1_000
/** Largest gap filled, in pages: 20 000 trades at 20 weight each page stays within a minute's budget. */
export const MAX_PAGES = 20
/** Gaps waiting for a fill; more at once means the feed is badly broken and REST would not keep up. */
const MAX_PENDING = 1_000

interface Gap {
  readonly symbol: string
  readonly fromId: number
  readonly toId: number
}

export class GapFiller {
  found = 0
  filled = 0
  /** gaps not filled: too large, queue full, or REST failed */
  unfilled = 0
  private readonly pending: Gap[] = []
  private wake: (() => void) | undefined

  constructor(
    private readonly rest: BinanceRest,
    private readonly log: Logger
  ) {}

  /** Called by the normalizer for every gap (ids fromId..toId missing). */
  readonly onGap = (symbol: string, fromId: number, toId: number): void => {
    this.found++
    if (this.pending.length >= MAX_PENDING || toId - fromId + 1 > PAGE * MAX_PAGES) {
      this.unfilled++
      this.log.warn({ symbol, from_id: fromId, to_id: toId }, 'aggTrade gap not backfilled (too large or too many)')
      return
    }
    this.pending.push({ symbol, fromId, toId })
    this.wake?.()
  }

  /** Works through the gaps until `signal` aborts. */
  async run(signal: AbortSignal): Promise<void> {
    const onAbort = (): void => this.wake?.()
    signal.addEventListener('abort', onAbort)
    try {
      while (!signal.aborted) {
        const gap = this.pending.shift()
        if (gap === undefined) {
          await new Promise<void>((r) => (this.wake = r))
          this.wake = undefined
          continue
        }
        if (await this.fill(gap, signal)) this.filled++
        else if (!signal.aborted) this.unfilled++
      }
    } finally {
      signal.removeEventListener('abort', onAbort)
    }
  }

  private async fill(gap: Gap, signal: AbortSignal): Promise<boolean> {
    for (let from = gap.fromId; from <= gap.toId;) {
      const limit = Math.min(PAGE, gap.toId - from + 1)
      const path = `/fapi/v1/aggTrades?symbol=${gap.symbol}&fromId=${from}&limit=${limit}`
      const text = await this.rest.fetch(path, WEIGHT.aggTrades, signal)
      if (text === null) return false
      let got = 0
      try {
        got = (JSON.parse(text) as unknown[]).length
      } catch {
        return false
      }
      if (got < limit) return false // the venue no longer has those ids
      from += limit
    }
    return true
  }
}
