/**
 * @module
 * Fetches the venue's recent trades for each market whose reconnect window opened (Bybit, OKX: trade ids
 * there cannot reveal gaps, so every reopen is checked; `normalize/trade-window.ts`). The normalizer calls
 * `opened` when it reaches a reconnect marker; markets wait in a bounded FIFO (a market already waiting is
 * not queued twice) and are fetched one at a time through the venue's REST client, whose limiter keeps
 * the venue's rate limits. The answer goes into the raw queue like every REST answer; the normalizer
 * matches it to the window and reports the outcome through `served`. One page per window, never more:
 * a page that does not reach back to the last trade before the drop is counted (`unfilled`) and logged.
 */
import type { Logger } from '../../../engine/log.js'
import type { ReconnectGaps } from '../../normalize/trade-window.js'

/**
 * Markets waiting for a fetch at once. A network cut reopens every connection at once, so all traded
 * markets of a venue (Bybit ~550, OKX ~280 USDT perpetuals) wait together; more means the feed is badly
 * broken and REST would not keep up.
 */
export const MAX_PENDING = 1_000

export interface ReconnectFillOptions {
  readonly venue: string
  /** GETs a path through the venue's REST client (limiter, raw queue); the answer text or null on failure */
  readonly fetch: (path: string, signal: AbortSignal) => Promise<string | null>
  /** the recent-trades request of a market */
  readonly path: (symbol: string) => string
  readonly log: Logger
  /** @default MAX_PENDING */
  readonly maxPending?: number
}

export class ReconnectFiller implements ReconnectGaps {
  /** reconnect windows checked (per market and reopen) */
  found = 0
  /** trades recovered */
  filled = 0
  /** windows whose page did not reach back to the last trade before the drop, or could not be fetched */
  unfilled = 0
  /** markets waiting for a fetch, in order */
  private readonly pending = new Set<string>()
  private wake: (() => void) | undefined

  constructor(private readonly opts: ReconnectFillOptions) {}

  readonly opened = (symbol: string): void => {
    this.found++
    if (this.pending.has(symbol)) return // the fetch still to come serves this reopen too
    if (this.pending.size >= (this.opts.maxPending ?? MAX_PENDING)) {
      this.unfilled++
      this.opts.log.warn({ venue: this.opts.venue, symbol }, 'reconnect trades not fetched (too many markets waiting)')
      return
    }
    this.pending.add(symbol)
    this.wake?.()
  }

  readonly served = (symbol: string, recovered: number, reachedBack: boolean): void => {
    this.filled += recovered
    if (reachedBack) return
    this.unfilled++
    this.opts.log.warn(
      { venue: this.opts.venue, symbol, recovered },
      'recent trades do not reach back to the last trade before the reconnect: older trades may be lost'
    )
  }

  /** Works through the waiting markets until `signal` aborts. */
  async run(signal: AbortSignal): Promise<void> {
    const onAbort = (): void => this.wake?.()
    signal.addEventListener('abort', onAbort)
    try {
      while (!signal.aborted) {
        const symbol = this.pending.values().next().value
        if (symbol === undefined) {
          await new Promise<void>((r) => (this.wake = r))
          this.wake = undefined
          continue
        }
        this.pending.delete(symbol)
        const text = await this.opts.fetch(this.opts.path(symbol), signal)
        if (text === null && !signal.aborted) {
          this.unfilled++
          this.opts.log.warn({ venue: this.opts.venue, symbol }, 'reconnect trades could not be fetched')
        }
      }
    } finally {
      signal.removeEventListener('abort', onAbort)
    }
  }
}
