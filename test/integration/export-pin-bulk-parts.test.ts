/**
 * Bulk loads' candle parts and the export's pin (engine/export/pinned-parts.ts), on real chDB parts: bulk
 * batches are inserted with `foldKeys` (`optimize_on_insert=1`, engine/store/store.ts), so their candle parts
 * are level 1 and a window's parts are read without FINAL right after the load; a key split over several
 * level-1 parts is never read twice without FINAL; the exported bytes are those of FINAL everywhere.
 * Background merges of candles_1m are stopped, so the parts stay as the inserts wrote them.
 */
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import type { TradeRecord } from '../../engine/records/types.js'
import { silentLogger } from '../../engine/log.js'
import { runCandleExport } from '../../engine/export/export-run.js'
import { pinnedRead } from '../../engine/export/pinned-parts.js'
import { primed } from '../../engine/export/primed.js'
import type { Store } from '../../engine/store/store.js'
import { encodeRecords } from '../../ingest/encode-records.js'
import { BatchJournal } from '../../ingest/journal.js'
import { IngestPipeline } from '../../ingest/pipeline.js'
import { FlakyStore } from '../helpers/flaky-store.js'
import { useMigratedStore } from '../helpers/migrated-store.js'
import { CANDLE_TABLES } from '../../engine/history/candle-compaction.js'
import fs from 'node:fs'

const env = useMigratedStore()
const HOUR_MS = 3_600_000
const BASES = ['FKA', 'FKB', 'FKC']

beforeAll(async () => {
  await env.store.command('SYSTEM STOP MERGES candles_1m')
})

/** Trades of every base in [fromMs, toMs), `stepMs` apart per base, prices varying within each minute. */
function trades(fromMs: number, toMs: number, stepMs: number, bases = BASES): TradeRecord[] {
  const out: TradeRecord[] = []
  for (let ts = fromMs, i = 0; ts < toMs; ts += stepMs, i++) {
    for (const base of bases) {
      out.push({
        kind: 'trade',
        ts,
        exchange: 'binance',
        market: 'perp',
        symbol: `${base}USDT`,
        base,
        quote: 'USDT',
        side: i % 3 === 0 ? 'sell' : 'buy',
        price: 100 + ((i * 7 + base.length) % 13),
        qty: 1 + (i % 4),
        trade_id: `${base}-${ts}`
      })
    }
  }
  return out
}

/** Writes `records` through the ingest pipeline as bulk or live chunks, one batch per barrier. */
async function ingest(records: TradeRecord[], bulk: boolean): Promise<void> {
  const p = new IngestPipeline(
    env.store,
    { batchRows: 1_000_000, bulkBatchRows: 1_000_000, flushMs: 60_000, queueRows: 2_000_000 },
    silentLogger()
  )
  for (const c of encodeRecords(records, bulk)) await p.write(c)
  await p.barrier()
  await p.close(Date.now() + 5000)
}

interface PartRow {
  name: string
  level: number
  rows: number
  keys: number
}

/** candles_1m's active parts with rows in [fromMs, toMs), in insert order: level, rows and distinct keys of each. */
async function parts(fromMs: number, toMs: number): Promise<PartRow[]> {
  const rows = await env.store.query<Omit<PartRow, 'level'>>(
    `SELECT _part AS name, count() AS rows, uniqExact(base, exchange, symbol, bucket) AS keys
     FROM candles_1m WHERE bucket >= toDateTime({f:UInt32}, 'UTC') AND bucket < toDateTime({t:UInt32}, 'UTC')
     GROUP BY _part ORDER BY _part`,
    { f: fromMs / 1000, t: toMs / 1000 }
  )
  const info = await env.store.query<{ name: string; level: number; block: number }>(
    `SELECT name, level, min_block_number AS block FROM system.parts
     WHERE database = currentDatabase() AND table = 'candles_1m' AND active`
  )
  const of = new Map(info.map((p) => [p.name, p]))
  return rows
    .map((r) => ({ name: r.name, level: Number(of.get(r.name)!.level), rows: Number(r.rows), keys: Number(r.keys) }))
    .sort((a, b) => Number(of.get(a.name)!.block) - Number(of.get(b.name)!.block))
}

