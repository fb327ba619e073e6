/**
 * @module
 * Forming candles of every perpetual market at every timeframe, from live trades (the push stream's
 * `candles:<symbol>:<timeframe>` channels). Seeded from the candle tables at each live-state rebuild, so a
 * candle that began before the process started is complete; then every live trade folds in.
 *
 * Invariants:
 * - A candle covers [start, end) by the same alignment as the candle tables (engine/history/span.ts).
 * - A candle closes when a trade of a later bucket arrives, or when `closeDue` runs CLOSE_GRACE_MS after
 *   its end (trades may arrive a little late); trades older than the forming bucket are not folded in
 *   (they are in the store and in GET /v1/historical/ohlcv) and are counted in `lateTrades`.
 */
import type { Store } from '../store/store.js'
import type { NormalizedRecord } from '../records/types.js'
import { TIMEFRAMES, TIMEFRAME_NAMES, type TimeframeName } from '../history/timeframes.js'
import { floorTo, plus } from '../history/span.js'
import type { Candle } from '../history/candles.js'

/** How long after its end a candle without a later trade is closed by time, ms. */
export const CLOSE_GRACE_MS = 2_000

interface Forming {
  start: number
  end: number
  open: number
  high: number
  low: number
  close: number
  vb: number
  vq: number
  n: number
}

interface MarketCandles {
  /** `exchange|symbol`, made once: the book's and the channels' routing key */
  readonly key: string
  readonly exchange: string
  readonly symbol: string
  readonly base: string
  /** one per TIMEFRAME_NAMES entry; null before the first trade */
  readonly forming: (Forming | null)[]
  readonly lastClosed: (Candle | null)[]
}

/** A forming or closed candle of one market, as pushed. */
export interface CandleEvent {
  readonly exchange: string
  readonly symbol: string
  readonly base: string
  readonly timeframe: TimeframeName
  readonly candle: Candle
  readonly closed: boolean
}

function toCandle(f: Forming, symbol: string, timeframe: string): Candle {
  return {
    timestamp: f.start,
    symbol,
    timeframe,
    open: f.open,
    high: f.high,
    low: f.low,
    close: f.close,
    volume_base: f.vb,
    volume_quote: f.vq,
    trades: f.n
  }
}

export class CandleBook {
  private readonly markets = new Map<string, MarketCandles>()
  /**
   * Epoch ms, at most the end of every forming candle (Infinity: none): `closeDue` scans the markets only
   * once this plus CLOSE_GRACE_MS has passed, so the once-a-second tick is a comparison between bucket ends
   * (a scan a minute, at the 1m candles' end, instead of one a second).
   */
  private nextEnd = Infinity
  /** trades older than their market's forming bucket (not folded in) */
  lateTrades = 0

  private market(exchange: string, symbol: string, base: string): MarketCandles {
    const key = `${exchange}|${symbol}`
    let m = this.markets.get(key)
    if (!m) {
      m = {
        key,
        exchange,
        symbol,
        base,
        forming: TIMEFRAME_NAMES.map(() => null),
        lastClosed: TIMEFRAME_NAMES.map(() => null)
      }
      this.markets.set(key, m)
    }
    return m
  }

  /**
   * Folds the perp trades of a batch of records in (other records are skipped). `emit` receives each candle
   * that closed and then each candle that changed (once per market and timeframe per call, after all trades
   * are folded); `wanted` filters by market and timeframe so unwatched candles cost no allocation.
   */
  apply(
    records: readonly NormalizedRecord[],
    wanted: (m: MarketCandles, tf: number) => boolean,
    emit: (e: CandleEvent) => void
  ): void {
    let touched: Set<MarketCandles> | null = null
    for (const t of records) {
      if (t.kind !== 'trade' || t.market !== 'perp') continue
      const m = this.market(t.exchange, t.symbol, t.base)
      touched ??= new Set()
      touched.add(m)
      for (let i = 0; i < TIMEFRAME_NAMES.length; i++) {
        let f = m.forming[i]!
        if (f !== null && t.ts < f.start) {
          this.lateTrades++
          continue
        }
        if (f === null || t.ts >= f.end) {
          if (f !== null) this.close(m, i, wanted, emit)
          const span = TIMEFRAMES[TIMEFRAME_NAMES[i]!].span
          const start = floorTo(t.ts, span)
          f = {
            start,
            end: plus(start, span),
            open: t.price,
            high: t.price,
            low: t.price,
            close: t.price,
            vb: 0,
            vq: 0,
            n: 0
          }
          m.forming[i] = f
          if (f.end < this.nextEnd) this.nextEnd = f.end
        }
        if (t.price > f.high) f.high = t.price
        if (t.price < f.low) f.low = t.price
        f.close = t.price
        f.vb += t.qty
        f.vq += t.qty * t.price
        f.n++
      }
    }
    if (touched === null) return
    for (const m of touched) {
      for (let i = 0; i < TIMEFRAME_NAMES.length; i++) {
        const f = m.forming[i]
        if (f && wanted(m, i)) emit(this.event(m, i, toCandle(f, m.symbol, TIMEFRAME_NAMES[i]!), false))
      }
    }
  }

