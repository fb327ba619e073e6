/**
 * @module
 * Historical read and export benchmarks (docs/benchmarks.md), against a server process serving a data dir prepared
 * here: 10M one-minute candles (250 markets x 40,000 minutes) and one year of hourly candles of one market,
 * written with INSERT ... SELECT so every view of the cascade is filled as in production.
 * - ohlcv_1y: latency of one year of 1h candles (8,760 rows, JSON) vs /v1/health in the same run;
 * - export: Parquet over HTTP, rows/s of the whole 10M-row export read as fast as possible, vs
 *   parquetjs-lite writing the same columns (200,000 rows of the same export, rows/s); server RSS growth
 *   and server CPU time during the export, with a fast reader and with a slow one (reads paced to
 *   SLOW_MB_S). CPU seconds per export are the figure that survives a busy shared machine.
 *
 * - export_realistic (realistic-export.ts): the export at the shape users run, right after the demo backfill,
 *   after its compaction, and against the engine's own ceiling of the same statement.
 *
 * Preparing takes ~100 s. With BENCH_HISTORY_DIR set, the prepared data dir is kept there (prepared on the
 * first run) and copied for each run; it is re-prepared when older than a day (the data ends at its
 * preparation time and the export reads the last 30 days).
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { ChdbStore } from '../../engine/store/chdb/chdb-store.js'
import { migrate } from '../../engine/schema/migrate.js'
import { compactPartitions } from '../../engine/store/compact.js'
import { CANDLE_COMPACTION } from '../../engine/history/candle-compaction.js'
import { prepareDataDir } from '../../engine/store/chdb/data-dir.js'
import { BENCH_ADMIN, startBenchServer } from '../http/bench-server.js'
import { median } from '../stats.js'
import { download, parquetRowCount, round, withRss } from './measure.js'
import { realisticExportBench } from './realistic-export.js'

const MARKETS = Number(process.env['BENCH_EXPORT_MARKETS'] ?? 250)
const MINUTES = Number(process.env['BENCH_EXPORT_MINUTES'] ?? 40_000)
const SLOW_MB_S = Number(process.env['BENCH_SLOW_MB_S'] ?? 16)
const BASELINE_ROWS = 200_000
const COMPACT = process.env['BENCH_EXPORT_COMPACT'] !== '0'
const MIN = 60_000
const REUSE_DIR = process.env['BENCH_HISTORY_DIR']
/** A kept data dir older than this no longer covers the export's 30-day window well. */
const REUSE_MAX_AGE_MS = 86_400_000

async function prepare(dir: string, now: number): Promise<void> {
  const release = prepareDataDir(dir) // marks the dir as Tidewatch's, as the server does on first start
  const store = new ChdbStore({ path: dir, poolSize: 1 })
  await migrate(store, {})
  const start = Math.floor((now - MINUTES * MIN - 2 * MIN) / MIN) * MIN
  // minute candles: price wanders per market; states built from one (price, time) pair per minute
  await store.command(
    `INSERT INTO candles_1m
     SELECT base, 'binance' AS exchange, concat(base, 'USDT') AS symbol, b AS bucket,
       argMinState(p, t) AS open, max(p) AS high, min(p) AS low, argMaxState(p, t) AS close,
       sum(q) AS volume_base, sum(p * q) AS volume_quote, sum(q * 0.5) AS buy_volume_base, count() AS trades
     FROM (
       SELECT concat('X', toString(intDiv(number, ${MINUTES}))) AS base,
         toDateTime(${start / 1000} + (number % ${MINUTES}) * 60, 'UTC') AS b,
         toDateTime64(b, 3, 'UTC') + toIntervalMillisecond(arrayJoin([1, 30000])) AS t,
         100 + 10 * sin(number / 500) + (toUnixTimestamp64Milli(t) % 7) / 100 AS p,
         1 + (number % 13) / 10 AS q
       FROM numbers(${MARKETS * MINUTES})
     )
     GROUP BY base, exchange, symbol, bucket
     SETTINGS max_insert_threads = 2`
  )
  const hourStart = Math.floor(now / 3_600_000) * 3_600_000 - 8760 * 3_600_000
  await store.command(
    `INSERT INTO candles_1h
     SELECT 'YEAR' AS base, 'binance' AS exchange, 'YEARUSDT' AS symbol, toDateTime(${hourStart / 1000} + number * 3600, 'UTC') AS bucket,
       argMinState(p, toDateTime64(bucket, 3, 'UTC')), max(p), min(p), argMaxState(p, toDateTime64(bucket, 3, 'UTC')),
       sum(1.0), sum(p), sum(0.5), toUInt64(count())
     FROM (SELECT number, toFloat64(1000 + number % 97) AS p FROM numbers(8760)) GROUP BY number, p`
  )
  // as an import or backfill leaves the tables (engine/store/compact.ts); BENCH_EXPORT_COMPACT=0 keeps the
  // overlapping parts of the raw load, as a server sees them between a bulk load and its compaction
  if (COMPACT) await compactPartitions(store, CANDLE_COMPACTION)
  await store.close()
  release()
}

