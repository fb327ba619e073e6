/**
 * The live state beside the write path, on a real chDB store: records that arrive
 * while the state is rebuilt from the store are neither lost nor counted twice, a throwing update is
 * counted and skipped, and the consumer queue is bounded.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { ChdbStore } from '../../engine/store/chdb/chdb-store.js'
import { migrate } from '../../engine/schema/migrate.js'
import { silentLogger } from '../../engine/log.js'
import { IngestPipeline } from '../../ingest/pipeline.js'
import { encodeRecords } from '../../ingest/encode-records.js'
import { LiveState } from '../../engine/live/live-state.js'
import type { TradeRecord } from '../../engine/records/types.js'
import { tmpDir } from '../helpers/tmp-dir.js'

const tmp = tmpDir()
let chdb: ChdbStore

beforeAll(async () => {
  chdb = new ChdbStore({ path: tmp.dir, poolSize: 3 })
  await migrate(chdb, {})
})
afterAll(async () => {
  await chdb.close()
  tmp.cleanup()
})

let seq = 0
/** `n` perp trades of 10 USD each (price 10, qty 1) in the current hour. */
function trades(symbol: string, n: number): TradeRecord[] {
  const now = Date.now()
  return Array.from({ length: n }, () => ({
    kind: 'trade' as const,
    ts: now,
    exchange: 'binance',
    market: 'perp' as const,
    symbol: `${symbol}USDT`,
    base: symbol,
    quote: 'USDT',
    side: 'buy' as const,
    price: 10,
    qty: 1,
    trade_id: String(seq++)
  }))
}

/** What a source hands the pipeline for live trades: their chunks, then the records themselves. */
function items(records: TradeRecord[]) {
  return [...encodeRecords(records, false), { live: true as const, records }]
}

function volume(live: LiveState, symbol: string): number {
  return live.screener.rowOf('binance', `${symbol}USDT`, Date.now())?.volume_24h_usd ?? 0
}

/**
 * A pipeline with a small queue bound: a producer that never stops keeps the queue full, and each rebuild
 * waits for the rows queued before its hold to be written, so the bound (not the machine's speed) sets the
 * work of each rebuild.
 */
function setup(): { pipeline: IngestPipeline; live: LiveState } {
  const pipeline = new IngestPipeline(chdb, { batchRows: 50_000, flushMs: 30, queueRows: 5_000 }, silentLogger())
  const live = new LiveState(chdb)
  pipeline.live = live
  live.writes = pipeline
  return { pipeline, live }
}

describe('live state rebuilds', () => {
  it('loses and doubles nothing offered while rebuilds run, under a producer that never stops', async () => {
    const { pipeline, live } = setup()
    const lane = pipeline.lane()
    let sent = 0
    let producing = true
    const producer = (async () => {
      while (producing) {
        for (const item of items(trades('RBA', 7))) await lane.push(item)
        sent += 7
        await new Promise((r) => setImmediate(r))
      }
    })()
    // rebuild over and over while trades keep arriving (and their batches keep being written on the timer)
    for (let i = 0; i < 12; i++) {
      await live.rebuild()
      await new Promise((r) => setTimeout(r, 15))
    }
    producing = false
    await producer
    await pipeline.barrier()
    // wait for the consumer to apply the last offers
    await live.offer([], 0)
    await new Promise((r) => setImmediate(r))
    expect(sent).toBeGreaterThan(100)
    expect(live.counters.rebuilds).toBe(12)
    expect(volume(live, 'RBA')).toBe(sent * 10)
    // and a rebuild from the store alone agrees
    await live.rebuild()
    expect(volume(live, 'RBA')).toBe(sent * 10)
    await pipeline.close(Date.now() + 5000)
  }, 60_000)

  it('finds records offered during a rebuild (the old rebuild reset the books after its reads)', async () => {
    const { pipeline, live } = setup()
    const lane = pipeline.lane()
    for (const item of items(trades('RBB', 5))) await lane.push(item)
    const rebuilding = live.rebuild()
    // arrive while the rebuild holds writes and reads the store
    for (const item of items(trades('RBB', 3))) await lane.push(item)
    await rebuilding
    await live.offer([], 0)
    expect(volume(live, 'RBB')).toBe(80)
    await pipeline.close(Date.now() + 5000)
  })

  it('counts an update that throws and keeps applying the next ones', async () => {
    const { pipeline, live } = setup()
    let fail = true
    live.observe({
      apply: () => {
        if (fail) throw new Error('observer broke')
      },
      rebuilt: async () => undefined
    })
    const errors: string[] = []
    live.onError = (what) => errors.push(what)
    const lane = pipeline.lane()
    for (const item of items(trades('RBC', 2))) await lane.push(item)
    await live.offer([], 0)
    await new Promise((r) => setImmediate(r))
    expect(live.counters.apply_errors).toBe(1)
    expect(errors).toEqual(['live update'])
    fail = false
    for (const item of items(trades('RBC', 2))) await lane.push(item)
    await new Promise((r) => setImmediate(r))
    expect(live.counters.apply_errors).toBe(1)
    expect(volume(live, 'RBC')).toBe(40) // the books took both batches; only the observer failed
    await pipeline.close(Date.now() + 5000)
  })

  it('drops and counts offers beyond the consumer queue bound instead of growing', async () => {
    const live = new LiveState(chdb)
    const big = trades('RBD', 150_000)
    void live.offer(big, 0)
    void live.offer(big, 0) // 300,000 > 200,000 queued records: dropped, counted
    expect(live.queued).toBe(150_000)
    expect(live.counters.dropped).toBe(150_000)
    await live.offer([], 0)
    await new Promise((r) => setImmediate(r))
    expect(live.queued).toBe(0)
    expect(volume(live, 'RBD')).toBe(1_500_000)
  })
})