  private event(m: MarketCandles, i: number, candle: Candle, closed: boolean): CandleEvent {
    return { exchange: m.exchange, symbol: m.symbol, base: m.base, timeframe: TIMEFRAME_NAMES[i]!, candle, closed }
  }

  private close(
    m: MarketCandles,
    i: number,
    wanted: (m: MarketCandles, tf: number) => boolean,
    emit: (e: CandleEvent) => void
  ): void {
    const f = m.forming[i]!
    const candle = toCandle(f, m.symbol, TIMEFRAME_NAMES[i]!)
    m.lastClosed[i] = candle
    m.forming[i] = null
    if (wanted(m, i)) emit(this.event(m, i, candle, true))
  }

  /** Closes candles whose end passed more than CLOSE_GRACE_MS before `nowMs`. */
  closeDue(nowMs: number, wanted: (m: MarketCandles, tf: number) => boolean, emit: (e: CandleEvent) => void): void {
    if (this.nextEnd + CLOSE_GRACE_MS > nowMs) return
    let next = Infinity
    for (const m of this.markets.values()) {
      for (let i = 0; i < TIMEFRAME_NAMES.length; i++) {
        const f = m.forming[i]
        if (!f) continue
        if (f.end + CLOSE_GRACE_MS <= nowMs) this.close(m, i, wanted, emit)
        else if (f.end < next) next = f.end
      }
    }
    this.nextEnd = next
  }

  /** The forming and last closed candle of a market (snapshots). */
  state(
    exchange: string,
    symbol: string,
    timeframe: TimeframeName
  ): { forming: Candle | null; last_closed: Candle | null } {
    const m = this.markets.get(`${exchange}|${symbol}`)
    const i = TIMEFRAME_NAMES.indexOf(timeframe)
    const f = m?.forming[i] ?? null
    return { forming: f ? toCandle(f, symbol, timeframe) : null, last_closed: m?.lastClosed[i] ?? null }
  }

  /**
   * Reloads the forming candle of every market and timeframe from the candle tables (the bucket holding
   * `nowMs`), and the candle before it as the last closed one.
   */
  async seed(store: Store, nowMs: number): Promise<void> {
    this.markets.clear()
    this.nextEnd = Infinity
    for (let i = 0; i < TIMEFRAME_NAMES.length; i++) {
      const tf = TIMEFRAMES[TIMEFRAME_NAMES[i]!]
      const start = floorTo(nowMs, tf.span)
      const prev = floorTo(start - 1, tf.span)
      const rows = await store.query<{
        exchange: string
        symbol: string
        base: string
        t: number
        o: number
        h: number
        l: number
        c: number
        vb: number
        vq: number
        n: number
      }>(
        `SELECT exchange, symbol, base, toUnixTimestamp(bucket) * 1000 AS t, argMinMerge(open) AS o, max(high) AS h,
                min(low) AS l, argMaxMerge(close) AS c, sum(volume_base) AS vb, sum(volume_quote) AS vq,
                toUInt64(sum(trades)) AS n
         FROM ${tf.table}
         WHERE bucket >= toDateTime({prev:UInt32}, 'UTC') AND bucket < toDateTime({end:UInt32}, 'UTC')
         GROUP BY exchange, symbol, base, bucket`,
        { prev: prev / 1000, end: plus(start, tf.span) / 1000 }
      )
      for (const r of rows) {
        const m = this.market(r.exchange, r.symbol, r.base)
        const f: Forming = {
          start: r.t,
          end: plus(r.t, tf.span),
          open: r.o,
          high: r.h,
          low: r.l,
          close: r.c,
          vb: r.vb,
          vq: r.vq,
          n: Number(r.n)
        }
        if (r.t === start) {
          m.forming[i] = f
          if (f.end < this.nextEnd) this.nextEnd = f.end
        } else m.lastClosed[i] = toCandle(f, r.symbol, tf.name)
      }
    }
  }
}

export type { MarketCandles }
