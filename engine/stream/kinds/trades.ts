/**
 * @module
 * `trades:<symbol>[@<exchange>]`: the perpetual trades of a base, on every venue or on one, pushed as
 * records arrive (one update per channel per applied batch). The snapshot is the newest retained trades.
 */
import { PERP_EXCHANGES, type NormalizedRecord, type TradeRecord } from '../../records/types.js'
import { arity, marketName, readMarket } from '../channel-name.js'
import type { Channel, ChannelKind, KindContext, KindRuntime } from './kind.js'
import { perpMarkets } from './perp-markets.js'

export interface TradesSpec {
  readonly type: 'trades'
  readonly name: string
  readonly base: string
  /** the one venue covered; null: every venue of the base */
  readonly exchange: string | null
}

/** Trades in a trades channel's snapshot (the newest retained). */
export const SNAPSHOT_TRADES = 100

type TradesChannel = Channel<TradesSpec, null>

/** The trades channels of one base: the all-venue one and the per-venue ones. */
interface Route {
  all: TradesChannel | null
  readonly venues: Map<string, TradesChannel>
}

/** A trade as pushed: the record without its routing fields. */
export function tradeWire(t: TradeRecord): unknown {
  return {
    ts: t.ts,
    exchange: t.exchange,
    symbol: t.symbol,
    side: t.side,
    price: t.price,
    qty: t.qty,
    trade_id: t.trade_id
  }
}

class TradesChannels implements KindRuntime<TradesSpec, null> {
  /** channels by base: a trade finds its channels without building their names */
  private readonly routes = new Map<string, Route>()

  constructor(private readonly ctx: KindContext<TradesSpec, null>) {}

  create(spec: TradesSpec): null {
    perpMarkets(this.ctx.live, spec.base, spec.exchange)
    return null
  }

  added(ch: TradesChannel): void {
    let route = this.routes.get(ch.spec.base)
    if (!route) this.routes.set(ch.spec.base, (route = { all: null, venues: new Map() }))
    if (ch.spec.exchange === null) route.all = ch
    else route.venues.set(ch.spec.exchange, ch)
  }

  removed(ch: TradesChannel): void {
    const route = this.routes.get(ch.spec.base)
    if (!route) return
    if (ch.spec.exchange === null) route.all = null
    else route.venues.delete(ch.spec.exchange)
    if (route.all === null && route.venues.size === 0) this.routes.delete(ch.spec.base)
  }

  snapshot(ch: TradesChannel): unknown {
    const trades: unknown[] = []
    for (const e of ch.log.recent(SNAPSHOT_TRADES)) trades.push(...(e.data as unknown[]))
    return trades.slice(-SNAPSHOT_TRADES)
  }

  onRecords(records: readonly NormalizedRecord[]): void {
    if (this.routes.size === 0) return
    let byBase: Map<string, TradeRecord[]> | null = null
    for (const t of records) {
      if (t.kind !== 'trade' || t.market !== 'perp') continue
      const route = this.routes.get(t.base)
      if (!route || (route.all === null && !route.venues.has(t.exchange))) continue
      byBase ??= new Map()
      let list = byBase.get(t.base)
      if (!list) byBase.set(t.base, (list = []))
      list.push(t)
    }
    if (byBase === null) return
    for (const [base, list] of byBase) {
      const route = this.routes.get(base)!
      if (route.all) this.ctx.publish(route.all, list.map(tradeWire))
      for (const ex of PERP_EXCHANGES) {
        const ch = route.venues.get(ex)
        if (ch) {
          const own = list.filter((t) => t.exchange === ex)
          if (own.length) this.ctx.publish(ch, own.map(tradeWire))
        }
      }
    }
  }
}

export const tradesKind: ChannelKind<TradesSpec, null> = {
  type: 'trades',
  parse({ raw, parts, rest }) {
    arity(parts, 2, Infinity, raw, 'trades:<symbol>, e.g. trades:BTC or trades:BTC@binance')
    const m = readMarket(rest, raw, false)
    return { type: 'trades', name: `trades:${marketName(m)}`, ...m }
  },
  base: (spec) => spec.base,
  start: (ctx) => new TradesChannels(ctx)
}