/** The CSV export of every base over [fromMs, toMs): with the pin, or with FINAL everywhere. */
async function exportCsv(store: Store, fromMs: number, toMs: number, pinMerged: boolean): Promise<string> {
  const body = await primed(
    runCandleExport(store, {
      timeframe: '1m',
      markets: BASES.map((base) => ({ base, exchange: 'binance', symbol: `${base}USDT` })),
      fromMs,
      toMs,
      format: 'csv',
      tmpDir: env.dir,
      synthetic: false,
      pinMerged
    })
  )
  let text = ''
  for await (const chunk of body) text += Buffer.from(chunk).toString()
  return text
}

/** Each pinned part's rows below the cut hold every key once, and no key is in two of them. */
async function pinnedKeysOnce(pin: { parts: readonly string[]; cutS: number }): Promise<boolean> {
  const [row] = await env.store.query<{ rows: number; keys: number }>(
    `SELECT count() AS rows, uniqExact(base, exchange, symbol, bucket) AS keys FROM candles_1m
     WHERE _part IN {parts:Array(String)} AND bucket < toDateTime({cut:UInt32}, 'UTC')`,
    { parts: [...pin.parts], cut: pin.cutS }
  )
  return Number(row!.rows) === Number(row!.keys)
}

/** Every candle table's merged candles of `bases` in key order, as text, without the bases' first letter. */
async function candles(bases: readonly string[]): Promise<string> {
  const out: unknown[] = []
  for (const t of CANDLE_TABLES) {
    out.push(
      await env.store.query(
        `SELECT substring(base, 2) AS b, exchange, substring(symbol, 2) AS s, bucket, finalizeAggregation(open) AS o,
           high, low, finalizeAggregation(close) AS c, volume_base, volume_quote, buy_volume_base, trades
         FROM ${t} FINAL WHERE base IN {bases:Array(String)} ORDER BY b, exchange, s, bucket`,
        { bases: [...bases] }
      )
    )
  }
  return JSON.stringify(out)
}

