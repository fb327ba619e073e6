/**
 * @module
 * The push stream's channels (docs/stream.md), independent of any socket library. Live records reach the
 * hub as the live state applies them; the hub turns them into channel updates, numbers them (ChannelLog),
 * retains them for resume and hands each encoded frame once to a Publisher (uWS pub/sub fans it out).
 *
 * - trades, candles and funding are pushed as records arrive (one update per channel per applied batch);
 * - screener, options, whales and confirm are derived: changes coalesce into at most one update per
 *   channel per tick (TICK_MS), and confirm is recomputed at least every CONFIRM_REFRESH_MS.
 * Only channels somebody subscribed to (or did within the retention window) exist; records for other
 * channels cost a map lookup.
 */
import type { LiveState } from '../live/live-state.js'
import { PERP_EXCHANGES, type NormalizedRecord, type TradeRecord, type FundingRecord } from '../records/types.js'
import { buildConfirmInputs } from '../live/confirm-inputs.js'
import { confirm, type Direction } from '../confirm/confirm.js'
import { collapseEvents, type WhaleEvent } from '../whales/collapse.js'
import { atLeast } from '../whales/significance.js'
import { TIMEFRAME_NAMES } from '../history/timeframes.js'
import { ApiError } from '../errors.js'
import { ChannelLog, RETAIN_MS, type Retained } from './channel-log.js'
import { CandleBook, type CandleEvent } from './candle-book.js'
import type { ChannelSpec } from './channels.js'
import { WhaleFeed } from './whale-feed.js'
import { encodeFrame, type Encoding, type ServerMessage } from './frames.js'

/** Derived channels coalesce into one update per tick, ms. */
export const TICK_MS = 1_000
/** A confirm channel is recomputed at least this often even without new records (24 h windows slide), ms. */
export const CONFIRM_REFRESH_MS = 10_000
/** Trades in a trades channel's snapshot (the newest retained). */
export const SNAPSHOT_TRADES = 100
/** Whale events in a whales channel's snapshot (newest of the last 24 h). */
export const SNAPSHOT_WHALE_EVENTS = 20

/** Where encoded frames go: uWS pub/sub in the server, a recorder in unit tests. */
export interface Publisher {
  publish(topic: string, frame: string | Uint8Array, binary: boolean): void
  subscribers(topic: string): number
}

export const topicOf = (encoding: Encoding, channel: string): string => (encoding === 'json' ? 'j|' : 'm|') + channel

interface Channel {
  readonly spec: ChannelSpec
  readonly log: ChannelLog
  /** subscriptions holding it; at 0 it is kept RETAIN_MS for resume, then dropped */
  refs: number
  idleSince: number
  /** routing key: market `exchange|symbol` of candle channels */
  readonly market: { exchange: string; symbol: string } | null
  /** latest state of state-like channels (confirm), and its change key */
  current: unknown
  currentKey: string
  computedAt: number
  computedVersion: number
  ready: Promise<void>
}

export interface StreamHubStats {
  readonly channels: number
  /** updates numbered and retained, all channels */
  readonly updates: number
  /** frames handed to subscribers (one per subscriber per update) */
  readonly messages: number
  /** confirm channel refreshes that failed (retried next tick) */
  readonly confirm_errors: number
}

export interface StreamHubOptions {
  readonly tickMs?: number
  readonly now?: () => number
}

export class StreamHub {
  private readonly channels = new Map<string, Channel>()
  /** candle channels by `exchange|symbol|timeframe index` (routing of candle events) */
  private readonly candleIndex = new Map<string, Channel[]>()
  private readonly candles = new CandleBook()
  private readonly whales: WhaleFeed
  private pub: Publisher | null = null
  /** confirm channels whose refresh failed (an input query to the store); counted, retried next tick */
  confirmErrors = 0
  private readonly now: () => number
  private readonly tickMs: number
  private updates = 0
  private messages = 0
  /** screener markets changed since the last tick (`exchange|symbol`) */
  private readonly screenerDirty = new Set<string>()
  private readonly optionsDirty = new Set<string>()

  constructor(
    private readonly live: LiveState,
    opts: StreamHubOptions = {}
  ) {
    this.now = opts.now ?? Date.now
    this.tickMs = opts.tickMs ?? TICK_MS
    this.whales = new WhaleFeed(live.whales)
    live.observe({
      apply: (records) => this.onRecords(records),
      rebuilt: () => this.candles.seed(live.store, this.now())
    })
  }

