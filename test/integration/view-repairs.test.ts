/**
 * A batch applied in part, through the real pipeline, journal and repair runner: the store writes the
 * trades and every view but 5m (its view is detached for that insert, as a full disk refuses one view's
 * part), then answers 243 NOT_ENOUGH_SPACE. The batcher holds and retries the batch (same token), the
 * journal notes its range once it is written, the runner repairs the range under a write hold and removes
 * the note; every level then counts the raw trades. (On chDB 26 the retry itself completes the 5m part:
 * `deduplicate_blocks_in_dependent_materialized_views` pushes the deduplicated block on to the views, so the
 * repair finds nothing left here; what it completes when views stay short is candle-repair.test.ts.)
 */
import path from 'node:path'
import fs from 'node:fs'
import { describe, it, expect } from 'vitest'
import { silentLogger } from '../../engine/log.js'
import { candleRepair, CANDLE_LEVELS } from '../../engine/history/candle-repair.js'
import { StoreError } from '../../engine/store/store-error.js'
import type { FileInsert, InsertBatch, Store } from '../../engine/store/store.js'
import { encodeRecords } from '../../ingest/encode-records.js'
import { BatchJournal } from '../../ingest/journal.js'
import { IngestPipeline } from '../../ingest/pipeline.js'
import { ViewRepairs } from '../../ingest/view-repairs.js'
import { tradeRows } from '../helpers/journal-batches.js'
import { useMigratedStore } from '../helpers/migrated-store.js'

const env = useMigratedStore()

/** The first trades insert reaches raw and every view but candles_5m, then fails as a full disk does. */
function partialOnce(store: Store, refused: { n: number }): Store {
  const partial = async (write: () => Promise<void>, table: string): Promise<void> => {
    if (table !== 'trades' || refused.n > 0) return write()
    refused.n++
    await store.command('DETACH TABLE candles_5m_mv')
    try {
      await write()
    } finally {
      await store.command('ATTACH TABLE candles_5m_mv')
    }
    throw new StoreError('Code: 243. Cannot reserve 7.40 MiB, not enough space. (NOT_ENOUGH_SPACE)', 243, 'disk_full')
  }
  return Object.assign(Object.create(store) as Store, {
    insert: (b: InsertBatch) => partial(() => store.insert(b), b.table),
    insertFile: (b: FileInsert) => partial(() => store.insertFile!(b), b.table)
  })
}

async function levelTrades(symbol: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {}
  const p = { s: symbol }
  out['raw'] = (
    await env.store.query<{ n: number }>('SELECT count() AS n FROM trades WHERE symbol = {s:String}', p)
  )[0]!.n
  for (const l of CANDLE_LEVELS) {
    const [row] = await env.store.query<{ n: number }>(
      `SELECT sum(trades) AS n FROM ${l.table} WHERE symbol = {s:String}`,
      p
    )
    out[l.table] = Number(row!.n)
  }
  return out
}

describe('view repairs after a partial insert', () => {
  it('a batch held for a full disk and applied in part ends up in every candle level', async () => {
    const dir = path.join(env.dir, 'journal')
    const log = silentLogger()
    const refused = { n: 0 }
    const store = partialOnce(env.store, refused)
    const repairs = new ViewRepairs(dir, { trades: candleRepair(env.store) }, log)
    const pipeline = new IngestPipeline(
      store,
      { batchRows: 10_000, flushMs: 60_000, queueRows: 100_000 },
      log,
      new BatchJournal(dir, repairs)
    )
    repairs.attach(() => pipeline.hold())
    const rows = tradeRows('VR1', 3_000) // 300 s of trades, 100 ms apart
    for (const chunk of encodeRecords(rows, true)) await pipeline.write(chunk)
    expect(await pipeline.barrier()).toBe(true)
    await repairs.settled()

    expect(refused.n).toBe(1)
    const totals = pipeline.totals()
    expect(totals).toMatchObject({ failed: 0, disk_full_retries: 1, waiting_for_disk: false })
    const levels = await levelTrades('VR1')
    for (const l of CANDLE_LEVELS) expect(levels[l.table], l.table).toBe(3_000)
    expect(levels['raw']).toBe(3_000)
    expect(repairs.counters).toMatchObject({ pending: 0, repaired: 1, errors: 0 })
    expect(fs.readdirSync(path.join(dir, 'repairs'))).toEqual([])
    await pipeline.close(Date.now() + 5_000)
  })
})
