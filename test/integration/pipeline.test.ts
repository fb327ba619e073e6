import { describe, it, expect, beforeAll, afterAll, vi } from 'vitest'
import { ChdbStore } from '../../engine/store/chdb/chdb-store.js'
import { migrate } from '../../engine/schema/migrate.js'
import { silentLogger } from '../../engine/log.js'
import { IngestPipeline } from '../../ingest/pipeline.js'
import { encodeRecords } from '../../ingest/encode-records.js'
import type { TradeRecord } from '../../engine/records/types.js'
import { FlakyStore } from '../helpers/flaky-store.js'
import { tmpDir } from '../helpers/tmp-dir.js'
import { BatchJournal } from '../../ingest/journal.js'
import fs from 'node:fs'
import path from 'node:path'

const tmp = tmpDir()
let chdb: ChdbStore
let store: FlakyStore

beforeAll(async () => {
  chdb = new ChdbStore({ path: tmp.dir, poolSize: 2 })
  await migrate(chdb, {})
  store = new FlakyStore(chdb)
})
afterAll(async () => {
  await chdb.close()
  tmp.cleanup()
})

const T0 = Date.UTC(2026, 10, 3, 0, 0, 0)
let seq = 0
function trades(symbol: string, n: number): TradeRecord[] {
  return Array.from({ length: n }, (_, i) => ({
    kind: 'trade' as const,
    ts: T0 + i * 1000,
    exchange: 'okx',
    market: 'perp' as const,
    symbol,
    base: symbol,
    quote: 'USDT',
    side: 'buy' as const,
    price: 10 + (i % 7),
    qty: 1,
    trade_id: String(seq++)
  }))
}

async function counts(symbol: string): Promise<{ raw: number; c1m: number; c1d: number }> {
  const [raw] = await chdb.query<{ n: number }>('SELECT count() AS n FROM trades WHERE symbol = {s:String}', {
    s: symbol
  })
  const [c1m] = await chdb.query<{ n: number }>('SELECT sum(trades) AS n FROM candles_1m WHERE symbol = {s:String}', {
    s: symbol
  })
  const [c1d] = await chdb.query<{ n: number }>('SELECT sum(trades) AS n FROM candles_1d WHERE symbol = {s:String}', {
    s: symbol
  })
  return { raw: raw!.n, c1m: c1m!.n, c1d: c1d!.n }
}