  attach(pub: Publisher): void {
    this.pub = pub
  }

  /** How often `tick` should run, ms (the server's supervisor runs it: engine/runtime/supervisor.ts). */
  get tickEveryMs(): number {
    return this.tickMs
  }

  stats(): StreamHubStats {
    return {
      channels: this.channels.size,
      updates: this.updates,
      messages: this.messages,
      confirm_errors: this.confirmErrors
    }
  }

  /** Seeds the forming candles (the live state was rebuilt before the hub existed). */
  async seed(): Promise<void> {
    await this.candles.seed(this.live.store, this.now())
  }

  /**
   * Takes a reference on a channel, creating it; throws ApiError when its symbol has no market.
   * Call `release` when the subscription ends.
   */
  acquire(spec: ChannelSpec): Channel {
    let ch = this.channels.get(spec.name)
    if (!ch) {
      ch = this.create(spec)
      this.channels.set(spec.name, ch)
      if (spec.type === 'candles') {
        const key = `${ch.market!.exchange}|${ch.market!.symbol}|${TIMEFRAME_NAMES.indexOf(spec.timeframe)}`
        this.candleIndex.set(key, [...(this.candleIndex.get(key) ?? []), ch])
      }
    }
    ch.refs++
    return ch
  }

  release(name: string): void {
    const ch = this.channels.get(name)
    if (!ch || ch.refs === 0) return
    if (--ch.refs === 0) ch.idleSince = this.now()
  }

  private create(spec: ChannelSpec): Channel {
    const now = this.now()
    let market: Channel['market'] = null
    if ('base' in spec && spec.type !== 'confirm' && spec.type !== 'funding') {
      const markets = this.live.screener
        .marketsOf(spec.base)
        .filter((m) => !spec.exchange || m.exchange === spec.exchange)
      if (markets.length === 0) {
        throw new ApiError(
          'unknown_symbol',
          `no perpetual market for ${spec.base}${spec.exchange ? ` on ${spec.exchange}` : ''} (Binance, Bybit or OKX)`
        )
      }
      if (spec.type === 'candles') market = markets[0]!
    } else if ((spec.type === 'confirm' || spec.type === 'funding') && !this.live.screener.hasBase(spec.base)) {
      throw new ApiError('unknown_symbol', `no perpetual market for ${spec.base} on Binance, Bybit or OKX`)
    }
    const ch: Channel = {
      spec,
      log: new ChannelLog(now),
      refs: 0,
      idleSince: now,
      market,
      current: null,
      currentKey: '',
      computedAt: 0,
      computedVersion: -1,
      ready: Promise.resolve()
    }
    if (spec.type === 'whales' && !this.hasType('whales')) this.whales.baseline(now)
    if (spec.type === 'confirm') {
      // observed at once (a subscriber awaits it only later): a failure is counted; the snapshot retries it
      ch.ready = this.refreshConfirm(ch, false).catch(() => void this.confirmErrors++)
    }
    return ch
  }

  private hasType(type: ChannelSpec['type']): boolean {
    for (const ch of this.channels.values()) if (ch.spec.type === type) return true
    return false
  }

