/**
 * The server of the /v1/backtest/export tests: one export at a time (EXPORT_MAX_CONCURRENT 1, pool 2, so
 * merged partitions are read pinned, without FINAL), a `pro` and a `trader` key, and candles written
 * straight into the candle tables in several parts. `useExportServer` starts it before the file's tests and
 * stops it after; `srv`, `pro`, `trader` are set once it runs.
 */
import { beforeAll, afterAll } from 'vitest'
import { startTestServer, ingestRecords } from './server.js'
import { tmpDir } from './tmp-dir.js'
import { exportTrades } from './export-trades.js'

export let srv: Awaited<ReturnType<typeof startTestServer>>
export let pro = ''
export let trader = ''
export const MIN = 60_000
export const HOUR = 3_600_000
/** hours of the two-month tests: 2 days before a month boundary, 1 day after */
export const HOURS = 72
export const H0 = Math.floor(Date.now() / HOUR) * HOUR - 6 * HOUR
export const out = tmpDir()

export type Row = Record<string, number | string>

export const get = (path: string, key = pro, init: RequestInit = {}) =>
  fetch(`${srv.base}${path}`, { ...init, headers: { 'x-api-key': key } })

/** Starts the server before the file's tests (`trades`: with the trades of EXA and EXB from H0 ingested). */
export function useExportServer(trades: boolean): void {
  beforeAll(async () => {
    srv = await startTestServer({ EXPORT_MAX_CONCURRENT: '1' })
    pro = (await srv.running.ctx.keys.create('pro', 'p')).key
    trader = (await srv.running.ctx.keys.create('trader', 't')).key
    if (trades) await ingestRecords(srv.base, 'trade', exportTrades('EXA', 'EXB', H0))
  })
  afterAll(async () => {
    await srv.stop()
    out.cleanup()
  })
}

/**
 * Candles of `markets` for `count` buckets of `stepS` seconds from `start` (epoch s), written by three inserts
 * (three parts): each holds two thirds of every market's buckets, so most candles are split over two parts
 * (partial states: open/close from different times, volumes summed). Prices start at `price`.
 */
export async function insertSplitCandles(
  table: string,
  markets: readonly string[],
  start: number,
  count: number,
  stepS: number,
  price: number
): Promise<void> {
  for (const part of [0, 1, 2]) {
    await srv.running.ctx.store.command(
      `INSERT INTO ${table}
       SELECT base, 'binance', concat(base, 'USDT'), toDateTime(${start} + k * ${stepS}, 'UTC'),
         argMinState(p, t), max(p), min(p), argMaxState(p, t), sum(1.0), sum(p), sum(0.5), toUInt64(1)
       FROM (
         SELECT arrayJoin(['${markets.join("','")}']) AS base, number AS k,
           toDateTime64(${start} + k * ${stepS}, 3, 'UTC') + toIntervalSecond(${part} * 10) AS t,
           ${price} + k / 1000 + ${part} + length(base) AS p
         FROM numbers(${count}) WHERE (k + ${part}) % 3 != 0
       ) GROUP BY base, k, t, p`
    )
  }
}

/**
 * Hours [first, first + count) after `start` (epoch s) of every market (binance, `<base>USDT`) as one
 * insert into candles_1h; each state's time is `offsetS` into its hour (later states win argMax);
 * `level0` writes with optimize_on_insert 0 (a level-0 part, as the ingest path writes).
 */
export async function insertHours(
  markets: readonly string[],
  start: number,
  first: number,
  count: number,
  price: number,
  offsetS: number,
  level0 = false
): Promise<void> {
  await srv.running.ctx.store.command(
    `INSERT INTO candles_1h ${level0 ? 'SETTINGS optimize_on_insert = 0' : ''}
     SELECT base, 'binance', concat(base, 'USDT'), toDateTime(${start} + k * 3600, 'UTC'),
       argMinState(p, t), max(p), min(p), argMaxState(p, t), sum(1.0), sum(p), sum(0.5), toUInt64(1)
     FROM (
       SELECT arrayJoin(['${markets.join("','")}']) AS base, ${first} + number AS k,
         toDateTime64(${start} + k * 3600 + ${offsetS}, 3, 'UTC') AS t, ${price} + k / 1000 + length(base) AS p
       FROM numbers(${count})
     ) GROUP BY base, k, t, p`
  )
}
