/**
 * The data of the freqtrade-layout export tests (test/integration/export-freqtrade.test.ts): trades of FTA and
 * FTB from H0 (an 8-hour funding boundary), funding readings with mark prices around it, a market with funding
 * and no candles (FTC) and one freqtrade cannot name (1000FTDUSDT); the archive manifest's shape, and the
 * readers the tests compare the archive's files with.
 */
import fs from 'node:fs'
import { tableFromIPC, type Table } from 'apache-arrow'
import { ingestRecords } from './server.js'
import { exportTrades } from './export-trades.js'

export const MIN = 60_000
export const HOUR = 3_600_000
/** an 8-hour funding boundary (00, 08 or 16 UTC) at least 16 hours back */
export const H0 = Math.floor(Date.now() / (8 * HOUR)) * 8 * HOUR - 16 * HOUR

export interface Reading {
  readonly symbol: string
  readonly base: string
  readonly ts: number
  readonly rate: number
  readonly interval: number
  /** the venue's mark price with the reading; null when the venue sent none */
  readonly mark: number | null
}
/**
 * funding readings every 20 minutes from 2 hours before H0: FTA settles every 8 h, FTB every hour (one hour
 * without); mark prices that rise and fall within each hour (FTB's first reading of H0 + 3h has none)
 */
export const READINGS: Reading[] = []
for (let k = 0; k < 21; k++) {
  const zigzag = [0, 3, -2][k % 3]!
  READINGS.push({
    symbol: 'FTAUSDT',
    base: 'FTA',
    ts: H0 - 2 * HOUR + k * 20 * MIN + 7,
    rate: 0.0001 * k,
    interval: 8,
    mark: 100 + k + zigzag
  })
  const ts = H0 - 2 * HOUR + k * 20 * MIN + 9
  // no FTB reading in [H0 + 1h, H0 + 2h): its settlement at H0 + 2h is missing
  if (ts < H0 + HOUR || ts >= H0 + 2 * HOUR)
    READINGS.push({
      symbol: 'FTBUSDT',
      base: 'FTB',
      ts,
      rate: -0.00003 * k,
      interval: 1,
      mark: ts === H0 + 3 * HOUR + 9 ? null : 50 - 0.5 * k - zigzag
    })
}
// a market with funding and no candles (its candle file has no rows): one reading before H0's settlement, no mark price
READINGS.push({ symbol: 'FTCUSDT', base: 'FTC', ts: H0 - 30 * MIN, rate: 0.0002, interval: 8, mark: null })

export interface Manifest {
  readonly manifest_version: number
  readonly layout: string
  readonly exchange: string
  readonly timeframe: string
  readonly start: number
  readonly end: number
  readonly synthetic: boolean
  readonly files: readonly {
    path: string
    pair: string
    symbol: string
    candle_type: string
    timeframe: string
    rows: number
    bytes: number
    sha256: string
    first: number | null
    last: number | null
    gaps: { start: number; end: number }[]
  }[]
}

export function readFeather(file: string): Table {
  return tableFromIPC(fs.readFileSync(file))
}

/** Gaps of `times` (sorted bucket starts) on the grid [from, to) of `step` ms, adjacent ones merged. */
export function expectedGaps(
  times: readonly number[],
  from: number,
  to: number,
  step: number
): { start: number; end: number }[] {
  const have = new Set(times)
  const gaps: { start: number; end: number }[] = []
  for (let t = from; t < to; t += step) {
    if (have.has(t)) continue
    const last = gaps[gaps.length - 1]
    if (last && last.end === t) last.end = t + step
    else gaps.push({ start: t, end: t + step })
  }
  return gaps
}

/** Ingests the trades and funding readings above into the server at `base`. */
export async function ingestFreqtradeData(base: string): Promise<void> {
  await ingestRecords(base, 'trade', exportTrades('FTA', 'FTB', H0))
  await ingestRecords(
    base,
    'funding',
    READINGS.map((r) => ({
      exchange: 'binance',
      symbol: r.symbol,
      base: r.base,
      ts: r.ts,
      funding_rate: r.rate,
      interval_hours: r.interval,
      mark_price: r.mark
    }))
  )
  // a market freqtrade cannot name
  await ingestRecords(base, 'funding', [
    {
      exchange: 'binance',
      symbol: '1000FTDUSDT',
      base: 'FTD',
      ts: H0 - 30 * MIN,
      funding_rate: 0.0002,
      interval_hours: 8
    }
  ])
}