/**
 * A prepared data dir for this run: a fresh one, or a copy of the kept one (BENCH_HISTORY_DIR), prepared
 * there first when missing or stale. Returns the dir and how long preparing took (0 when reused).
 */
async function dataDir(now: number): Promise<{ dir: string; prepareS: number; reused: boolean }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tw-bench-hist-'))
  const t0 = performance.now()
  if (!REUSE_DIR) {
    await prepare(dir, now)
    return { dir, prepareS: round((performance.now() - t0) / 1000), reused: false }
  }
  const marker = path.join(REUSE_DIR, `.bench-history-${MARKETS}x${MINUTES}${COMPACT ? '' : '-split'}`)
  const preparedAt = fs.existsSync(marker) ? Number(fs.readFileSync(marker, 'utf8')) : 0
  let prepareS = 0
  if (now - preparedAt > REUSE_MAX_AGE_MS) {
    fs.rmSync(REUSE_DIR, { recursive: true, force: true })
    await prepare(REUSE_DIR, now)
    fs.writeFileSync(marker, String(now))
    prepareS = round((performance.now() - t0) / 1000)
  }
  fs.cpSync(REUSE_DIR, dir, { recursive: true })
  return { dir, prepareS, reused: prepareS === 0 }
}

async function parquetjsRowsPerS(rows: Record<string, unknown>[], file: string): Promise<number> {
  const parquet = (await import('parquetjs-lite')).default as unknown as {
    ParquetSchema: new (s: object) => unknown
    ParquetWriter: {
      openFile(schema: unknown, path: string): Promise<{ appendRow(r: object): Promise<void>; close(): Promise<void> }>
    }
  }
  const schema = new parquet.ParquetSchema({
    timestamp: { type: 'INT64' },
    exchange: { type: 'UTF8' },
    symbol: { type: 'UTF8' },
    base: { type: 'UTF8' },
    open: { type: 'DOUBLE' },
    high: { type: 'DOUBLE' },
    low: { type: 'DOUBLE' },
    close: { type: 'DOUBLE' },
    volume_base: { type: 'DOUBLE' },
    volume_quote: { type: 'DOUBLE' },
    trades: { type: 'INT64' }
  })
  const t0 = performance.now()
  const w = await parquet.ParquetWriter.openFile(schema, file)
  for (const r of rows) await w.appendRow(r)
  await w.close()
  return rows.length / ((performance.now() - t0) / 1000)
}

/**
 * Sequential GETs of `url`: time until the whole body has arrived (the answer), and separately until the
 * client has also parsed it as JSON (what a JS client sees end to end).
 */
