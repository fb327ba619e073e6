import { describe, expect, it } from 'vitest'
import { silentLogger } from '../../engine/log.js'
import type { TradeRecord } from '../../engine/records/types.js'
import type { ChdbStore } from '../../engine/store/chdb/chdb-store.js'
import { compactPartitions, Compactor, rangeOf, type CompactOptions } from '../../engine/store/compact.js'
import { CANDLE_COMPACTION, CANDLE_TABLES, monthPartitions } from '../../engine/history/candle-compaction.js'
import { encodeRecords } from '../../ingest/encode-records.js'
import { IngestPipeline } from '../../ingest/pipeline.js'
import { useMigratedStore } from '../helpers/migrated-store.js'
import { until } from '../helpers/until.js'

const db = useMigratedStore()

const T0 = Date.UTC(2026, 9, 5, 0, 0, 0)
let seq = 0
/** n trades a minute apart from `from`, prices cycling so candles have distinct open/high/low/close */
function trades(base: string, from: number, n: number): TradeRecord[] {
  return Array.from({ length: n }, (_, i) => ({
    kind: 'trade' as const,
    ts: from + i * 20_000,
    exchange: 'binance',
    market: 'perp' as const,
    symbol: `${base}USDT`,
    base,
    quote: 'USDT',
    side: i % 2 ? ('sell' as const) : ('buy' as const),
    price: 100 + ((i * 7) % 11),
    qty: 1 + (i % 3),
    trade_id: String(seq++)
  }))
}

/** (table, partition) pairs of every candle level holding more than one active part. */
async function splitPartitions(): Promise<number> {
  const [row] = await db.store.query<{ n: number }>(
    `SELECT count() AS n FROM (
       SELECT table, partition_id FROM system.parts
       WHERE database = currentDatabase() AND active AND table IN {t:Array(String)}
       GROUP BY table, partition_id HAVING count() > 1)`,
    { t: [...CANDLE_TABLES] }
  )
  return Number(row!.n)
}

async function partsPerPartition(table: string): Promise<number[]> {
  const rows = await db.store.query<{ n: number }>(
    `SELECT count() AS n FROM system.parts WHERE database = currentDatabase() AND active AND table = {t:String}
     GROUP BY partition_id ORDER BY partition_id`,
    { t: table }
  )
  return rows.map((r) => Number(r.n))
}

/** The export's view of the candles: merged states in key order. */
async function candles(table: string): Promise<string> {
  const rows = await db.store.query(
    `SELECT base, bucket, finalizeAggregation(open) AS o, high, low, finalizeAggregation(close) AS c,
       volume_base, trades FROM ${table} FINAL ORDER BY base, bucket`
  )
  return JSON.stringify(rows)
}

/** The candle compaction as the server and the import run it. */
const compactCandles = (s: ChdbStore, opts?: CompactOptions) => compactPartitions(s, CANDLE_COMPACTION, opts)

