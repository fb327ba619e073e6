/**
 * @module
 * The freqtrade layout (docs/export-formats.md, "freqtrade layout") against the plain Parquet export of the
 * same rows in the same run: 100 markets of one exchange x 2 years of 1h candles (1,752,000 rows), with
 * 8-hourly funding stored for every hour (funding_1h, 1,752,000 hourly rows, 219,000 settlements written),
 * and raw funding readings with mark prices over the last 90 days (216,000 hourly mark candles written).
 * Both run in process on one chDB store (the route caps 1h at 365 days of lookback; the engine does not),
 * their bytes read as fast as they come and counted, rounds alternating which goes first. Figures: wall
 * time, rows/s of candle rows, process CPU seconds, bytes; the ratio of medians freqtrade / parquet; the
 * target is >= 1M candle rows/s for the freqtrade layout.
 *
 * `npm run build && node dist/bench/run.js freqtrade` (BENCH_ROUNDS, default 3); results in
 * bench/results/freqtrade-export.json.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { ChdbStore } from '../../engine/store/chdb/chdb-store.js'
import { migrate } from '../../engine/schema/migrate.js'
import { compactPartitions } from '../../engine/store/compact.js'
import { CANDLE_COMPACTION } from '../../engine/history/candle-compaction.js'
import { prepareDataDir } from '../../engine/store/chdb/data-dir.js'
import { runCandleExport } from '../../engine/export/export-run.js'
import { freqtradeMarkets, runFreqtradeExport } from '../../engine/export/freqtrade/freqtrade-run.js'
import type { Market } from '../../engine/history/markets.js'
import { median } from '../stats.js'
import { round } from './measure.js'

const MARKETS = Number(process.env['BENCH_FREQTRADE_MARKETS'] ?? 100)
const HOURS = Number(process.env['BENCH_FREQTRADE_HOURS'] ?? 2 * 8760)
const HOUR = 3_600_000
/** hours of raw funding readings (with mark prices): the raw table keeps 90 days */
const MARK_HOURS = 90 * 24

interface Run {
  readonly seconds: number
  readonly cpu_s: number
  readonly bytes: number
  readonly rows_per_s: number
}

async function prepare(dir: string, from: number): Promise<ChdbStore> {
  const store = new ChdbStore({ path: dir, poolSize: 2 })
  await migrate(store, {})
  const markets = `concat('F', toString(intDiv(number, ${HOURS})))`
  const bucket = `toDateTime(${from / 1000} + (number % ${HOURS}) * 3600, 'UTC')`
  await store.command(
    `INSERT INTO candles_1h
     SELECT base, 'binance', concat(base, 'USDT'), b, argMinState(p, t), max(p), min(p), argMaxState(p, t),
       sum(1.5), sum(p * 1.5), sum(0.75), toUInt64(count())
     FROM (
       SELECT ${markets} AS base, ${bucket} AS b,
         toDateTime64(b, 3, 'UTC') + toIntervalMillisecond(arrayJoin([1, 1800000])) AS t,
         100 + 10 * sin(number / 500) + (toUnixTimestamp64Milli(t) % 7) / 100 AS p
       FROM numbers(${MARKETS * HOURS})
     )
     GROUP BY base, b
     SETTINGS max_insert_threads = 2`
  )
  // raw funding readings with a mark price, one per market and hour over the last 90 days of the range (the
  // raw table's TTL): the mark files' source; their materialized view adds to funding_1h as ingest does
  const markHours = Math.min(HOURS, MARK_HOURS)
  await store.command(
    `INSERT INTO funding (ts, exchange, symbol, base, funding_rate, interval_hours, mark_price)
     SELECT toDateTime64(${from / 1000 + (HOURS - markHours) * 3600} + (number % ${markHours}) * 3600 + 60, 3, 'UTC'),
       'binance', concat(base, 'USDT'), base, 0.0001, 8, 100 + 10 * sin(number / 500)
     FROM (SELECT number, concat('F', toString(intDiv(number, ${markHours}))) AS base FROM numbers(${MARKETS * markHours}))`
  )
  await store.command(
    `INSERT INTO funding_1h
     SELECT ${markets} AS base, 'binance', concat(base, 'USDT'), ${bucket} AS b,
       argMaxState(r, toDateTime64(b, 3, 'UTC')), avgState(r), r, r, toUInt8(8), toUInt64(1)
     FROM (SELECT number, 0.0001 * sin(number / 50) AS r FROM numbers(${MARKETS * HOURS}))
     GROUP BY number, r`
  )
  await compactPartitions(store, CANDLE_COMPACTION)
  // funding_1h as a long-running server holds it: months merged by ClickHouse's background merges
  await store.command('OPTIMIZE TABLE funding_1h FINAL')
  return store
}

