/**
 * @module
 * Live derivatives screener state: one entry per perpetual market (exchange + symbol), updated as records
 * arrive and rebuilt from the hourly views. Per market it keeps the latest funding and long/short reading,
 * and hourly rings (HOURS slots, indexed by epoch hour) of open interest (last reading in the hour) and quote
 * volume (sum), so 24h changes are lookups:
 * - open_interest_change_24h = (OI now / OI 24 h ago − 1) × 100, percent; null without a reading 24 h ago
 * - volume_change_24h = (volume of the last 24 h / volume of the 24 h before − 1) × 100, percent
 */
import { PERP_EXCHANGES } from '../records/types.js'
import type {
  FundingRecord,
  LongShortRecord,
  NormalizedRecord,
  OpenInterestRecord,
  TradeRecord
} from '../records/types.js'

const HOUR_MS = 3_600_000
/** Hourly slots kept per market: two full days for the volume comparison, plus the current hour. */
const HOURS = 49

export interface ScreenerRow {
  readonly symbol: string
  readonly exchange: string
  readonly base: string
  /** percent */
  readonly open_interest_change_24h: number | null
  /** decimal fraction per funding interval */
  readonly funding_rate: number | null
  readonly funding_interval_hours: number | null
  /** funding_rate × 8760 / interval, decimal fraction per year */
  readonly funding_rate_annualized: number | null
  /** latest accounts long / short ratio of this market */
  readonly long_short_ratio_cumulative: number | null
  /** percent */
  readonly volume_change_24h: number | null
  readonly open_interest_usd: number | null
  readonly volume_24h_usd: number
  /** epoch seconds of the newest reading */
  readonly updated: number
}

interface Market {
  readonly exchange: string
  readonly symbol: string
  readonly base: string
  funding: { rate: number; interval: number; ts: number } | null
  lsr: { ratio: number; ts: number } | null
  oiUsd: { value: number; ts: number } | null
  /** epoch hour of each slot, so stale slots are recognized */
  readonly hourOf: Int32Array
  readonly oiHour: Float64Array
  readonly volHour: Float64Array
  /** last trade price in the hour */
  readonly closeHour: Float64Array
  /** newest trade price and time */
  last: { price: number; ts: number } | null
  updated: number
}

/** Aggregates of one base asset over its markets, for the confirmation model. */
export interface BaseStats {
  /**
   * the market whose funding and long/short feed the model: among the base's markets with a funding
   * reading (else all of them), the first in venue order (Binance, Bybit, OKX), then symbol order
   */
  readonly primary: { readonly exchange: string; readonly symbol: string } | null
  readonly fundingRate: number | null
  readonly fundingIntervalHours: number | null
  readonly longShortRatio: number | null
  /** fraction: summed OI (USD) now vs 24 h ago over markets having both readings */
  readonly oiChange24h: number | null
  /** fraction: primary market's last price vs its last price of the hour 24 h ago */
  readonly priceChange24h: number | null
}

/** the primary market of a base: Binance, else Bybit, else OKX (the order of PERP_EXCHANGES) */
const VENUE_PREFERENCE: readonly string[] = PERP_EXCHANGES

/**
 * The markets' order for choosing a primary: venue preference, then symbol (code-unit order), so two
 * markets of one venue (BTCUSDT, BTCUSDC) rank the same whatever order they were loaded or seen in.
 */
function marketOrder(a: { exchange: string; symbol: string }, b: { exchange: string; symbol: string }): number {
  const v = VENUE_PREFERENCE.indexOf(a.exchange) - VENUE_PREFERENCE.indexOf(b.exchange)
  return v !== 0 ? v : a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0
}

/** Empties a market's state in place: what `newMarket` gives, keeping its arrays. */
function resetMarket(m: Market): void {
  m.funding = null
  m.lsr = null
  m.oiUsd = null
  m.hourOf.fill(-1)
  m.oiHour.fill(Number.NaN)
  m.volHour.fill(0)
  m.closeHour.fill(Number.NaN)
  m.last = null
  m.updated = 0
}