describe('candle compaction after bulk loads', () => {
  it('merges each split partition into one part and changes no candle', async () => {
    const p = new IngestPipeline(db.store, { batchRows: 100, flushMs: 60_000, queueRows: 10_000 }, silentLogger())
    // three overlapping loads into the same months: several parts per partition
    for (let round = 0; round < 3; round++) {
      for (const c of encodeRecords(trades('CMP', T0 + round * 7_000, 400), true)) await p.write(c)
      await p.barrier()
    }
    await p.close(Date.now() + 5000)
    expect((await partsPerPartition('candles_1m')).some((n) => n > 1)).toBe(true)
    const before = { m: await candles('candles_1m'), h: await candles('candles_1h') }
    const split = await splitPartitions()
    expect(split).toBeGreaterThanOrEqual(CANDLE_TABLES.length) // every level got several parts
    const r = await compactCandles(db.store)
    expect(r.partitions).toBe(split)
    for (const t of CANDLE_TABLES) {
      const parts = await partsPerPartition(t)
      expect(parts.length).toBeGreaterThan(0)
      expect(parts.every((n) => n === 1)).toBe(true)
    }
    expect(await splitPartitions()).toBe(0)
    expect({ m: await candles('candles_1m'), h: await candles('candles_1h') }).toEqual(before)
    expect((await compactCandles(db.store)).partitions).toBe(0) // nothing left to merge
  })

  it('restricts compaction to the partitions a load range touches', async () => {
    expect(monthPartitions({ fromMs: Date.UTC(2026, 9, 5), toMs: Date.UTC(2026, 10, 2) })).toEqual([
      '202609', // week buckets start up to 6 days before their rows
      '202610',
      '202611'
    ])
    expect(rangeOf([{ rows: 0, from: 1, to: 2 }])).toBeNull()
    expect(
      rangeOf([
        { rows: 5, from: 10, to: 20 },
        { rows: 1, from: 5, to: 8 }
      ])
    ).toEqual({ fromMs: 5, toMs: 20 })
    const p = new IngestPipeline(db.store, { batchRows: 100, flushMs: 60_000, queueRows: 10_000 }, silentLogger())
    for (let round = 0; round < 2; round++) {
      for (const c of encodeRecords(trades('RNG', T0 + round * 5_000, 200), true)) await p.write(c)
      await p.barrier()
    }
    await p.close(Date.now() + 5000)
    const elsewhere = { fromMs: Date.UTC(2024, 0, 10), toMs: Date.UTC(2024, 0, 20) }
    expect((await compactCandles(db.store, { range: elsewhere })).partitions).toBe(0)
    expect((await partsPerPartition('candles_1m')).some((n) => n > 1)).toBe(true)
    const loaded = { fromMs: T0, toMs: T0 + 5_000 + 200 * 20_000 }
    const split = await splitPartitions()
    expect(split).toBeGreaterThanOrEqual(CANDLE_TABLES.length)
    expect((await compactCandles(db.store, { range: loaded })).partitions).toBe(split) // all inside the range
    expect(await splitPartitions()).toBe(0)
    expect((await partsPerPartition('candles_1m')).every((n) => n === 1)).toBe(true)
  })

  it('waits while exports stream before each partition; merges once they stopped, or when its budget ran out', async () => {
    /** two overlapping bulk loads of `base`: split partitions in every candle table */
    const load = async (base: string) => {
      const p = new IngestPipeline(db.store, { batchRows: 100, flushMs: 60_000, queueRows: 10_000 }, silentLogger())
      for (let round = 0; round < 2; round++) {
        for (const c of encodeRecords(trades(base, T0 + round * 3_000, 200), true)) await p.write(c)
        await p.barrier()
      }
      await p.close(Date.now() + 5000)
    }
    await load('YLD')
    let exporting = true
    let looks = 0
    const merged: string[] = []
    const busy = () => (looks++, exporting)
    const run = compactCandles(db.store, { busy, onPartition: (m) => merged.push(m.table) })
    // 20 looks at `busy`, each after a 100 ms poll: past the run's first 1 s grace, however late timers fire;
    // only the export holds the merge back now
    await until('20 looks at busy', () => looks >= 20)
    expect(merged).toEqual([]) // nothing merged while an export streams
    expect(await splitPartitions()).toBeGreaterThan(0)
    exporting = false
    const r = await run
    expect(r.partitions).toBeGreaterThan(0)
    // 20 polls of 100 ms while busy, then 1 s of quiet before the first merge (the grace alone would be ~1 s)
    expect(r.yieldedMs).toBeGreaterThanOrEqual(2_500)
    expect(await splitPartitions()).toBe(0)
    // exports that never stop hold the run back for its budget only: `busy` never turns false, so the run
    // ends (within the test's timeout) only because the budget ran out
    await load('YLB')
    const always = await compactCandles(db.store, { busy: () => true, yieldBudgetMs: 200 })
    expect(always.partitions).toBeGreaterThan(0)
    expect(always.yieldedMs).toBeGreaterThanOrEqual(200)
    expect(await splitPartitions()).toBe(0)
  })

  it('starts nothing once stopped (shutdown)', async () => {
    const compactor = new Compactor(db.store, CANDLE_COMPACTION, silentLogger())
    await compactor.stop()
    compactor.request()
    await compactor.idle()
    expect(compactor.runs).toBe(0)
  })

  it('runs when a bulk load ends (a barrier with bulkEnd), once per burst of requests', async () => {
    const compactor = new Compactor(db.store, CANDLE_COMPACTION, silentLogger())
    const p = new IngestPipeline(db.store, { batchRows: 100, flushMs: 60_000, queueRows: 10_000 }, silentLogger())
    p.onBulkEnd = () => compactor.request()
    for (let round = 0; round < 2; round++) {
      for (const c of encodeRecords(trades('BLK', T0 + round * 9_000, 300), true)) await p.push(c)
      await p.push({ barrier: true })
    }
    expect(compactor.runs).toBe(0) // plain barriers do not compact
    expect((await partsPerPartition('candles_1m')).some((n) => n > 1)).toBe(true)
    await p.push({ barrier: true, bulkEnd: true })
    compactor.request() // during the run: one more run after it, not two
    compactor.request()
    await compactor.idle()
    expect(compactor.runs).toBe(2)
    expect((await partsPerPartition('candles_1m')).every((n) => n === 1)).toBe(true)
    await p.close(Date.now() + 5000)
  })
})
