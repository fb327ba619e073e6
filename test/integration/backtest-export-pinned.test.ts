/**
 * The candle export's pinned read (engine/export/pinned-parts.ts): partitions that are one merged part read
 * as they are, the others (and the rows after a merged part's cut) through FINAL, and a pin that fails or a
 * part merged away before the query restarting the export with FINAL, no row lost.
 */
import { openParquet } from '../helpers/parquet-reader.js'
import { describe, it, expect } from 'vitest'
import { runCandleExport } from '../../engine/export/export-run.js'
import { primed } from '../../engine/export/primed.js'
import { pinnedRead } from '../../engine/export/pinned-parts.js'
import type { Params, Store } from '../../engine/store/store.js'
import {
  srv,
  HOURS,
  out,
  type Row,
  get,
  useExportServer,
  insertSplitCandles,
  insertHours
} from '../helpers/backtest-export.js'

useExportServer(false)

describe('GET /v1/backtest/export: pinned reads of merged parts', () => {
  /**
   * Hourly candles of `markets` over a month boundary (always in the past, within 1h's 1-year lookback):
   * the earlier month compacted to one part, the later one left in the 3 parts of 3 inserts.
   */
  async function twoMonths(markets: readonly string[]): Promise<{ from: number; to: number; merged: string }> {
    const now = new Date()
    const boundary = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1) / 1000
    const start = boundary - 2 * 86_400
    await insertSplitCandles('candles_1h', markets, start, HOURS, 3600, 200)
    const merged = new Date(start * 1000).toISOString().slice(0, 7).replace('-', '')
    await srv.running.ctx.store.command(`OPTIMIZE TABLE candles_1h PARTITION ID '${merged}' FINAL`)
    return { from: start * 1000, to: (start + HOURS * 3600) * 1000, merged }
  }

  async function groupedReference(markets: readonly string[]): Promise<Row[]> {
    return srv.running.ctx.store.query<Row>(
      `SELECT toInt64(toUnixTimestamp(bucket)) * 1000 AS timestamp, exchange, symbol, base,
         argMinMerge(open) AS open, max(high) AS high, min(low) AS low, argMaxMerge(close) AS close,
         sum(volume_base) AS volume_base, sum(volume_quote) AS volume_quote, sum(trades) AS trades
       FROM candles_1h WHERE base IN ('${markets.join("','")}')
       GROUP BY base, exchange, symbol, bucket ORDER BY base, exchange, symbol, bucket`
    )
  }

  /**
   * The store as the export sees it, recording every streamed statement and counting the streams still
   * open; `afterPin` runs once after the pin; with `failCheck` the pin check query fails.
   */
  function recordingStore(
    afterPin?: () => Promise<void>,
    failCheck = false
  ): { store: Store; streamed: string[]; open: () => number } {
    const real = srv.running.ctx.store
    const streamed: string[] = []
    let pinned = false
    let open = 0
    const store: Store = Object.create(real)
    store.query = async <T>(sql: string, params?: Params): Promise<T[]> => {
      if (failCheck && sql.includes('name IN {parts:Array(String)}')) throw new Error('check failed')
      const rows = await real.query<T>(sql, params)
      if (!pinned && sql.includes('AS max_s')) {
        pinned = true
        await afterPin?.()
      }
      return rows
    }
    store.stream = (sql: string, params: Params | undefined, format: string, signal?: AbortSignal) => {
      streamed.push(sql)
      const chunks = real.stream(sql, params, format, signal)
      return (async function* () {
        open++
        try {
          yield* chunks
        } finally {
          open--
        }
      })()
    }
    return { store, streamed, open: () => open }
  }

  /** The hourly export of `markets` (binance, `<base>USDT`) over [from, to), pinned, as the route runs it. */
  async function exportRows(store: Store, markets: readonly string[], from: number, to: number): Promise<Row[]> {
    const run = runCandleExport(
      store,
      {
        timeframe: '1h',
        markets: markets.map((base) => ({ base, exchange: 'binance', symbol: `${base}USDT` })),
        fromMs: from,
        toMs: to,
        format: 'ndjson',
        tmpDir: out.dir,
        synthetic: false,
        pinMerged: true
      },
      { onPinRestart: () => srv.running.ctx.exports.pinRestarts++ }
    )
    const body = await primed(run)
    let text = ''
    for await (const chunk of body) text += Buffer.from(chunk).toString()
    return text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Row)
  }

  it('reads partitions that are one merged part without FINAL, the others with FINAL: every row once', async () => {
    const markets = ['PNA', 'PNB', 'PNC']
    const { from, to, merged } = await twoMonths(markets)
    const pin = await pinnedRead(srv.running.ctx.store, 'candles_1h', from / 1000, to / 1000)
    const mergedPart = await srv.running.ctx.store.query<{ name: string }>(
      `SELECT name FROM system.parts WHERE table = 'candles_1h' AND active AND partition_id = {p:String}`,
      { p: merged }
    )
    expect(mergedPart.length).toBe(1)
    expect(pin.parts).toContain(mergedPart[0]!.name)
    const reference = await groupedReference(markets)
    expect(reference.length).toBe(markets.length * HOURS)

    const { store, streamed } = recordingStore()
    expect(await exportRows(store, markets, from, to)).toEqual(reference)
    // one statement, the pinned one: merged part read as is, the split month through FINAL
    expect(streamed.length).toBe(1)
    expect(streamed[0]).toContain('_part IN {parts:Array(String)}')
    expect(streamed[0]).toContain('FINAL PREWHERE bucket >=')

    // the same export through HTTP, pinned too (EXPORT_MAX_CONCURRENT 1 < pool 2): the statements the
    // server streams are watched on the real store
    const real = srv.running.ctx.store
    const served: string[] = []
    const stream = real.stream
    real.stream = function (this: Store, ...args: Parameters<Store['stream']>) {
      served.push(args[0])
      return stream.apply(this, args)
    }
    const restarts = srv.running.ctx.exports.pinRestarts
    const res = await get(
      `/v1/backtest/export?symbols=${markets.join(',')}&timeframe=1h&start_time=${from}&end_time=${to}&format=json`
    )
    const rows = (await res.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Row)
    real.stream = stream
    expect(rows).toEqual(reference)
    expect(served.length).toBe(1)
    expect(served[0]).toContain('_part IN {parts:Array(String)}')
    expect(srv.running.ctx.exports.pinRestarts).toBe(restarts)
  })

  it('a partition that is one unmerged insert part (level 0, equal keys not folded) is read with FINAL', async () => {
    // optimize_on_insert=0 (the ingest path's setting) writes a level-0 part that may repeat a key
    const start = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth() - 3, 10) / 1000
    await srv.running.ctx.store.command(
      `INSERT INTO candles_1h SETTINGS optimize_on_insert = 0
       SELECT 'LZA', 'binance', 'LZAUSDT', toDateTime(${start}, 'UTC'), argMinState(p, t), max(p), min(p),
         argMaxState(p, t), sum(1.0), sum(p), sum(0.5), toUInt64(1)
       FROM (SELECT toFloat64(number + 1) AS p, toDateTime64(${start} + number, 3, 'UTC') AS t FROM numbers(2))
       GROUP BY p, t`
    )
    const month = new Date(start * 1000).toISOString().slice(0, 7).replace('-', '')
    const parts = await srv.running.ctx.store.query<{ level: number; rows: number }>(
      `SELECT level, rows FROM system.parts WHERE table = 'candles_1h' AND active AND partition_id = {p:String}`,
      { p: month }
    )
    expect(parts).toEqual([{ level: 0, rows: 2 }])
    const pin = await pinnedRead(srv.running.ctx.store, 'candles_1h', start, start + 3600)
    expect(pin.parts).toEqual([])
    const rows = await exportRows(srv.running.ctx.store, ['LZA'], start * 1000, (start + 3600) * 1000)
    expect(rows).toEqual([
      expect.objectContaining({ base: 'LZA', timestamp: start * 1000, open: 1, close: 2, high: 2, low: 1, trades: 2 })
    ])
  })

  it('a month that is one merged part plus later live parts: merged rows before the cut read as they are, the rest with FINAL', async () => {
    // the shape after a bulk load's compaction while live ingest goes on: one merged part, then small
    // parts from the hour the merged part ends in (one key in both), all in the same month
    const markets = ['LVA', 'LVB']
    const now = new Date()
    const start = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 2, 3) / 1000
    await insertSplitCandles('candles_1h', markets, start, 48, 3600, 300)
    const month = new Date(start * 1000).toISOString().slice(0, 7).replace('-', '')
    await srv.running.ctx.store.command(`OPTIMIZE TABLE candles_1h PARTITION ID '${month}' FINAL`)
    const lastHour = start + 47 * 3600
    // live parts: the merged part's last hour again (a key in both parts, later states) and two hours after it
    await insertHours(markets, start, 47, 3, 900, 1800)
    await insertHours(markets, start, 48, 2, 950, 1900)
    const parts = await srv.running.ctx.store.query<{ name: string; level: number; min_s: number }>(
      `SELECT name, level, toUnixTimestamp(min_time) AS min_s FROM system.parts
       WHERE table = 'candles_1h' AND active AND partition_id = {p:String} ORDER BY rows DESC`,
      { p: month }
    )
    expect(parts.length).toBeGreaterThan(1)
    const from = start * 1000
    const to = (start + 50 * 3600) * 1000
    const pin = await pinnedRead(srv.running.ctx.store, 'candles_1h', from / 1000, to / 1000)
    expect(pin.parts).toEqual([parts[0]!.name])
    expect(pin.cutS).toBe(lastHour)

    const reference = await groupedReference(markets)
    expect(reference.length).toBe(markets.length * 50)
    // the key in both parts merged: prices of the live parts (900+) beat the merged part's for high
    expect(reference.find((r) => r['base'] === 'LVA' && r['timestamp'] === lastHour * 1000)!['high']).toBeGreaterThan(
      900
    )
    const { store, streamed } = recordingStore()
    const restarts = srv.running.ctx.exports.pinRestarts
    expect(await exportRows(store, markets, from, to)).toEqual(reference)
    expect(streamed.length).toBe(1)
    expect(streamed[0]).toContain('_part IN {parts:Array(String)}')
    expect(streamed[0]).toContain('FINAL PREWHERE bucket >=')
    expect(srv.running.ctx.exports.pinRestarts).toBe(restarts)
    // the same rows, byte for byte, as the export with FINAL everywhere
    const finalOnly = async (pinMerged: boolean, format: 'csv' | 'parquet') => {
      const run = runCandleExport(srv.running.ctx.store, {
        timeframe: '1h',
        markets: markets.map((base) => ({ base, exchange: 'binance', symbol: `${base}USDT` })),
        fromMs: from,
        toMs: to,
        format,
        tmpDir: out.dir,
        synthetic: false,
        pinMerged
      })
      const chunks: Buffer[] = []
      for await (const chunk of run) chunks.push(Buffer.from(chunk))
      return Buffer.concat(chunks)
    }
    expect((await finalOnly(true, 'csv')).equals(await finalOnly(false, 'csv'))).toBe(true)
    const parquetRows = async (bytes: Buffer) => {
      const reader = await openParquet(bytes)
      const cursor = reader.getCursor()
      const rows: Record<string, unknown>[] = []
      for (let row = await cursor.next(); row; row = await cursor.next()) rows.push(row)
      await reader.close()
      return rows
    }
    expect(await parquetRows(await finalOnly(true, 'parquet'))).toEqual(
      await parquetRows(await finalOnly(false, 'parquet'))
    )
  })

  it('merged parts of consecutive hours in one month (a bulk load before its compaction) are all pinned', async () => {
    const markets = ['CNA', 'CNB']
    const now = new Date()
    const start = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 4, 12) / 1000
    // no background merge may fold the slices before the pin is taken
    await srv.running.ctx.store.command('SYSTEM STOP MERGES candles_1h')
    try {
      await insertHours(markets, start, 0, 24, 100, 10)
      await insertHours(markets, start, 24, 24, 200, 20)
      await insertHours(markets, start, 47, 3, 900, 1800, true) // the second slice's last hour again, then two more
      await consecutiveSlices(markets, start)
    } finally {
      await srv.running.ctx.store.command('SYSTEM START MERGES candles_1h')
    }
  })

  async function consecutiveSlices(markets: readonly string[], start: number): Promise<void> {
    const month = new Date(start * 1000).toISOString().slice(0, 7).replace('-', '')
    const parts = await srv.running.ctx.store.query<{ name: string; level: number }>(
      `SELECT name, level FROM system.parts WHERE table = 'candles_1h' AND active AND partition_id = {p:String}
         AND max_time >= toDateTime(${start}, 'UTC') AND min_time < toDateTime(${start + 50 * 3600}, 'UTC')
       ORDER BY min_time`,
      { p: month }
    )
    expect(parts.map((p) => p.level > 0)).toEqual([true, true, false])
    const from = start * 1000
    const to = (start + 50 * 3600) * 1000
    const pin = await pinnedRead(srv.running.ctx.store, 'candles_1h', from / 1000, to / 1000)
    expect(pin).toEqual({ parts: [parts[0]!.name, parts[1]!.name].sort(), cutS: start + 47 * 3600 })

    const reference = await groupedReference(markets)
    expect(reference.length).toBe(markets.length * 50)
    const { store, streamed } = recordingStore()
    expect(await exportRows(store, markets, from, to)).toEqual(reference)
    expect(streamed[0]).toContain('_part IN {parts:Array(String)}')
  }

  it('a pin check that fails cancels the pinned query before the error goes on', async () => {
    const { from, to } = await twoMonths(['CKA'])
    const { store, streamed, open } = recordingStore(undefined, true)
    await expect(exportRows(store, ['CKA'], from, to)).rejects.toThrow('check failed')
    expect(streamed.length).toBe(1)
    expect(open()).toBe(0)
  })

  it('a pinned part merged away before the query started: the export restarts with FINAL, no row lost', async () => {
    const markets = ['RCA', 'RCB']
    const { from, to, merged } = await twoMonths(markets)
    // between the pin and the query, a late insert lands in the merged month and the month is merged again:
    // the pinned part is gone, so a read of it alone would miss every row of that month
    const { store, streamed } = recordingStore(async () => {
      await srv.running.ctx.store.command(
        `INSERT INTO candles_1h SELECT 'RCA', 'binance', 'RCAUSDT', toDateTime(${from / 1000}, 'UTC'),
           argMinState(toFloat64(1), toDateTime64(${from / 1000} + 3599, 3, 'UTC')), 999.0, 1.0,
           argMaxState(toFloat64(999), toDateTime64(${from / 1000} + 3599, 3, 'UTC')), 5.0, 5.0, 0.0, toUInt64(2)`
      )
      await srv.running.ctx.store.command(`OPTIMIZE TABLE candles_1h PARTITION ID '${merged}' FINAL`)
    })
    const restarts = srv.running.ctx.exports.pinRestarts
    const rows = await exportRows(store, markets, from, to)
    expect(srv.running.ctx.exports.pinRestarts).toBe(restarts + 1)
    const reference = await groupedReference(markets)
    expect(rows).toEqual(reference)
    expect(rows[0]).toMatchObject({ base: 'RCA', timestamp: from, high: 999, close: 999 })
    expect(streamed.length).toBe(2)
    expect(streamed[0]).toContain('_part IN')
    expect(streamed[1]).not.toContain('_part IN')
  })
})
