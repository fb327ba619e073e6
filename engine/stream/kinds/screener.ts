/**
 * @module
 * `screener`: every market's screener row (as GET /v1/derivatives/screener, unfiltered) in the snapshot,
 * then once per tick the rows of the markets with a new trade, funding, open-interest or long/short
 * reading since the last tick.
 */
import type { NormalizedRecord } from '../../records/types.js'
import type { ScreenerRow } from '../../live/screener-book.js'
import { arity } from '../channel-name.js'
import type { Channel, ChannelKind, KindContext, KindRuntime } from './kind.js'

export interface ScreenerSpec {
  readonly type: 'screener'
  readonly name: string
}

class ScreenerChannels implements KindRuntime<ScreenerSpec, null> {
  /** markets changed since the last tick (`exchange|symbol`), while the channel exists */
  private readonly dirty = new Set<string>()

  constructor(private readonly ctx: KindContext<ScreenerSpec, null>) {}

  create(): null {
    return null
  }

  snapshot(_ch: Channel<ScreenerSpec, null>, nowMs: number): unknown {
    return { rows: this.ctx.live.screener.rows(nowMs) }
  }

  onRecords(records: readonly NormalizedRecord[]): void {
    if (this.ctx.channels.size === 0) return
    for (const r of records) {
      switch (r.kind) {
        case 'trade':
        case 'funding':
        case 'open_interest':
        case 'long_short':
          this.dirty.add(`${r.exchange}|${r.symbol}`)
          break
      }
    }
  }

  tick(nowMs: number): void {
    const ch = this.ctx.channels.get('screener')
    if (ch && this.dirty.size) {
      const rows: ScreenerRow[] = []
      for (const key of this.dirty) {
        const [exchange, symbol] = key.split('|') as [string, string]
        const row = this.ctx.live.screener.rowOf(exchange, symbol, nowMs)
        if (row) rows.push(row)
      }
      if (rows.length) this.ctx.publish(ch, { rows })
    }
    this.dirty.clear()
  }
}

export const screenerKind: ChannelKind<ScreenerSpec, null> = {
  type: 'screener',
  parse({ raw, parts }) {
    arity(parts, 1, 1, raw, 'screener')
    return { type: 'screener', name: 'screener' }
  },
  base: () => null,
  start: (ctx) => new ScreenerChannels(ctx)
}