function newMarket(exchange: string, symbol: string, base: string): Market {
  return {
    exchange,
    symbol,
    base,
    funding: null,
    lsr: null,
    oiUsd: null,
    hourOf: new Int32Array(HOURS).fill(-1),
    oiHour: new Float64Array(HOURS).fill(Number.NaN),
    volHour: new Float64Array(HOURS),
    closeHour: new Float64Array(HOURS).fill(Number.NaN),
    last: null,
    updated: 0
  }
}

/**
 * The ring slot of `hour`, taken over (cleared) when it held an older hour; -1 when a newer hour holds it:
 * a record older than the ring (a late import) must not clear the current hours.
 */
function slot(m: Market, hour: number): number {
  const i = hour % HOURS
  if (m.hourOf[i]! > hour) return -1
  if (m.hourOf[i] !== hour) {
    m.hourOf[i] = hour
    m.oiHour[i] = Number.NaN
    m.volHour[i] = 0
    m.closeHour[i] = Number.NaN
  }
  return i
}

export class ScreenerBook {
  /** every market by `exchange|symbol`, in the order first seen (the order of `rows`) */
  private readonly markets = new Map<string, Market>()
  /** the same markets by venue, then symbol: the lookup of the record path, which builds no key string */
  private readonly byVenue = new Map<string, Map<string, Market>>()
  /** the same markets by base asset, in `marketOrder` (markets are only added, or all cleared): for `baseStats` */
  private readonly bases = new Map<string, Market[]>()
  /**
   * Bumped by every change of what `rows` and `baseStats` answer (an applied batch that holds a screener
   * record, a load, a clear): equal versions mean equal answers at any moment of the same UTC hour.
   */
  version = 0
  /** bumped by `clear` (a rebuild of the live state starts with one) */
  epoch = 0
  /** markets emptied by `reset`, by `exchange|symbol`: taken back (emptied) when a market is loaded again */
  private readonly spare = new Map<string, Market>()

  private market(exchange: string, symbol: string, base: string): Market {
    const venue = this.byVenue.get(exchange)
    let m = venue?.get(symbol)
    if (!m) {
      const key = `${exchange}|${symbol}`
      const kept = this.spare.get(key)
      if (kept && kept.base === base) resetMarket((m = kept))
      else m = newMarket(exchange, symbol, base)
      this.markets.set(key, m)
      if (venue) venue.set(symbol, m)
      else this.byVenue.set(exchange, new Map([[symbol, m]]))
      const ofBase = this.bases.get(base)
      if (!ofBase) this.bases.set(base, [m])
      else {
        // after every market not ordered after it: markets that tie stay in the order first seen
        let i = ofBase.length
        while (i > 0 && marketOrder(ofBase[i - 1]!, m) > 0) i--
        ofBase.splice(i, 0, m)
      }
    }
    return m
  }

  apply(records: readonly NormalizedRecord[]): void {
    // the market of the previous record, reused by the next record of the same market without a lookup
    let m: Market | null = null
    for (const r of records) {
      switch (r.kind) {
        case 'trade':
          if (r.market === 'perp') this.trade((m = this.marketOf(m, r)), r)
          break
        case 'funding':
          this.fundingRecord((m = this.marketOf(m, r)), r)
          break
        case 'open_interest':
          this.openInterest((m = this.marketOf(m, r)), r)
          break
        case 'long_short':
          this.longShort((m = this.marketOf(m, r)), r)
          break
      }
    }
    // once per batch: a batch without a screener record leaves the version (and the cached answers) alone
    if (m !== null) this.version++
  }

  /** The record's market: `prev` when the record is of it (a batch is mostly runs of one market). */
  private marketOf(
    prev: Market | null,
    r: { readonly exchange: string; readonly symbol: string; readonly base: string }
  ): Market {
    return prev !== null && prev.symbol === r.symbol && prev.exchange === r.exchange
      ? prev
      : this.market(r.exchange, r.symbol, r.base)
  }

  private touch(m: Market, ts: number): void {
    if (ts > m.updated) m.updated = ts
  }

