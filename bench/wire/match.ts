/**
 * @module
 * Matching of the wire benchmark: each delivery a subscriber process kept (market index, trade seq,
 * receive time, kind; bench/wire/subscribers.ts) against the venue's send time of that trade
 * (bench/wire/venues.ts), summarized per phase of the send: p50/p99/p99.9/max of send-to-receive, ms.
 * Also the deliveries expected: every trade sent, once per subscriber holding a channel it belongs to.
 */
import fs from 'node:fs'
import { candleVenues, type WireMarket } from './markets.js'

export interface LatencySummary {
  readonly n: number
  readonly p50_ms: number
  readonly p99_ms: number
  readonly p99_9_ms: number
  readonly max_ms: number
}

export interface Sends {
  /** send time per market index by trade seq (index 0 unused) */
  readonly sendTimes: number[][]
  /** phase index per market index by trade seq (-1: the priming trade, not measured) */
  readonly sendPhases: number[][]
  /** phase name -> index */
  readonly phases: Record<string, number>
}

function summary(xs: number[]): LatencySummary {
  const s = Float64Array.from(xs).sort()
  const at = (p: number): number =>
    s.length === 0 ? Number.NaN : Math.round(s[Math.min(s.length - 1, Math.floor(p * s.length))]! * 100) / 100
  return { n: s.length, p50_ms: at(0.5), p99_ms: at(0.99), p99_9_ms: at(0.999), max_ms: at(1) }
}

/** Latency summaries by kind (`trades`, `candles`, `all`) and phase name, and deliveries with no send. */
export function matchDeliveries(
  file: string,
  sends: Sends
): {
  all: Record<string, LatencySummary>
  trades: Record<string, LatencySummary>
  candles: Record<string, LatencySummary>
  unmatched: number
} {
  const buf = fs.readFileSync(file)
  const d = new Float64Array(buf.buffer, buf.byteOffset, buf.byteLength / 8)
  const names = Object.entries(sends.phases)
  const lat: number[][][] = [names.map(() => []), names.map(() => [])]
  let unmatched = 0
  for (let k = 0; k < d.length; k += 4) {
    const i = d[k]!
    const seq = d[k + 1]!
    const sent = sends.sendTimes[i]?.[seq]
    const phase = sends.sendPhases[i]?.[seq]
    if (sent === undefined || phase === undefined) {
      unmatched++
      continue
    }
    if (phase >= 0) lat[d[k + 3]!]![phase]!.push(d[k + 2]! - sent)
  }
  const by = (xs: (p: number) => number[]): Record<string, LatencySummary> =>
    Object.fromEntries(names.map(([name, p]) => [name, summary(xs(p))]))
  return {
    all: by((p) => [...lat[0]![p]!, ...lat[1]![p]!]),
    trades: by((p) => lat[0]![p]!),
    candles: by((p) => lat[1]![p]!),
    unmatched
  }
}

/**
 * Trade deliveries expected by the measured phases: per trade sent, the subscribers of `trades:<base>`, and
 * for the bare relay (which forwards the raw trade to `candles:` topics too) the subscribers of
 * `candles:<base>:1m` when the trade's venue is the base's candle venue.
 */
export function expectedDeliveries(
  markets: readonly WireMarket[],
  subs: readonly string[][],
  sends: Sends,
  withCandles: boolean
): number {
  const per = new Map<string, number>()
  for (const chs of subs) for (const c of chs) per.set(c, (per.get(c) ?? 0) + 1)
  const candles = candleVenues(markets)
  let n = 0
  markets.forEach((m, i) => {
    const trades = sends.sendPhases[i]!.filter((p) => p >= 0).length
    let holders = per.get(`trades:${m.base}`) ?? 0
    if (withCandles && candles.get(m.base) === m.exchange) holders += per.get(`candles:${m.base}:1m`) ?? 0
    n += trades * holders
  })
  return n
}
