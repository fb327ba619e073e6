/**
 * Builds real import files for tests: data.binance.vision zips (made with fflate, an independent writer)
 * with optional `.CHECKSUM`, gzipped Tardis.dev CSVs (node:zlib), plain CSVs.
 */
import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import zlib from 'node:zlib'
import { zipSync, strToU8 } from 'fflate'

export const MIN = 60_000
export const HOUR = 3_600_000

/** A recent whole day (UTC midnight, 3 days ago), so raw rows stay inside the tables' 90-day TTL. */
export function recentDay(): number {
  return Math.floor(Date.now() / 86_400_000) * 86_400_000 - 3 * 86_400_000
}

/** Epoch ms as Tardis µs, with a sub-ms part (which the import drops). */
export const tardisMicros = (ms: number): number => ms * 1000 + 7

export function writeZip(dir: string, name: string, csv: string, opts: { checksum?: 'good' | 'bad' } = {}): string {
  const file = path.join(dir, name)
  const inner = name.replace(/\.zip$/, '.csv')
  fs.writeFileSync(file, zipSync({ [inner]: strToU8(csv) }))
  if (opts.checksum) {
    const sha = crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex')
    const digest = opts.checksum === 'good' ? sha : sha.replace(/^./, sha[0] === '0' ? '1' : '0')
    fs.writeFileSync(`${file}.CHECKSUM`, `${digest}  ${name}\n`)
  }
  return file
}

export function writeGzip(dir: string, name: string, csv: string): string {
  const file = path.join(dir, name)
  fs.writeFileSync(file, zlib.gzipSync(csv))
  return file
}

export function writeCsv(dir: string, name: string, csv: string): string {
  const file = path.join(dir, name)
  fs.writeFileSync(file, csv)
  return file
}

export const AGG_HEADER = 'agg_trade_id,price,quantity,first_trade_id,last_trade_id,transact_time,is_buyer_maker'
export const KLINE_HEADER =
  'open_time,open,high,low,close,volume,close_time,quote_volume,count,taker_buy_volume,taker_buy_quote_volume,ignore'

/** aggTrades rows: `perMinute` trades in each of `minutes` minutes from `t0`, prices 100 + minute. */
export function aggTradesCsv(
  t0: number,
  minutes: number,
  perMinute: number,
  opts: { header?: boolean; micros?: boolean } = {}
): string {
  const lines: string[] = opts.header === false ? [] : [AGG_HEADER]
  let id = 1000
  for (let m = 0; m < minutes; m++) {
    for (let k = 0; k < perMinute; k++) {
      const ts = t0 + m * MIN + k * 1000
      const t = opts.micros ? ts * 1000 + 123 : ts
      lines.push(
        `${id},${100 + m + k / 10},${(k + 1) / 100},${id * 2},${id * 2 + 1},${t},${k % 2 === 0 ? 'true' : 'false'}`
      )
      id++
    }
  }
  return lines.join('\n') + '\n'
}

/** 1m klines, one per minute from `t0`. */
export function klinesCsv(t0: number, minutes: number, intervalMs = MIN, header = true): string {
  const lines: string[] = header ? [KLINE_HEADER] : []
  for (let m = 0; m < minutes; m++) {
    const t = t0 + m * intervalMs
    lines.push(`${t},200,210,190,205,10,${t + intervalMs - 1},2000,7,4,800,0`)
  }
  return lines.join('\n') + '\n'
}
