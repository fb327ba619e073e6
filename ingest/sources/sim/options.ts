/**
 * @module
 * Deribit option quotes (BTC and ETH): every instrument alive at a snapshot gets one `option_quote`.
 * - underlying_price is the shared index path; the forward equals it (zero carry), so Black-76 with
 *   F = underlying_price reproduces mark_iv from mark_price (except marks floored at the minimum tick);
 * - IV: an ATM level per currency that drifts over days, a mild term structure and a smile in
 *   normalised moneyness ln(K/F)/sqrt(T): OTM puts richer than OTM calls, both wings rising;
 * - open interest (contracts = coins) peaks near the day's spot and on round strikes, grows with tenor,
 *   and drifts slowly; volume_24h is a tenor- and moneyness-dependent share of it.
 */
import { black76 } from './black76.js'
import { buildChain, type ExpiryKind, type OptionCurrency, type OptionInstrument } from './option-chain.js'
import { gauss, hashKey, smoothNoise, streamId } from './hash-rng.js'
import type { RecordSink } from './record-sink.js'
import type { Emitter, SimContext } from './sim-context.js'

/** backfill: one chain snapshot per hour */
export const BACKFILL_SNAPSHOT_MS = 3_600_000
/** live: one chain snapshot per minute */
export const LIVE_SNAPSHOT_MS = 60_000

const DAY_MS = 86_400_000
const YEAR_MS = 365 * DAY_MS
const EXPIRY_OFFSET_MS = 8 * 3_600_000
const CURRENCIES: readonly OptionCurrency[] = ['BTC', 'ETH']
/** ATM implied volatility around which each currency drifts (decimal) */
const ATM_VOL: Readonly<Record<OptionCurrency, number>> = { BTC: 0.52, ETH: 0.66 }
/** log-sd of the ATM level's drift, and the spacing of its knots */
const ATM_VOL_LOG_SD = 0.15
const ATM_VOL_PERIOD_MS = 2 * DAY_MS
/** smile in normalised moneyness k: iv = atm x (1 + SKEW k + CURVATURE k^2); SKEW < 0 makes puts richer */
const SMILE_SKEW = -0.12
const SMILE_CURVATURE = 0.1
/** the smile's moneyness is normalised by at least two days of time and capped, so near wings stay < ~3x ATM */
const MIN_SMILE_YEARS = 2 / 365
const MAX_SMILE_MONEYNESS = 4
const MIN_IV = 0.2
const MAX_IV = 3
/** Deribit BTC/ETH option tick is 0.0001 coin: marks are floored at one tick, bids below it are absent */
const TICKS_PER_COIN = 10_000
const MIN_TICK = 1 / TICKS_PER_COIN
/** half-spread: 1.5% of mark plus up to 4% more in the wings, at least one tick */
const BASE_HALF_SPREAD = 0.015
const WING_HALF_SPREAD = 0.04
/** open interest scale, contracts per instrument at full weight: chains sum to ~400k BTC, ~2.5M ETH */
const OI_SCALE: Readonly<Record<OptionCurrency, number>> = { BTC: 700, ETH: 5_000 }
/** open interest by expiry kind: long-dated expiries accumulate positions */
const OI_KIND_WEIGHT: Readonly<Record<ExpiryKind, number>> = { daily: 0.08, weekly: 0.3, monthly: 1, quarterly: 1.6 }
/** round strikes draw extra open interest: multiples of these steps get x3 (BTC 10000, ETH 500) */
const ROUND_STRIKE: Readonly<Record<OptionCurrency, number>> = { BTC: 10_000, ETH: 500 }
/** contracts are counted in steps of 1/scale coins: 0.1 BTC, 1 ETH */
const CONTRACT_SCALE: Readonly<Record<OptionCurrency, number>> = { BTC: 10, ETH: 1 }
/** daily turnover as a share of OI: dailies trade about their OI, quarterlies rarely (~10% of OI a day overall) */
const TURNOVER: Readonly<Record<ExpiryKind, number>> = { daily: 0.8, weekly: 0.2, monthly: 0.06, quarterly: 0.025 }
/** chains cached (2 currencies x chains changing at 00:00 and 08:00) */
const MAX_CACHED_CHAINS = 8
const TAG_ATM = 60
const TAG_INSTRUMENT = 61

interface QuotedInstrument extends OptionInstrument {
  /** open interest at full drift, contracts */
  readonly oiLevel: number
  /** 32-bit key of the instrument, for its own noise streams */
  readonly key: number
}

function instrumentKey(seed: number, ci: number, inst: OptionInstrument): number {
  const slot = Math.floor(inst.expiryMs / DAY_MS) * 2 ** 22 + inst.strike * 2 + (inst.isCall ? 1 : 0)
  return hashKey(seed, streamId(TAG_INSTRUMENT, ci), slot)
}