  /** The channel's state now and the seq of the last update it includes. */
  async snapshot(ch: Channel): Promise<{ seq: number; data: unknown }> {
    await ch.ready
    const now = this.now()
    const spec = ch.spec
    const seq = ch.log.seq
    switch (spec.type) {
      case 'trades': {
        const trades: unknown[] = []
        for (const e of ch.log.recent(SNAPSHOT_TRADES)) trades.push(...(e.data as unknown[]))
        return { seq, data: trades.slice(-SNAPSHOT_TRADES) }
      }
      case 'candles': {
        const m = ch.market!
        return { seq, data: { exchange: m.exchange, ...this.candles.state(m.exchange, m.symbol, spec.timeframe) } }
      }
      case 'funding':
        return {
          seq,
          data: this.live.screener
            .marketsOf(spec.base)
            .map((m) => this.live.screener.rowOf(m.exchange, m.symbol, now)!)
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
      case 'screener':
        return { seq, data: { rows: this.live.screener.rows(now) } }
      case 'options':
        return { seq, data: this.live.options.chain(spec.currency as 'BTC' | 'ETH', now) }
      case 'whales': {
        const events = collapseEvents(this.live.whales.since(now - 86_400_000, now))
          .filter((e) => this.whaleMatches(spec, e))
          .slice(-SNAPSHOT_WHALE_EVENTS)
          .reverse()
        return { seq, data: { events } }
      }
      case 'confirm':
        // the first computation failed (the store was down): try once more, a failure reaches the subscriber
        if (ch.current === null || ch.current === undefined) await this.refreshConfirm(ch, false)
        return { seq, data: ch.current }
    }
  }

  /** Retained updates from `fromSeq` on, or null when a fresh snapshot is needed. */
  resume(ch: Channel, fromSeq: number): Retained[] | null {
    return ch.log.since(fromSeq, this.now())
  }

  private publish(ch: Channel, data: unknown): void {
    const now = this.now()
    const seq = ch.log.append(data, now)
    this.updates++
    const pub = this.pub
    if (!pub) return
    const msg: ServerMessage = { type: 'update', channel: ch.spec.name, seq, data }
    for (const enc of ['json', 'msgpack'] as const) {
      const topic = topicOf(enc, ch.spec.name)
      const n = pub.subscribers(topic)
      if (n === 0) continue
      pub.publish(topic, encodeFrame(msg, enc), enc === 'msgpack')
      this.messages += n
    }
  }

  /** Counts a frame sent outside pub/sub (acks, snapshots, replays). */
  countSent(n = 1): void {
    this.messages += n
  }

  // ---- records as they arrive -------------------------------------------------------------------------

  private onRecords(records: readonly NormalizedRecord[]): void {
    if (this.channels.size === 0) {
      // still keep forming candles current for the first subscriber
      const trades = records.filter((r): r is TradeRecord => r.kind === 'trade')
      if (trades.length)
        this.candles.apply(
          trades,
          () => false,
          () => undefined
        )
      return
    }
    const trades: TradeRecord[] = []
    const funding: FundingRecord[] = []
    const screener = this.channels.has('screener')
    for (const r of records) {
      switch (r.kind) {
        case 'trade':
          trades.push(r)
          if (screener) this.screenerDirty.add(`${r.exchange}|${r.symbol}`)
          break
        case 'funding':
          funding.push(r)
          if (screener) this.screenerDirty.add(`${r.exchange}|${r.symbol}`)
          break
        case 'open_interest':
        case 'long_short':
          if (screener) this.screenerDirty.add(`${r.exchange}|${r.symbol}`)
          break
        case 'option_quote':
          this.optionsDirty.add(r.instrument.slice(0, r.instrument.indexOf('-')))
          break
      }
    }
    if (trades.length) {
      this.pushTrades(trades)
      this.candles.apply(
        trades,
        (m, i) => this.candleChannels(m.exchange, m.symbol, i).length > 0,
        (e) => this.pushCandle(e)
      )
    }
    if (funding.length) this.pushFunding(funding)
  }

  private pushTrades(trades: readonly TradeRecord[]): void {
    const byBase = new Map<string, TradeRecord[]>()
    for (const t of trades) {
      if (t.market !== 'perp') continue
      if (!this.channels.has(`trades:${t.base}`) && !this.channels.has(`trades:${t.base}@${t.exchange}`)) continue
      let list = byBase.get(t.base)
      if (!list) byBase.set(t.base, (list = []))
      list.push(t)
    }
    for (const [base, list] of byBase) {
      const all = this.channels.get(`trades:${base}`)
      if (all) this.publish(all, list.map(tradeWire))
      for (const ex of PERP_EXCHANGES) {
        const ch = this.channels.get(`trades:${base}@${ex}`)
        if (ch) {
          const own = list.filter((t) => t.exchange === ex)
          if (own.length) this.publish(ch, own.map(tradeWire))
        }
      }
    }
  }

  private candleChannels(exchange: string, symbol: string, tf: number): readonly Channel[] {
    return this.candleIndex.get(`${exchange}|${symbol}|${tf}`) ?? NONE
  }

  private drop(ch: Channel): void {
    this.channels.delete(ch.spec.name)
    if (ch.spec.type !== 'candles') return
    const key = `${ch.market!.exchange}|${ch.market!.symbol}|${TIMEFRAME_NAMES.indexOf(ch.spec.timeframe)}`
    const rest = (this.candleIndex.get(key) ?? []).filter((c) => c !== ch)
    if (rest.length) this.candleIndex.set(key, rest)
    else this.candleIndex.delete(key)
  }

  private pushCandle(e: CandleEvent): void {
    for (const ch of this.candleChannels(e.exchange, e.symbol, TIMEFRAME_NAMES.indexOf(e.timeframe))) {
      this.publish(ch, { exchange: e.exchange, closed: e.closed, ...e.candle })
    }
  }

  private pushFunding(records: readonly FundingRecord[]): void {
    const byBase = new Map<string, FundingRecord[]>()
    for (const r of records) {
      if (!this.channels.has(`funding:${r.base}`)) continue
      let list = byBase.get(r.base)
      if (!list) byBase.set(r.base, (list = []))
      list.push(r)
    }
    for (const [base, list] of byBase) {
      this.publish(
        this.channels.get(`funding:${base}`)!,
        list.map((r) => ({
          ts: r.ts,
          exchange: r.exchange,
          symbol: r.symbol,
          base: r.base,
          funding_rate: r.funding_rate,
          interval_hours: r.interval_hours,
          funding_rate_annualized: r.interval_hours > 0 ? (r.funding_rate * 8760) / r.interval_hours : null,
          next_funding_ts: r.next_funding_ts ?? null,
          mark_price: r.mark_price ?? null
        }))
      )
    }
  }

  // ---- derived channels, once per tick ----------------------------------------------------------------

  /**
   * One pass over the derived channels, every `tickEveryMs` under the server's supervisor. A confirm
   * channel whose refresh fails is counted and retried next pass; the pass completes for every other
   * channel, then rejects with the first failure (the supervisor counts it).
   */
  async tick(): Promise<void> {
    const now = this.now()
    let failure: unknown
    this.candles.closeDue(
      now,
      (m, i) => this.candleChannels(m.exchange, m.symbol, i).length > 0,
      (e) => this.pushCandle(e)
    )
    const screener = this.channels.get('screener')
    if (screener && this.screenerDirty.size) {
      const rows = []
      for (const key of this.screenerDirty) {
        const [exchange, symbol] = key.split('|') as [string, string]
        const row = this.live.screener.rowOf(exchange, symbol, now)
        if (row) rows.push(row)
      }
      if (rows.length) this.publish(screener, { rows })
    }
    this.screenerDirty.clear()
    for (const currency of this.optionsDirty) {
      const ch = this.channels.get(`options:${currency}`)
      if (ch) this.publish(ch, this.live.options.chain(currency as 'BTC' | 'ETH', now))
    }
    this.optionsDirty.clear()
    if (this.hasType('whales')) {
      const events = this.whales.changed(now)
      if (events.length) {
        for (const ch of this.channels.values()) {
          if (ch.spec.type !== 'whales') continue
          const spec = ch.spec
          const mine = events.filter((e) => this.whaleMatches(spec, e))
          if (mine.length) this.publish(ch, { events: mine })
        }
      }
    } else this.whales.reset()
    for (const ch of [...this.channels.values()]) {
      if (
        ch.spec.type === 'confirm' &&
        (ch.computedVersion !== this.live.version || now - ch.computedAt >= CONFIRM_REFRESH_MS)
      ) {
        // one channel's failing input query (the store is down) must not stop the others' expiry
        try {
          await this.refreshConfirm(ch, true)
        } catch (err) {
          this.confirmErrors++
          failure ??= err
        }
      }
      ch.log.expire(now)
      if (ch.refs === 0 && now - ch.idleSince > RETAIN_MS) this.drop(ch)
    }
    // reported once the pass is complete: the supervisor counts it
    if (failure !== undefined) throw failure
  }

  private whaleMatches(spec: Extract<ChannelSpec, { type: 'whales' }>, e: WhaleEvent): boolean {
    return (spec.chain === null || e.chain === spec.chain) && atLeast(e.significance, spec.min)
  }

  /** Recomputes a confirm channel; publishes when the verdict of either direction changed. */
  private async refreshConfirm(ch: Channel, publish: boolean): Promise<void> {
    if (ch.spec.type !== 'confirm') return
    const base = ch.spec.base
    const now = this.now()
    const version = this.live.version
    const inputs = await buildConfirmInputs(base, now, this.live)
    const both = { symbol: base, long: confirm(base, 'long', inputs, now), short: confirm(base, 'short', inputs, now) }
    ch.computedAt = now
    ch.computedVersion = version
    const key = (['long', 'short'] as Direction[])
      .map((d) => {
        const r = both[d]
        return `${r.composite}|${r.action}|${r.confirmation}|${r.score}|${r.confidence}`
      })
      .join('/')
    if (key === ch.currentKey) return
    ch.current = both
    ch.currentKey = key
    if (publish) this.publish(ch, both)
  }
}

export type { Channel }

const NONE: readonly Channel[] = []

function tradeWire(t: TradeRecord): unknown {
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