async function drain(source: AsyncIterable<Uint8Array>, rows: number): Promise<Run> {
  const cpu = process.cpuUsage()
  const t0 = performance.now()
  let bytes = 0
  for await (const c of source) bytes += c.length
  const seconds = (performance.now() - t0) / 1000
  const used = process.cpuUsage(cpu)
  return {
    seconds: round(seconds),
    cpu_s: round((used.user + used.system) / 1e6),
    bytes,
    rows_per_s: Math.round(rows / seconds)
  }
}

export async function freqtradeExportBench(rounds: number): Promise<Record<string, unknown>> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tidewatch-bench-freqtrade-'))
  const from = Math.floor(Date.now() / HOUR) * HOUR - (HOURS + 24) * HOUR
  const to = from + HOURS * HOUR
  const release = prepareDataDir(dir) // marks the dir as Tidewatch's, as the server does on first start
  const store = await prepare(dir, from)
  try {
    const markets: Market[] = Array.from({ length: MARKETS }, (_, i) => ({
      base: `F${i}`,
      exchange: 'binance',
      symbol: `F${i}USDT`
    }))
    const rows = MARKETS * HOURS
    const parquet = () =>
      drain(
        runCandleExport(store, {
          timeframe: '1h',
          markets,
          fromMs: from,
          toMs: to,
          format: 'parquet',
          tmpDir: dir,
          synthetic: false,
          pinMerged: true
        }),
        rows
      )
    const freqtrade = () =>
      drain(
        runFreqtradeExport(store, {
          timeframe: '1h',
          markets: freqtradeMarkets(markets),
          fromMs: from,
          toMs: to,
          synthetic: false,
          mtimeMs: Date.now(),
          pinMerged: true
        }),
        rows
      )
    await freqtrade() // warm-up: chDB caches and the JIT
    const runs: { parquet: Run[]; freqtrade: Run[] } = { parquet: [], freqtrade: [] }
    for (let r = 0; r < rounds; r++) {
      if (r % 2 === 0) {
        runs.parquet.push(await parquet())
        runs.freqtrade.push(await freqtrade())
      } else {
        runs.freqtrade.push(await freqtrade())
        runs.parquet.push(await parquet())
      }
    }
    const med = (xs: Run[], k: keyof Run) => median(xs.map((x) => x[k]))
    const ftRate = med(runs.freqtrade, 'rows_per_s')
    const pqRate = med(runs.parquet, 'rows_per_s')
    return {
      shape: `${MARKETS} markets x ${HOURS} hours of 1h candles (${rows} rows), funding_1h for every hour (8h settlements), mark prices hourly over the last ${Math.min(HOURS, MARK_HOURS)} hours`,
      load_average: os.loadavg().map(round),
      freqtrade: { median_rows_per_s: ftRate, median_cpu_s: med(runs.freqtrade, 'cpu_s'), runs: runs.freqtrade },
      parquet_reference: { median_rows_per_s: pqRate, median_cpu_s: med(runs.parquet, 'cpu_s'), runs: runs.parquet },
      ratio_freqtrade_to_parquet: round(ftRate / pqRate),
      target_rows_per_s: 1_000_000,
      target_met: ftRate >= 1_000_000
    }
  } finally {
    await store.close()
    release()
    fs.rmSync(dir, { recursive: true, force: true })
  }
}