  private trade(m: Market, r: TradeRecord): void {
    const i = slot(m, Math.floor(r.ts / HOUR_MS))
    if (i >= 0) m.volHour[i]! += r.price * r.qty
    const last = m.last
    if (!last || r.ts >= last.ts) {
      // updated in place: the newest price changes with nearly every trade
      if (last) {
        last.price = r.price
        last.ts = r.ts
      } else m.last = { price: r.price, ts: r.ts }
      if (i >= 0) m.closeHour[i] = r.price
    }
    this.touch(m, r.ts)
  }

  private fundingRecord(m: Market, r: FundingRecord): void {
    if (!m.funding || r.ts >= m.funding.ts) m.funding = { rate: r.funding_rate, interval: r.interval_hours, ts: r.ts }
    this.touch(m, r.ts)
  }

  private openInterest(m: Market, r: OpenInterestRecord): void {
    if (!m.oiUsd || r.ts >= m.oiUsd.ts) m.oiUsd = { value: r.oi_usd, ts: r.ts }
    const i = slot(m, Math.floor(r.ts / HOUR_MS))
    if (i >= 0) m.oiHour[i] = r.oi_usd
    this.touch(m, r.ts)
  }

  private longShort(m: Market, r: LongShortRecord): void {
    if (!m.lsr || r.ts >= m.lsr.ts) m.lsr = { ratio: r.long_short_ratio, ts: r.ts }
    this.touch(m, r.ts)
  }

  /** Hourly figures from the store (rebuild): OI of the hour and quote volume of the hour. */
  loadHour(
    exchange: string,
    symbol: string,
    base: string,
    hour: number,
    oiUsd: number | null,
    volumeUsd: number,
    close: number | null
  ): void {
    const m = this.market(exchange, symbol, base)
    this.version++
    const i = slot(m, hour)
    if (i < 0) return
    if (oiUsd !== null) m.oiHour[i] = oiUsd
    m.volHour[i] = volumeUsd
    if (close !== null) {
      m.closeHour[i] = close
      if (!m.last || hour * HOUR_MS >= m.last.ts) m.last = { price: close, ts: hour * HOUR_MS }
    }
  }

  /**
   * A market's newest trade time from the store (rebuild, after `loadHour`): its `updated`, and the time of
   * its last price (the close of its newest hour), as the live path keeps them.
   */
  loadLastTrade(exchange: string, symbol: string, ts: number): void {
    const m = this.byVenue.get(exchange)?.get(symbol)
    if (!m) return
    this.version++
    if (m.last && ts >= m.last.ts) m.last = { price: m.last.price, ts }
    this.touch(m, ts)
  }

  /** Whether any market lists this base asset. */
  hasBase(base: string): boolean {
    return this.bases.has(base)
  }

  /** The confirmation model's derivatives inputs for a base asset at `nowMs`. */
  baseStats(base: string, nowMs: number): BaseStats {
    const markets = this.bases.get(base) ?? []
    const primary = markets.find((m) => m.funding) ?? markets[0]
    const agoHour = Math.floor(nowMs / HOUR_MS) - 24
    const ago = (m: Market, ring: Float64Array): number => {
      const i = agoHour % HOURS
      return m.hourOf[i] === agoHour ? ring[i]! : Number.NaN
    }
    let oiNow = 0
    let oiAgo = 0
    for (const m of markets) {
      const then = ago(m, m.oiHour)
      if (m.oiUsd && Number.isFinite(then) && then > 0) {
        oiNow += m.oiUsd.value
        oiAgo += then
      }
    }
    const priceAgo = primary ? ago(primary, primary.closeHour) : Number.NaN
    return {
      primary: primary ? { exchange: primary.exchange, symbol: primary.symbol } : null,
      fundingRate: primary?.funding?.rate ?? null,
      fundingIntervalHours: primary?.funding?.interval ?? null,
      longShortRatio: primary?.lsr?.ratio ?? null,
      oiChange24h: oiAgo > 0 ? oiNow / oiAgo - 1 : null,
      priceChange24h:
        primary?.last && Number.isFinite(priceAgo) && priceAgo > 0 ? primary.last.price / priceAgo - 1 : null
    }
  }

