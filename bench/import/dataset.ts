/**
 * @module
 * A realistic data.binance.vision USD-M aggTrades CSV for the import benchmark: header row, ids rising,
 * prices a random walk on a 0.1 tick around 60,000, sizes 0.001..~5 BTC skewed small, ~40 trades a second
 * in bursts, taker side random. Seeded, so every run writes the same bytes. Also the same rows as
 * normalized `trades` TSV (the engine-ceiling reference).
 */
import fs from 'node:fs'
import path from 'node:path'
import { mulberry32 } from '../mulberry32.js'

/** 2024-01-01T00:00:00Z */
const T0 = 1_704_067_200_000

const rng = mulberry32

/** What tells files of a run of several apart (writeAggTradeDays). */
interface FileSeed {
  /** the random walk's seed (default 42) */
  readonly seed?: number
  /** agg_trade_id of the first row (default 1,900,000,000) */
  readonly firstId?: number
  /** add the rows to `tsvFile` instead of replacing it */
  readonly appendTsv?: boolean
}

/** Writes `rows` aggTrades to `csvFile` and, when given, the same rows as trades TSV to `tsvFile`. */
export function writeAggTrades(
  rows: number,
  csvFile: string,
  tsvFile?: string,
  recentMs?: number,
  more: FileSeed = {}
): void {
  const rand = rng(more.seed ?? 42)
  const firstId = more.firstId ?? 1_900_000_000
  const csv = fs.openSync(csvFile, 'w')
  const tsv = tsvFile ? fs.openSync(tsvFile, more.appendTsv ? 'a' : 'w') : null
  let c = 'agg_trade_id,price,quantity,first_trade_id,last_trade_id,transact_time,is_buyer_maker\n'
  let t = ''
  let ticks = 600_000
  let ts = recentMs ?? T0
  let first = 3_000_000_000
  for (let i = 0; i < rows; i++) {
    ticks += Math.round((rand() - 0.5) * 6)
    ts += rand() < 0.7 ? 0 : Math.floor(rand() * 80)
    const qty = Math.max(1, Math.round(Math.exp(rand() * 8.5))) / 1000
    const n = 1 + Math.floor(rand() * 3)
    const maker = rand() < 0.5
    const price = (ticks / 10).toFixed(1)
    c += `${firstId + i},${price},${qty},${first},${first + n - 1},${ts},${maker}\n`
    if (tsv)
      t += `${ts}\tbinance\tperp\tBTCUSDT\tBTC\tUSDT\t${maker ? 'sell' : 'buy'}\t${price}\t${qty}\t${firstId + i}\n`
    first += n
    if (c.length > 1 << 20) {
      fs.writeSync(csv, c)
      c = ''
      if (tsv) fs.writeSync(tsv, t)
      t = ''
    }
  }
  fs.writeSync(csv, c)
  fs.closeSync(csv)
  if (tsv) {
    fs.writeSync(tsv, t)
    fs.closeSync(tsv)
  }
}

/**
 * A run of daily files as users download them (`BTCUSDT-aggTrades-<day>.csv`, `days` consecutive days from
 * `firstDayMs`, `rows` split evenly), each day its own walk and ids, and all their rows in one trades TSV
 * (the engine-ceiling reference of the run). Returns the files in day order.
 */
export function writeAggTradeDays(
  rows: number,
  days: number,
  dir: string,
  firstDayMs: number,
  tsvFile: string
): string[] {
  const files: string[] = []
  const per = Math.ceil(rows / days)
  for (let d = 0; d < days; d++) {
    const day = firstDayMs + d * 86_400_000
    const file = path.join(dir, `BTCUSDT-aggTrades-${new Date(day).toISOString().slice(0, 10)}.csv`)
    const n = Math.min(per, rows - d * per)
    writeAggTrades(n, file, tsvFile, day, { seed: 42 + d, firstId: 1_900_000_000 + d * per, appendTsv: d > 0 })
    files.push(file)
  }
  return files
}
