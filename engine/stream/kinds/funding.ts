/**
 * @module
 * `funding:<base>`: the funding readings of every venue of a base, pushed as records arrive (one update
 * per channel per applied batch). The snapshot is each market's latest rate from the live screener.
 */
import type { FundingRecord, NormalizedRecord } from '../../records/types.js'
import { arity, readMarket } from '../channel-name.js'
import type { Channel, ChannelKind, KindContext, KindRuntime } from './kind.js'
import { requireBase } from './perp-markets.js'

export interface FundingSpec {
  readonly type: 'funding'
  readonly name: string
  readonly base: string
}

type FundingChannel = Channel<FundingSpec, null>

/** A funding reading as pushed, with its rate annualized (rate × 8760 / interval hours). */
export function fundingWire(r: FundingRecord): unknown {
  return {
    ts: r.ts,
    exchange: r.exchange,
    symbol: r.symbol,
    base: r.base,
    funding_rate: r.funding_rate,
    interval_hours: r.interval_hours,
    funding_rate_annualized: r.interval_hours > 0 ? (r.funding_rate * 8760) / r.interval_hours : null,
    next_funding_ts: r.next_funding_ts ?? null,
    mark_price: r.mark_price ?? null
  }
}

class FundingChannels implements KindRuntime<FundingSpec, null> {
  constructor(private readonly ctx: KindContext<FundingSpec, null>) {}

  create(spec: FundingSpec): null {
    requireBase(this.ctx.live, spec.base)
    return null
  }

  snapshot(ch: FundingChannel, nowMs: number): unknown {
    const book = this.ctx.live.screener
    return book
      .marketsOf(ch.spec.base)
      .map((m) => book.rowOf(m.exchange, m.symbol, nowMs)!)
      .map((r) => ({
        exchange: r.exchange,
        symbol: r.symbol,
        base: r.base,
        funding_rate: r.funding_rate,
        interval_hours: r.funding_interval_hours,
        funding_rate_annualized: r.funding_rate_annualized,
        updated: r.updated
      }))
  }

  onRecords(records: readonly NormalizedRecord[]): void {
    const channels = this.ctx.channels
    if (channels.size === 0) return
    let byBase: Map<string, FundingRecord[]> | null = null
    for (const r of records) {
      if (r.kind !== 'funding' || !channels.has(`funding:${r.base}`)) continue
      byBase ??= new Map()
      let list = byBase.get(r.base)
      if (!list) byBase.set(r.base, (list = []))
      list.push(r)
    }
    if (byBase === null) return
    for (const [base, list] of byBase) this.ctx.publish(channels.get(`funding:${base}`)!, list.map(fundingWire))
  }
}

export const fundingKind: ChannelKind<FundingSpec, null> = {
  type: 'funding',
  parse({ raw, parts, rest }) {
    arity(parts, 2, Infinity, raw, 'funding:<base>, e.g. funding:ETH')
    const { base } = readMarket(rest, raw, true)
    return { type: 'funding', name: `funding:${base}`, base }
  },
  base: (spec) => spec.base,
  start: (ctx) => new FundingChannels(ctx)
}