function oiLevel(ccy: OptionCurrency, inst: OptionInstrument, refSpot: number, key: number): number {
  const m = Math.log(inst.strike / refSpot)
  // calls are held above spot, puts below: OTM options carry most open interest
  const otm = inst.isCall ? m > 0 : m < 0
  const peak = Math.exp(-0.5 * (m / 0.15) ** 2) + 0.15 * Math.exp(-0.5 * (m / 0.5) ** 2) + 0.01
  const round = inst.strike % ROUND_STRIKE[ccy] === 0 ? 3 : inst.strike % (ROUND_STRIKE[ccy] / 2) === 0 ? 1.6 : 1
  const noise = Math.exp(0.5 * gauss(key, 0))
  return OI_SCALE[ccy] * OI_KIND_WEIGHT[inst.kind] * peak * round * (otm ? 1.3 : 0.7) * noise
}

export function createOptions(ctx: SimContext): Emitter {
  const { seed, universe, path } = ctx
  const baseIndex = CURRENCIES.map((c) => universe.baseIndex.get(c)!)
  const chains = new Map<number, QuotedInstrument[]>()

  function chainAt(ci: number, t: number): QuotedInstrument[] {
    const day = Math.floor(t / DAY_MS)
    // the chain changes at 00:00 (reference spot) and at 08:00 (a daily expires)
    const cacheKey = (day * 2 + (t - day * DAY_MS >= EXPIRY_OFFSET_MS ? 1 : 0)) * 2 + ci
    let chain = chains.get(cacheKey)
    if (chain === undefined) {
      if (chains.size >= MAX_CACHED_CHAINS) chains.clear()
      const ccy = CURRENCIES[ci]!
      const refSpot = path.at(baseIndex[ci]!, day * DAY_MS)
      chain = buildChain(ccy, t, refSpot).map((inst) => {
        const key = instrumentKey(seed, ci, inst)
        return { ...inst, key, oiLevel: oiLevel(ccy, inst, refSpot, key) }
      })
      chains.set(cacheKey, chain)
    }
    return chain
  }

  function emitSnapshot(ci: number, t: number, sink: RecordSink): void {
    const ccy = CURRENCIES[ci]!
    const spot = path.at(baseIndex[ci]!, t)
    const atm = ATM_VOL[ccy] * Math.exp(ATM_VOL_LOG_SD * smoothNoise(seed, streamId(TAG_ATM, ci), t, ATM_VOL_PERIOD_MS))
    const scale = CONTRACT_SCALE[ccy]
    for (const inst of chainAt(ci, t)) {
      const years = (inst.expiryMs - t) / YEAR_MS
      const rawK = Math.log(inst.strike / spot) / Math.sqrt(Math.max(years, MIN_SMILE_YEARS))
      const k =
        rawK < -MAX_SMILE_MONEYNESS ? -MAX_SMILE_MONEYNESS : rawK > MAX_SMILE_MONEYNESS ? MAX_SMILE_MONEYNESS : rawK
      // term structure: short expiries a little below the ATM level, a year out ~8% above
      const term = 0.95 + 0.13 * Math.min(1, Math.sqrt(years))
      const rawIv = atm * term * (1 + SMILE_SKEW * k + SMILE_CURVATURE * k * k)
      const iv = rawIv < MIN_IV ? MIN_IV : rawIv > MAX_IV ? MAX_IV : rawIv
      const mark = Math.max(
        MIN_TICK,
        Math.round((black76(spot, inst.strike, years, iv, inst.isCall) / spot) * 1e8) / 1e8
      )
      const halfSpread = Math.max(MIN_TICK, mark * (BASE_HALF_SPREAD + WING_HALF_SPREAD * Math.min(1, Math.abs(k) / 3)))
      const bidTicks = Math.floor((mark - halfSpread) * TICKS_PER_COIN)
      const drift = Math.exp(0.2 * smoothNoise(seed, inst.key, t, DAY_MS))
      const oi = Math.max(1, Math.round(inst.oiLevel * drift * scale)) / scale
      const turnover = TURNOVER[inst.kind] * Math.exp(-Math.abs(k) * 0.5) * drift
      sink.push({
        kind: 'option_quote',
        ts: t,
        exchange: 'deribit',
        instrument: inst.name,
        underlying_price: spot,
        mark_price: mark,
        mark_iv: Math.round(iv * 1e4) / 100,
        open_interest: oi,
        volume_24h: Math.round(oi * turnover * scale) / scale,
        bid: bidTicks >= 1 ? bidTicks / TICKS_PER_COIN : null,
        ask: Math.ceil((mark + halfSpread) * TICKS_PER_COIN) / TICKS_PER_COIN
      })
    }
  }

  return {
    emit(lo, hi, mode, sink) {
      const every = mode === 'live' ? LIVE_SNAPSHOT_MS : BACKFILL_SNAPSHOT_MS
      for (let t = Math.ceil(lo / every) * every; t < hi; t += every) {
        for (let ci = 0; ci < CURRENCIES.length; ci++) emitSnapshot(ci, t, sink)
      }
    }
  }
}
