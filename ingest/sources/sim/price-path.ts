/**
 * @module
 * One continuous USD price path per base asset, shared by every venue, the options index and the
 * whale token prices. Construction, all pure functions of (seed, asset, day):
 * - a daily anchor: the log deviation from refPrice is a mean-reverting (AR(1)) sum of past daily shocks,
 *   truncated to `ANCHOR_MEMORY` reversion times, so it is computable for any day directly;
 * - inside the day, a Brownian bridge between the two anchors at minute resolution, with a market-wide
 *   hourly volatility multiplier (calm hours, stress bursts) so fast moves cluster across assets;
 * - the log deviation is soft-bounded by tanh, so prices stay within -30%..+43% of refPrice;
 * - between minute points, linear interpolation: continuous, and exact to evaluate at any ms.
 * Shocks are a market factor (BTC) plus an idiosyncratic part weighted by the asset's correlation.
 * Day curves (1441 prices) are cached for the few most recent days touched.
 */
import { fastNormal, gauss, hashKey, smoothNoise, streamId, unit } from './hash-rng.js'
import type { BaseAsset } from './universe.js'

const DAY_MS = 86_400_000
const MINUTE_MS = 60_000
const HOUR_MS = 3_600_000
/** minute points per day; the curve holds one more (the next day's anchor) so interpolation never wraps */
const MINUTES_PER_DAY = 1440
/** tanh bound of the log deviation from refPrice: exp(-0.36) = 0.70, exp(0.36) = 1.43 */
const LOG_BOUND = 0.36
/** anchors sum this many reversion times of past shocks; older shocks weigh less than e^-3 */
const ANCHOR_MEMORY = 3
/** day entries kept; generation walks forward in time, so a handful is plenty */
const MAX_CACHED_DAYS = 6
/** market-factor shocks kept (each anchor reads up to ~90 past days of them) */
const MAX_CACHED_MARKET_SHOCKS = 4096
/** log-sd of the market-wide hourly volatility multiplier, and its persistence (knot spacing) */
const HOUR_VOL_LOG_SD = 0.4
const HOUR_VOL_PERIOD_MS = 6 * HOUR_MS
/** chance that an hour is a stress hour (volatility x e), which is where liquidations cluster */
const STRESS_HOUR_PROBABILITY = 0.02

const STREAM_MARKET_SHOCK = streamId(10, 0)
const STREAM_MARKET_STEP = streamId(10, 1)
const STREAM_HOUR_VOL = streamId(10, 2)
const STREAM_STRESS = streamId(10, 3)
const TAG_ANCHOR_SHOCK = 11
const TAG_MINUTE_STEP = 12

interface DayEntry {
  /** log deviation anchor at the start of the day, per base (NaN until computed) */
  readonly anchors: Float64Array
  /** minute price curve of the day, per base */
  readonly curves: (Float64Array | undefined)[]
  /** market-factor minute shocks of the day, scaled by the hourly volatility multiplier */
  marketSteps: Float64Array | undefined
  /** market hourly volatility multiplier, 24 values */
  hourVol: Float64Array | undefined
}

export class PricePath {
  private readonly seed: number
  private readonly bases: readonly BaseAsset[]
  private readonly days = new Map<number, DayEntry>()
  private readonly marketShocks = new Map<number, number>()
  /** per base: the day of the last curve used, and that curve (hot-path shortcut around the Map) */
  private readonly lastDay: Float64Array
  private readonly lastCurve: (Float64Array | undefined)[]

  constructor(seed: number, bases: readonly BaseAsset[]) {
    this.seed = seed
    this.bases = bases
    this.lastDay = new Float64Array(bases.length).fill(NaN)
    this.lastCurve = new Array<Float64Array | undefined>(bases.length).fill(undefined)
  }

  /** USD price of base `bi` at epoch ms `t` */
  at(bi: number, t: number): number {
    const day = Math.floor(t / DAY_MS)
    let curve = this.lastCurve[bi]
    if (curve === undefined || this.lastDay[bi] !== day) {
      curve = this.curve(bi, day)
      this.lastCurve[bi] = curve
      this.lastDay[bi] = day
    }
    const x = (t - day * DAY_MS) / MINUTE_MS
    const i = Math.floor(x)
    const a = curve[i]!
    return a + (curve[i + 1]! - a) * (x - i)
  }

  /** log return of base `bi` from `t0` to `t1` */
  logReturn(bi: number, t0: number, t1: number): number {
    return Math.log(this.at(bi, t1) / this.at(bi, t0))
  }