  /** Latest readings from the store (rebuild). */
  loadLatest(records: readonly NormalizedRecord[]): void {
    this.version++
    for (const r of records) {
      if (r.kind === 'funding') this.fundingRecord(this.market(r.exchange, r.symbol, r.base), r)
      else if (r.kind === 'long_short') this.longShort(this.market(r.exchange, r.symbol, r.base), r)
      else if (r.kind === 'open_interest') {
        const m = this.market(r.exchange, r.symbol, r.base)
        if (!m.oiUsd || r.ts >= m.oiUsd.ts) m.oiUsd = { value: r.oi_usd, ts: r.ts }
        this.touch(m, r.ts)
      }
    }
  }

  clear(): void {
    this.markets.clear()
    this.byVenue.clear()
    this.bases.clear()
    this.version++
    this.epoch++
  }

  /**
   * Empties the book as `clear` does, keeping each market's storage for when it is loaded again: a book
   * filled anew at each of many moments (engine/asof/confirm-series.ts) then allocates its rings once.
   */
  reset(): void {
    for (const [k, m] of this.markets) this.spare.set(k, m)
    this.clear()
  }

  private row(m: Market, nowHour: number): ScreenerRow {
    let vol24 = 0
    let volPrev = 0
    let seenPrev = false
    for (let h = nowHour - 47; h <= nowHour; h++) {
      const i = h % HOURS
      if (m.hourOf[i] !== h) continue
      if (h > nowHour - 24) vol24 += m.volHour[i]!
      else {
        volPrev += m.volHour[i]!
        seenPrev = true
      }
    }
    const agoIndex = (nowHour - 24) % HOURS
    const oiAgo = m.hourOf[agoIndex] === nowHour - 24 ? m.oiHour[agoIndex]! : Number.NaN
    const oiNow = m.oiUsd?.value ?? null
    const f = m.funding
    const pct = (a: number, b: number): number | null =>
      b > 0 && Number.isFinite(a) && Number.isFinite(b) ? (a / b - 1) * 100 : null
    return {
      symbol: m.symbol,
      exchange: m.exchange,
      base: m.base,
      open_interest_change_24h: oiNow === null ? null : pct(oiNow, oiAgo),
      funding_rate: f ? f.rate : null,
      funding_interval_hours: f ? f.interval : null,
      funding_rate_annualized: f && f.interval > 0 ? (f.rate * 8760) / f.interval : null,
      long_short_ratio_cumulative: m.lsr ? m.lsr.ratio : null,
      volume_change_24h: seenPrev ? pct(vol24, volPrev) : null,
      open_interest_usd: oiNow,
      volume_24h_usd: vol24,
      updated: Math.floor(m.updated / 1000)
    }
  }

  /** One market's row at `nowMs` (push-stream updates of changed markets); null for an unknown market. */
  rowOf(exchange: string, symbol: string, nowMs: number): ScreenerRow | null {
    const m = this.byVenue.get(exchange)?.get(symbol)
    return m ? this.row(m, Math.floor(nowMs / HOUR_MS)) : null
  }

  /** The markets of a base asset, Binance first, then Bybit, then OKX (the default venue order). */
  marketsOf(base: string): { readonly exchange: string; readonly symbol: string }[] {
    const out: { exchange: string; symbol: string }[] = []
    for (const m of this.markets.values()) if (m.base === base) out.push({ exchange: m.exchange, symbol: m.symbol })
    return out.sort((a, b) => VENUE_PREFERENCE.indexOf(a.exchange) - VENUE_PREFERENCE.indexOf(b.exchange))
  }

  /** Every market's row at `nowMs`. */
  rows(nowMs: number): ScreenerRow[] {
    const nowHour = Math.floor(nowMs / HOUR_MS)
    return [...this.markets.values()].map((m) => this.row(m, nowHour))
  }
}