describe('bulk loads and the export pin', () => {
  it('a bulk load (folded keys) stores the same candles at every timeframe as the same batches inserted live', async () => {
    // the same trades under other bases (first letter L): live batches, inserted with optimize_on_insert=0
    const live = BASES.map((b) => `L${b.slice(1)}`)
    const t0 = Date.UTC(2025, 11, 31, 18) // over a month's and a year's end: several partitions per insert
    for (const [bases, bulk] of [
      [BASES, true],
      [live, false]
    ] as const) {
      await ingest(trades(t0, t0 + 12 * HOUR_MS, 4_000, bases), bulk)
      await ingest(trades(t0 + 6 * HOUR_MS, t0 + 18 * HOUR_MS, 9_000, bases), bulk) // overlapping the first
    }
    const stored = await candles(BASES)
    expect(stored).toBe(await candles(live))
    expect(stored.length).toBeGreaterThan(100_000)
  })

  it('bulk windows are level-1 parts read without FINAL below the live parts; same bytes as FINAL', async () => {
    const t0 = Date.UTC(2026, 6, 6)
    // two backfill windows (minute-aligned, as the demo backfill cuts them), then live batches after them
    await ingest(trades(t0, t0 + 2 * HOUR_MS, 7_000), true)
    await ingest(trades(t0 + 2 * HOUR_MS, t0 + 4 * HOUR_MS, 7_000), true)
    await ingest(trades(t0 + 4 * HOUR_MS, t0 + 4 * HOUR_MS + 90_000, 1_000), false)
    await ingest(trades(t0 + 4 * HOUR_MS + 30_000, t0 + 4 * HOUR_MS + 150_000, 1_000), false) // same minutes again
    const all = await parts(t0, t0 + 5 * HOUR_MS)
    expect(all.map((p) => p.level)).toEqual([1, 1, 0, 0])
    // a bulk part holds each key once; the live parts repeat the minutes they share
    expect(all.slice(0, 2).every((p) => p.rows === p.keys && p.rows === BASES.length * 120)).toBe(true)
    const pin = await pinnedRead(env.store, 'candles_1m', t0 / 1000, (t0 + 5 * HOUR_MS) / 1000)
    expect([...pin.parts].sort()).toEqual(
      all
        .slice(0, 2)
        .map((p) => p.name)
        .sort()
    )
    expect(pin.cutS).toBe((t0 + 4 * HOUR_MS) / 1000)
    const pinned = await exportCsv(env.store, t0, t0 + 5 * HOUR_MS, true)
    expect(pinned).toBe(await exportCsv(env.store, t0, t0 + 5 * HOUR_MS, false))
    expect(pinned.trim().split('\n')).toHaveLength(1 + BASES.length * (240 + 3))
  })

  it('a key in several level-1 parts (one insert cut into blocks, a late bulk batch) is never read twice without FINAL', async () => {
    const t0 = Date.UTC(2026, 5, 9)
    // one folded insert whose trades reach the candle view in 40-row blocks: each block its own level-1 part,
    // and a minute's trades (3 bases x 6) span two blocks, so its keys are in two parts
    await env.store.command(
      `INSERT INTO trades (ts, exchange, market, symbol, base, quote, side, price, qty, trade_id)
       SETTINGS optimize_on_insert = 1, max_insert_block_size = 40, min_insert_block_size_rows = 0,
         min_insert_block_size_bytes = 0, max_block_size = 40
       SELECT toDateTime64(${t0 / 1000} + intDiv(number, 3) * 10, 3, 'UTC'), 'binance', 'perp',
         concat(b, 'USDT'), b, 'USDT', if(number % 2 = 0, 'buy', 'sell'), 100 + number % 11, 1, toString(number)
       FROM (SELECT number, ['FKA', 'FKB', 'FKC'][number % 3 + 1] AS b FROM numbers(3 * 6 * 30))`
    )
    // a late bulk batch over minutes already loaded (a replay of an overlapping recording)
    await ingest(trades(t0 + 10 * 60_000, t0 + 20 * 60_000, 13_000), true)
    const all = await parts(t0, t0 + HOUR_MS)
    expect(all.every((p) => p.level === 1 && p.rows === p.keys)).toBe(true)
    const [spread] = await env.store.query<{ n: number }>(
      `SELECT max(c) AS n FROM (SELECT count() AS c FROM candles_1m
       WHERE bucket >= toDateTime({f:UInt32}, 'UTC') AND bucket < toDateTime({t:UInt32}, 'UTC')
       GROUP BY base, exchange, symbol, bucket)`,
      { f: t0 / 1000, t: (t0 + HOUR_MS) / 1000 }
    )
    expect(Number(spread!.n)).toBeGreaterThan(1) // some key is in more than one part
    const pin = await pinnedRead(env.store, 'candles_1m', t0 / 1000, (t0 + HOUR_MS) / 1000)
    expect(pin.parts.length).toBeGreaterThan(0)
    expect(await pinnedKeysOnce(pin)).toBe(true)
    expect(await exportCsv(env.store, t0, t0 + HOUR_MS, true)).toBe(await exportCsv(env.store, t0, t0 + HOUR_MS, false))
    expect(pin.parts.length).toBeLessThan(all.length) // the parts sharing keys go through FINAL
  })

  it('a bulk batch replayed from the journal keeps its folding and is not stored twice', async () => {
    const t0 = Date.UTC(2026, 4, 12)
    const dir = path.join(env.dir, 'journal')
    const flaky = new FlakyStore(env.store)
    flaky.failInserts = 1
    flaky.afterWrite = true // written, but the process "died" before the acknowledgement
    const [chunk] = encodeRecords(trades(t0, t0 + HOUR_MS, 5_000), true)
    const batch = {
      ...chunk!,
      format: 'TSV' as const,
      data: Buffer.from(chunk!.data),
      dedupToken: 'fold-J1',
      foldKeys: true
    }
    await expect(new BatchJournal(dir).insert(flaky, batch)).rejects.toThrow()
    const [entry] = fs.readdirSync(dir)
    const text = fs.readFileSync(path.join(dir, entry!), 'utf8')
    expect(JSON.parse(text.slice(0, text.indexOf('\n')))).toMatchObject({ foldKeys: true, dedupToken: 'fold-J1' })
    expect(await new BatchJournal(dir).recover(env.store, silentLogger())).toBe(1)
    const all = await parts(t0, t0 + HOUR_MS)
    expect(all).toEqual([expect.objectContaining({ level: 1, rows: BASES.length * 60, keys: BASES.length * 60 })])
    const [stored] = await env.store.query<{ n: number }>(
      `SELECT sum(trades) AS n FROM candles_1m WHERE bucket >= toDateTime({f:UInt32}, 'UTC') AND bucket < toDateTime({t:UInt32}, 'UTC')`,
      { f: t0 / 1000, t: (t0 + HOUR_MS) / 1000 }
    )
    expect(Number(stored!.n)).toBe(BASES.length * 720)
  })
})