  private entry(day: number): DayEntry {
    let e = this.days.get(day)
    if (e !== undefined) {
      // least-recently-used order: a day in use is never the one evicted
      this.days.delete(day)
      this.days.set(day, e)
    } else {
      if (this.days.size >= MAX_CACHED_DAYS) this.days.delete(this.days.keys().next().value!)
      const n = this.bases.length
      e = {
        anchors: new Float64Array(n).fill(NaN),
        curves: new Array(n).fill(undefined),
        marketSteps: undefined,
        hourVol: undefined
      }
      this.days.set(day, e)
    }
    return e
  }

  private marketShock(day: number): number {
    let s = this.marketShocks.get(day)
    if (s === undefined) {
      if (this.marketShocks.size >= MAX_CACHED_MARKET_SHOCKS) this.marketShocks.clear()
      s = gauss(hashKey(this.seed, STREAM_MARKET_SHOCK, day), 0)
      this.marketShocks.set(day, s)
    }
    return s
  }

  /** log deviation from refPrice at 00:00 UTC of `day`, before the tanh bound */
  private anchor(bi: number, day: number): number {
    const e = this.entry(day)
    const cached = e.anchors[bi]!
    if (!Number.isNaN(cached)) return cached
    const b = this.bases[bi]!
    const phi = Math.exp(-1 / b.reversionDays)
    const idioWeight = Math.sqrt(1 - b.marketCorr * b.marketCorr)
    const stream = streamId(TAG_ANCHOR_SHOCK, bi)
    const terms = Math.ceil(ANCHOR_MEMORY * b.reversionDays)
    let sum = 0
    let w = 1
    for (let j = 0; j < terms; j++) {
      const d = day - j
      const idio = idioWeight === 0 ? 0 : idioWeight * gauss(hashKey(this.seed, stream, d), 0)
      sum += w * (b.marketCorr * this.marketShock(d) + idio)
      w *= phi
    }
    const y = b.dailyVol * sum
    e.anchors[bi] = y
    return y
  }

  private hourVol(e: DayEntry, day: number): Float64Array {
    if (e.hourVol !== undefined) return e.hourVol
    const hv = new Float64Array(24)
    // E[m^2] = 1 for m = exp(X - var X), so the multiplier leaves the average daily variance unchanged
    const variance = HOUR_VOL_LOG_SD * HOUR_VOL_LOG_SD
    for (let h = 0; h < 24; h++) {
      const hour = day * 24 + h
      const x = HOUR_VOL_LOG_SD * smoothNoise(this.seed, STREAM_HOUR_VOL, hour * HOUR_MS, HOUR_VOL_PERIOD_MS)
      const stress = unit(hashKey(this.seed, STREAM_STRESS, hour), 0) < STRESS_HOUR_PROBABILITY ? 1 : 0
      hv[h] = Math.exp(x - variance + stress)
    }
    e.hourVol = hv
    return hv
  }

  private marketSteps(e: DayEntry, day: number): Float64Array {
    if (e.marketSteps !== undefined) return e.marketSteps
    const hv = this.hourVol(e, day)
    const steps = new Float64Array(MINUTES_PER_DAY)
    for (let i = 0; i < MINUTES_PER_DAY; i++) {
      steps[i] = hv[(i / 60) | 0]! * fastNormal(hashKey(this.seed, STREAM_MARKET_STEP, day * MINUTES_PER_DAY + i), 0)
    }
    e.marketSteps = steps
    return steps
  }

  /** 1441 USD prices at each minute of `day` (the last equals the next day's first) */
  private curve(bi: number, day: number): Float64Array {
    const e = this.entry(day)
    const cached = e.curves[bi]
    if (cached !== undefined) return cached
    const b = this.bases[bi]!
    const a0 = this.anchor(bi, day)
    const a1 = this.anchor(bi, day + 1)
    const market = this.marketSteps(e, day)
    const hv = this.hourVol(e, day)
    const rho = b.marketCorr
    const idioWeight = Math.sqrt(1 - rho * rho)
    const sigma = b.dailyVol / Math.sqrt(MINUTES_PER_DAY)
    const stream = streamId(TAG_MINUTE_STEP, bi)
    const c = new Float64Array(MINUTES_PER_DAY + 1)
    let walk = 0
    for (let i = 0; i < MINUTES_PER_DAY; i++) {
      const idio = idioWeight === 0 ? 0 : fastNormal(hashKey(this.seed, stream, day * MINUTES_PER_DAY + i), 0)
      walk += sigma * (rho * market[i]! + idioWeight * hv[(i / 60) | 0]! * idio)
      c[i + 1] = walk
    }
    // bridge: remove the walk's own end point so the curve lands exactly on the next anchor
    for (let i = 0; i <= MINUTES_PER_DAY; i++) {
      const f = i / MINUTES_PER_DAY
      c[i] = b.refPrice * Math.exp(LOG_BOUND * Math.tanh((a0 + (a1 - a0) * f + c[i]! - walk * f) / LOG_BOUND))
    }
    e.curves[bi] = c
    return c
  }
}