async function latency(
  url: string,
  key: string,
  n: number
): Promise<{ median_ms: number; p95_ms: number; with_client_parse_median_ms: number; rows: number }> {
  const times: number[] = []
  const parsed: number[] = []
  let rows = 0
  for (let i = 0; i < n; i++) {
    const t0 = performance.now()
    const res = await fetch(url, { headers: { 'x-api-key': key } })
    const bytes = await res.arrayBuffer()
    times.push(performance.now() - t0)
    const body = JSON.parse(Buffer.from(bytes).toString('utf8')) as { data?: unknown[] }
    parsed.push(performance.now() - t0)
    rows = body.data?.length ?? 0
  }
  times.sort((a, b) => a - b)
  return {
    median_ms: round(median(times)),
    p95_ms: round(times[Math.floor(times.length * 0.95)]!),
    with_client_parse_median_ms: round(median(parsed)),
    rows
  }
}

/**
 * The history benchmarks; the export at the shape users run (realistic-export.ts) follows the 10M-row
 * one (alone: `node dist/bench/history/realistic-export.js`).
 */
export async function historyBench(rounds: number, port = 18_931): Promise<Record<string, unknown>> {
  const tenMillion = await tenMillionBench(rounds, port)
  return { ...tenMillion, export_realistic: await realisticExportBench(rounds, port + 10) }
}