describe('ingest pipeline on chDB', () => {
  it('seals batches by row count and writes every row once', async () => {
    const p = new IngestPipeline(store, { batchRows: 1000, flushMs: 60_000, queueRows: 5000 }, silentLogger())
    for (let i = 0; i < 10; i++) for (const c of encodeRecords(trades('AAA', 300), true)) await p.write(c)
    await p.barrier()
    const t = p.totals()
    expect(t.written).toBe(3000)
    expect(t.queued).toBe(0)
    expect(t.batches).toBe(3) // 1200 + 1200 + 600 (sealed at >= 1000 rows, rest at the barrier)
    expect(await counts('AAA')).toEqual({ raw: 3000, c1m: 3000, c1d: 3000 })
    await p.close(Date.now() + 5000)
  })

  it('seals bulk chunks at bulkBatchRows, and at batchRows once a live chunk joins the batch', async () => {
    const opts = { batchRows: 500, bulkBatchRows: 2000, flushMs: 60_000, queueRows: 10_000 }
    const bulk = new IngestPipeline(store, opts, silentLogger())
    for (let i = 0; i < 10; i++) for (const c of encodeRecords(trades('BLK', 300), true)) await bulk.write(c)
    await bulk.barrier()
    expect(bulk.totals().batches).toBe(2) // 2100 (sealed at >= 2000 bulk rows) + 900 at the barrier
    expect(bulk.totals().written).toBe(3000)
    await bulk.close(Date.now() + 5000)
    const mixed = new IngestPipeline(store, opts, silentLogger())
    for (const c of encodeRecords(trades('MIX', 300), true)) await mixed.write(c)
    for (const c of encodeRecords(trades('MIX', 300), false)) await mixed.write(c)
    for (const c of encodeRecords(trades('MIX', 300), true)) await mixed.write(c)
    await mixed.barrier()
    // 600 (>= 500: sealed as soon as the live chunk came) + 300 at the barrier; bulk alone would be one batch
    expect(mixed.totals().batches).toBe(2)
    expect(await counts('BLK')).toEqual({ raw: 3000, c1m: 3000, c1d: 3000 })
    expect(await counts('MIX')).toEqual({ raw: 900, c1m: 900, c1d: 900 })
    await mixed.close(Date.now() + 5000)
  })

  it('a barrier naming its tables seals and waits for those only, and fails only for their rows', async () => {
    const p = new IngestPipeline(store, { batchRows: 50_000, flushMs: 60_000, queueRows: 100_000 }, silentLogger())
    for (const c of encodeRecords(trades('SCP', 10), false)) await p.write(c)
    const rows = encodeRecords(
      [{ kind: 'liquidation', ts: T0, exchange: 'okx', symbol: 'SCP', base: 'SCP', side: 'sell', price: 10, qty: 1 }],
      false
    )
    for (const c of rows) await p.write(c)
    const other = rows[0]!.table
    expect(await p.barrier([other])).toBe(true)
    // the trades batch stays open: no insert was made for it
    expect(p.totals().tables['trades']).toMatchObject({ queued: 10, written: 0 })
    expect(p.totals().tables[other]).toMatchObject({ queued: 0, written: 1 })
    // a table this pipeline never wrote is nothing to wait for
    expect(await p.barrier(['whale_transfers'])).toBe(true)
    // a rejected trades batch fails a barrier over trades, not one over another table
    store.failInserts = 1
    store.afterWrite = false
    store.code = 27 // not retryable
    expect(await p.barrier(['trades'])).toBe(false)
    store.code = 252
    for (const c of rows) await p.write(c)
    expect(await p.barrier([other])).toBe(true)
    await p.close(Date.now() + 5000)
  })

  it('flushes live chunks on the timer without a barrier', async () => {
    const p = new IngestPipeline(store, { batchRows: 50_000, flushMs: 50, queueRows: 100_000 }, silentLogger())
    for (const c of encodeRecords(trades('BBB', 10), false)) await p.write(c)
    expect(p.totals().written).toBe(0)
    // nothing but the 50 ms timer seals the batch: wait for it, bounded, instead of sleeping a fixed time
    await vi.waitFor(() => expect(p.totals().written).toBe(10), { timeout: 10_000, interval: 20 })
    await p.close(Date.now() + 5000)
  })

  it('retries transient failures, including writes whose acknowledgement was lost, exactly once', async () => {
    const journal = path.join(tmp.dir, 'journal-retries')
    const p = new IngestPipeline(
      store,
      { batchRows: 500, flushMs: 60_000, queueRows: 5000 },
      silentLogger(),
      new BatchJournal(journal)
    )
    store.failInserts = 3
    store.afterWrite = true
    for (const c of encodeRecords(trades('CCC', 500), true)) await p.write(c)
    await p.barrier()
    expect(p.totals()).toMatchObject({ written: 500, failed: 0, retries: 3 })
    expect(await counts('CCC')).toEqual({ raw: 500, c1m: 500, c1d: 500 })
    expect(fs.readdirSync(journal)).toEqual([]) // one entry across the attempts, removed on success
    await p.close(Date.now() + 5000)
  })

  it('counts a batch the store rejects as failed instead of dropping it silently', async () => {
    const journal = path.join(tmp.dir, 'journal-rejected')
    const p = new IngestPipeline(
      store,
      { batchRows: 100, flushMs: 60_000, queueRows: 5000 },
      silentLogger(),
      new BatchJournal(journal)
    )
    store.failInserts = 1
    store.afterWrite = false
    store.code = 27 // CANNOT_PARSE_INPUT_ASSERTION_FAILED: not retryable
    for (const c of encodeRecords(trades('DDD', 100), true)) await p.write(c)
    await p.barrier()
    store.code = 252
    expect(p.totals()).toMatchObject({ written: 0, failed: 100, queued: 0 })
    expect((await counts('DDD')).raw).toBe(0)
    // kept for inspection, never replayed at the next start
    expect(fs.readdirSync(journal)).toEqual(['failed'])
    expect(fs.readdirSync(path.join(journal, 'failed'))).toHaveLength(1)
    await p.close(Date.now() + 5000)
  })

  it('makes producers wait while a table queue is full (backpressure, bounded memory)', async () => {
    const p = new IngestPipeline(store, { batchRows: 100, flushMs: 60_000, queueRows: 200 }, silentLogger())
    store.failInserts = 2 // slow the writer down with two retries
    store.afterWrite = false
    let maxQueued = 0
    for (let i = 0; i < 10; i++) {
      for (const c of encodeRecords(trades('EEE', 100), true)) await p.write(c)
      maxQueued = Math.max(maxQueued, p.totals().queued)
    }
    await p.barrier()
    // the bound covers the open batch, the sealed ones and the one being written
    expect(maxQueued).toBeLessThanOrEqual(200)
    expect(p.totals().tables['trades']!.queued_max).toBeLessThanOrEqual(200)
    expect(p.totals().written).toBe(1000)
    await p.close(Date.now() + 5000)
  })

  it('bounds live chunks too: with the store down, producers wait at INGEST_QUEUE_ROWS and nothing is lost', async () => {
    // live chunks seal on the flush timer; that seal must not bypass the bound (a bypass queued 38,000 rows at 1,000)
    const p = new IngestPipeline(store, { batchRows: 50_000, flushMs: 20, queueRows: 1000 }, silentLogger())
    store.failInserts = Number.POSITIVE_INFINITY // every insert fails while the store is "down"
    store.afterWrite = false
    const attemptsBefore = store.attempts
    let accepted = 0
    const producer = (async () => {
      for (let i = 0; i < 30; i++) {
        for (const c of encodeRecords(trades('LIV', 100), false)) await p.write(c)
        accepted += 100
      }
    })()
    // the writer has retried several times: the outage is under way and the producer had every chance to run
    await vi.waitFor(() => expect(store.attempts - attemptsBefore).toBeGreaterThanOrEqual(3), {
      timeout: 20_000,
      interval: 20
    })
    expect(accepted).toBeLessThanOrEqual(1000)
    expect(p.totals().queued).toBeLessThanOrEqual(1000)
    store.failInserts = 0 // the store is back
    await producer
    await p.barrier()
    expect(p.totals()).toMatchObject({ written: 3000, failed: 0, queued: 0 })
    expect(p.totals().tables['trades']!.queued_max).toBeLessThanOrEqual(1000)
    expect(await counts('LIV')).toEqual({ raw: 3000, c1m: 3000, c1d: 3000 })
    await p.close(Date.now() + 5000)
  }, 60_000)

  it('holds writes accepted after a hold until release; rows accepted before it are written by drained', async () => {
    const p = new IngestPipeline(store, { batchRows: 50_000, flushMs: 60_000, queueRows: 100_000 }, silentLogger())
    for (const c of encodeRecords(trades('HLD', 50), true)) await p.write(c)
    const hold = await p.hold()
    expect(hold.gen).toBe(p.generation)
    let lateGen = -1
    for (const c of encodeRecords(trades('HLD', 70), true)) lateGen = await p.write(c)
    expect(lateGen).toBe(hold.gen)
    await hold.drained
    expect((await counts('HLD')).raw).toBe(50) // the 70 wait (sealed by the barrier below, held)
    const barrier = p.barrier()
    expect((await counts('HLD')).raw).toBe(50)
    hold.release()
    await barrier
    expect((await counts('HLD')).raw).toBe(120)
    await p.close(Date.now() + 5000)
  })

  it('writes a backlog held behind a hold as one batch, not one batch per flush interval', async () => {
    const p = new IngestPipeline(store, { batchRows: 50_000, flushMs: 20, queueRows: 100_000 }, silentLogger())
    const hold = await p.hold()
    await hold.drained
    // ten groups of live rows, each longer apart than flushMs: the timer of each group's batch fires (a 20 ms
    // timer set before a 60 ms one fires first, however loaded the machine) while the first group's batch
    // waits behind the hold, so the later groups join one open batch instead of sealing one batch each
    for (let g = 0; g < 10; g++) {
      for (const c of encodeRecords(trades('BKL', 10), false)) await p.write(c)
      await new Promise((r) => setTimeout(r, 60))
    }
    hold.release()
    await p.barrier()
    expect((await counts('BKL')).raw).toBe(100)
    // the first group (sealed by its timer: nothing waited then), and the other nine together
    expect(p.totals().batches).toBe(2)
    await p.close(Date.now() + 5000)
  })
})
