/**
 * A full-speed replay in the worker thread (docs/sources.md, "Replay") gives what the in-thread path gives: the same
 * chunks byte for byte (so the same batches and dedup tokens), the same counters, and in a real store
 * the same rows: after the worker replay, replaying the recording in-thread into the same store adds
 * nothing (every batch deduplicated). The recording mixes the fast path with every fallback: a REST
 * answer, a trade the fast path refuses (escaped field order), a duplicate, a gap, a line that is not
 * JSON, a recorded non-JSON message, an unknown venue, and a second file cut short (truncated gzip).
 */
import fs from 'node:fs'
import path from 'node:path'
import zlib from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { silentLogger } from '../../engine/log.js'
import { migrate } from '../../engine/schema/migrate.js'
import { ChdbStore } from '../../engine/store/chdb/chdb-store.js'
import { BatchJournal } from '../../ingest/journal.js'
import { IngestPipeline } from '../../ingest/pipeline.js'
import { recordedLine, recordedTextLine } from '../../ingest/record/recording-format.js'
import { ReplaySource } from '../../ingest/sources/replay-source.js'
import { writeCapture } from '../../bench/replay/capture.js'
import { drainSource } from '../helpers/venues/drain-source.js'
import { tmpDir } from '../helpers/tmp-dir.js'

const TRADES = 30_000
const rec = tmpDir()
const data = tmpDir()
let store: ChdbStore

/** The odd lines of the second file, an hour after the capture (2026-10-01T00). */
function oddLines(): string {
  const t = Date.UTC(2026, 9, 1, 1)
  const agg = (a: number, s: string, ts: number): string =>
    `{"stream":"${s.toLowerCase()}@aggTrade","data":{"e":"aggTrade","E":${ts},"a":${a},"s":"${s}","p":"97001.5","q":"0.010","f":1,"l":1,"T":${ts},"m":true}}`
  return [
    recordedLine('binance', 'ws', agg(9_000_000, 'BTCUSDT', t), t),
    recordedLine('binance', 'ws', agg(9_000_000, 'BTCUSDT', t + 1), t + 1), // duplicate id
    recordedLine('binance', 'ws', agg(9_000_005, 'BTCUSDT', t + 2), t + 2), // gap of 4 ids
    // key order the fast path does not take: parsed whole
    recordedLine(
      'binance',
      'ws',
      `{"data":{"e":"aggTrade","s":"ETHUSDT","a":8000000,"p":"3400.5","q":"1.5","T":${t + 3},"m":false,"E":${t + 3}},"stream":"ethusdt@aggTrade"}`,
      t + 3
    ),
    recordedLine(
      'binance',
      '/fapi/v1/openInterest?symbol=BTCUSDT',
      `{"symbol":"BTCUSDT","openInterest":"812.5","time":${t + 4}}`,
      t + 4
    ),
    recordedTextLine('binance', 'ws', '{"broken":', t + 5),
    recordedLine('krakenx', 'ws', '{"x":1}', t + 6),
    '{"t": not json',
    ''
  ].join('\n')
}

beforeAll(async () => {
  await writeCapture(path.join(rec.dir, 'binance-2026-10-01T00.ndjson.gz'), TRADES)
  const whole = zlib.gzipSync(oddLines())
  // the second hour's file cut short (its gzip trailer missing): its lines replay, the cut is counted
  fs.writeFileSync(path.join(rec.dir, 'binance-2026-10-01T01.ndjson.gz'), whole.subarray(0, whole.length - 8))
  store = new ChdbStore({ path: data.dir, poolSize: 2 })
  await migrate(store, {})
})

afterAll(async () => {
  await store?.close()
  rec.cleanup()
  data.cleanup()
})

function source(thread: 'worker' | 'main'): ReplaySource {
  return new ReplaySource({ path: rec.dir, speed: 0, log: silentLogger(), thread })
}

/** Replays into the store through the pipeline and journal, as the server does; returns rows written. */
async function replayInto(thread: 'worker' | 'main'): Promise<number> {
  const pipeline = new IngestPipeline(
    store,
    { batchRows: 50_000, bulkBatchRows: 250_000, flushMs: 1000, queueRows: 500_000 },
    silentLogger(),
    new BatchJournal(path.join(data.dir, 'journal'))
  )
  for await (const item of source(thread).items(new AbortController().signal)) await pipeline.push(item)
  await pipeline.close(Date.now() + 10_000)
  return pipeline.totals().written
}

const count = async (sql: string): Promise<number> => Number((await store.query<{ n: number }>(sql))[0]!.n)

describe('replay in a worker thread', () => {
  it('yields the same chunks and counters as the in-thread path', async () => {
    const inThread = source('main')
    const main = drainSource(inThread)
    await main.done
    const inWorker = source('worker')
    const worker = drainSource(inWorker)
    await worker.done
    expect(main.chunks.length).toBeGreaterThan(TRADES / 5_000)
    expect(worker.chunks.map((c) => [c.table, c.rows, c.hash, c.bulk])).toEqual(
      main.chunks.map((c) => [c.table, c.rows, c.hash, c.bulk])
    )
    for (let i = 0; i < main.chunks.length; i++) {
      expect(Buffer.from(worker.chunks[i]!.data).equals(Buffer.from(main.chunks[i]!.data))).toBe(true)
    }
    // the worker path hands no records to the live state (a bulk load: it reloads from the store)
    expect(main.records.length).toBe(TRADES + 3)
    expect(worker.records).toEqual([])
    const { connected: _a, ...mainStatus } = inThread.status()
    const { connected: _b, ...workerStatus } = inWorker.status()
    expect(workerStatus).toEqual(mainStatus)
    expect(workerStatus).toMatchObject({
      phase: 'done',
      rows: TRADES + 3,
      messages: TRADES + 1 + 7, // the capture's trades and exchangeInfo, the second file's JSON lines
      duplicates: 1,
      gaps_found: 3, // the capture's last BTC and ETH ids to 9,000,000 / 8,000,000, and 9,000,000 to 9,000,005
      unknown_messages: 1,
      parse_errors: 3 // the recorded text message, the line that is not JSON, the cut file
    })
  })

  it('stores the rows of the in-thread path, once', async () => {
    expect(await replayInto('worker')).toBe(TRADES + 3)
    const trades = await count('SELECT count() AS n FROM trades')
    expect(trades).toBe(TRADES + 3)
    expect(await count('SELECT sum(trades) AS n FROM candles_1m')).toBe(trades)
    const digest = await count('SELECT sum(cityHash64(*)) % 1000000007 AS n FROM trades')
    // the in-thread replay seals the same batches with the same tokens: the engine drops every one
    expect(await replayInto('main')).toBe(TRADES + 3)
    expect(await count('SELECT count() AS n FROM trades')).toBe(trades)
    expect(await count('SELECT sum(trades) AS n FROM candles_1m')).toBe(trades)
    expect(await count('SELECT sum(cityHash64(*)) % 1000000007 AS n FROM trades')).toBe(digest)
  })

  it('a stop mid-replay ends the worker without a final barrier', async () => {
    const abort = new AbortController()
    const items: unknown[] = []
    const s = source('worker')
    for await (const item of s.items(abort.signal)) {
      items.push(item)
      if (items.length === 2) abort.abort()
    }
    expect(items.length).toBeLessThan(TRADES / 5_000)
    expect(items.some((i) => (i as { barrier?: boolean }).barrier)).toBe(false)
    expect(s.status()).toMatchObject({ connected: false, phase: 'replay' })
  })
})