async function tenMillionBench(rounds: number, port: number): Promise<Record<string, unknown>> {
  const { dir, prepareS, reused } = await dataDir(Date.now())
  console.log(`history: ${reused ? 'reused' : 'prepared'} ${MARKETS * MINUTES} minute candles (${prepareS} s)`)
  // the same-run reference: a second server on a copy of the data, every partition read with FINAL
  // (EXPORT_PIN_MERGED=0)
  const finalDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tw-bench-hist-final-'))
  fs.cpSync(dir, finalDir, { recursive: true })
  const srv = await startBenchServer(port, { SOURCES: 'none' }, () => true, dir)
  const finalSrv = await startBenchServer(port + 1, { SOURCES: 'none', EXPORT_PIN_MERGED: '0' }, () => true, finalDir)
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'tw-bench-out-'))
  try {
    const newKey = async (base: string): Promise<string> =>
      (
        (await (
          await fetch(`${base}/v1/admin/keys`, {
            method: 'POST',
            headers: { authorization: `Bearer ${BENCH_ADMIN}`, 'content-type': 'application/json' },
            body: JSON.stringify({ plan: 'enterprise', name: 'bench' })
          })
        ).json()) as { key: string }
      ).key
    const key = await newKey(srv.base)
    const finalKey = await newKey(finalSrv.base)
    const yearUrl = `${srv.base}/v1/historical/ohlcv?symbol=YEAR&timeframe=1h&lookback=365d&limit=10000`
    await latency(yearUrl, key, 5) // warm-up
    const year = await latency(yearUrl, key, 40)
    const healthRef = await latency(`${srv.base}/v1/health`, key, 40)
    console.log(
      `history: 1y of 1h candles ${year.median_ms} ms median to the last byte, ${year.with_client_parse_median_ms} ms with the client's JSON parse (${year.rows} rows)`
    )

    const symbols = Array.from({ length: MARKETS }, (_, i) => `X${i}`).join(',')
    const exportUrl = (format: string, syms = symbols, base = srv.base) =>
      `${base}/v1/backtest/export?symbols=${syms}&timeframe=1m&lookback=30d&format=${format}`
    // the baseline's rows: 200,000 rows of the same export, parsed from NDJSON
    const ndjson = path.join(work, 'base.ndjson')
    const perMarket = Math.ceil(BASELINE_ROWS / MINUTES)
    await download(exportUrl('json', Array.from({ length: perMarket }, (_, i) => `X${i}`).join(',')), key, ndjson)
    const baseRows = fs
      .readFileSync(ndjson, 'utf8')
      .trim()
      .split('\n')
      .slice(0, BASELINE_ROWS)
      .map((l) => JSON.parse(l) as Record<string, unknown>)
    const fast: number[] = []
    const finalOnly: number[] = []
    const finalCpu: number[] = []
    const base: number[] = []
    const growth: number[] = []
    const cpu: number[] = []
    const firstByte: number[] = []
    const rssMbBeforePeak: [number, number][] = []
    let rows = 0
    let bytes = 0
    for (let r = 0; r < rounds; r++) {
      const file = path.join(work, 'export.parquet')
      const run = await withRss(srv.pid, () => download(exportUrl('parquet'), key, file))
      rows = await parquetRowCount(file)
      bytes = run.value.bytes
      fast.push(rows / (run.value.ms / 1000))
      growth.push(run.peak - run.before)
      cpu.push(run.cpuS)
      firstByte.push(run.value.firstByteMs)
      rssMbBeforePeak.push([Math.round(run.before), Math.round(run.peak)])
      fs.rmSync(file)
      const ref = await withRss(finalSrv.pid, () =>
        download(exportUrl('parquet', symbols, finalSrv.base), finalKey, file)
      )
      finalOnly.push((await parquetRowCount(file)) / (ref.value.ms / 1000))
      finalCpu.push(ref.cpuS)
      fs.rmSync(file)
      base.push(await parquetjsRowsPerS(baseRows, path.join(work, 'baseline.parquet')))
      console.log(
        `history: export round ${r + 1}: ${Math.round(fast.at(-1)!)} rows/s (${rows} rows, ${Math.round(bytes / 1_048_576)} MB, server CPU ${run.cpuS} s), FINAL everywhere ${Math.round(finalOnly.at(-1)!)} rows/s (CPU ${finalCpu.at(-1)} s), parquetjs-lite ${Math.round(base.at(-1)!)} rows/s, RSS +${Math.round(growth.at(-1)!)} MB`
      )
    }
    const slowFile = path.join(work, 'slow.parquet')
    const slow = await withRss(srv.pid, () => download(exportUrl('parquet'), key, slowFile, SLOW_MB_S))
    const slowRows = await parquetRowCount(slowFile)
    console.log(
      `history: slow reader ${round(slow.value.ms / 1000)} s, RSS +${Math.round(slow.peak - slow.before)} MB, server CPU ${slow.cpuS} s`
    )
    const mFast = median(fast)
    const mBase = median(base)
    return {
      dataset: `${MARKETS} markets x ${MINUTES} one-minute candles (${MARKETS * MINUTES} rows), ${reused ? 'a copy of a kept prepared dir' : `prepared in ${prepareS} s`}; one market with 8,760 hourly candles; ${COMPACT ? 'candle partitions compacted as after an import' : 'overlapping parts of the raw load (BENCH_EXPORT_COMPACT=0)'}`,
      ohlcv_1y_1h_json: { ...year, reference_health: healthRef, target_ms: 50 },
      export_parquet: {
        rows,
        bytes,
        runs_rows_per_s: fast.map(Math.round),
        median_rows_per_s: Math.round(mFast),
        final_everywhere_runs_rows_per_s: finalOnly.map(Math.round),
        final_everywhere_median_rows_per_s: Math.round(median(finalOnly)),
        final_everywhere_server_cpu_s_runs: finalCpu,
        ratio_vs_final_everywhere: round(mFast / median(finalOnly)),
        parquetjs_lite_runs_rows_per_s: base.map(Math.round),
        parquetjs_lite_median_rows_per_s: Math.round(mBase),
        ratio_vs_parquetjs_lite: round(mFast / mBase),
        rss_growth_mb_runs: growth.map(Math.round),
        rss_mb_before_and_peak_runs: rssMbBeforePeak,
        server_cpu_s_runs: cpu,
        first_byte_ms_runs: firstByte.map(Math.round),
        slow_reader: {
          mb_per_s_cap: SLOW_MB_S,
          rows: slowRows,
          seconds: round(slow.value.ms / 1000),
          rss_growth_mb: Math.round(slow.peak - slow.before),
          rss_mb_before_and_peak: [Math.round(slow.before), Math.round(slow.peak)],
          server_cpu_s: slow.cpuS
        },
        targets: { rows_per_s: 2_000_000, ratio_vs_parquetjs_lite: 20, rss_growth_mb: 200 }
      }
    }
  } finally {
    await srv.stop()
    await finalSrv.stop()
    fs.rmSync(work, { recursive: true, force: true })
    fs.rmSync(finalDir, { recursive: true, force: true })
  }
}
