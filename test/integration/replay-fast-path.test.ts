/**
 * The replay worker's byte-level aggTrade path (ingest/sources/binance/aggtrade-fast.ts) against the
 * general path (the normalizer, as the in-thread replay runs it): the same chunks byte for byte (so the
 * same stored rows, batches and dedup tokens) and the same counters, for recordings full of lines the
 * byte path must refuse or treat with care: prices it must reprint ("97000.10") or refuse ("1e5"),
 * nulls, missing and empty fields, escapes, leading zeros, other key orders, other streams and venues,
 * multiplied and delivery markets, trades without an id and the trades after them, duplicates, gaps,
 * market meta changed mid-recording, non-UTF-8-safe splits (a line cut across gunzip chunks, multi-byte
 * text cut in two), an unterminated last line. Three ways: random line sequences cut at random places
 * (in process), files through ReplaySource's in-thread path vs the worker thread, and the same files read
 * in tiny gunzip chunks.
 */
import fs from 'node:fs'
import path from 'node:path'
import zlib from 'node:zlib'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { silentLogger } from '../../engine/log.js'
import type { NormalizedRecord } from '../../engine/records/types.js'
import { isLiveRecords, type EncodedChunk } from '../../ingest/encoded-chunk.js'
import { recordedBlocks, LineBlocks } from '../../ingest/record/replay-blocks.js'
import { ReplayLines, type ReplayCounts } from '../../ingest/record/replay-lines.js'
import { recordedLine } from '../../ingest/record/recording-format.js'
import { CHUNK_RECORDS, recordItems } from '../../ingest/sources/feed/feed-pump.js'
import { ReplaySource } from '../../ingest/sources/replay-source.js'
import { ReplayChunks } from '../../ingest/workers/replay-chunks.js'
import { writeCapture } from '../../bench/replay/capture.js'
import { drainSource } from '../helpers/venues/drain-source.js'
import { tmpDir } from '../helpers/tmp-dir.js'
import { T0, exchangeInfo, agg, ws, oddLines } from '../helpers/venues/binance-replay-lines.js'

interface Result {
  chunks: EncodedChunk[]
  counts: ReplayCounts
}

/** The general path in process: what the in-thread replay does with the lines of `text`. */
function general(text: string): Result {
  const parts = text.split('\n')
  const rest = parts.pop()!
  if (rest.trim() !== '') parts.push(rest)
  const lines = new ReplayLines()
  const chunks: EncodedChunk[] = []
  let out: NormalizedRecord[] = []
  // what the in-thread replay hands on (replay-source.ts: recordItems, bulk), the live records left out
  const flush = (): void => {
    for (const item of recordItems(out, lines.counters, true))
      if (!isLiveRecords(item)) chunks.push(item as EncodedChunk)
    out = []
  }
  for (const line of parts) {
    if (Number.isNaN(lines.read(line))) continue
    lines.normalize(out)
    if (out.length >= CHUNK_RECORDS) flush()
  }
  if (out.length > 0) flush()
  return { chunks, counts: lines.counts() }
}

/** The worker's byte path in process, the bytes cut into pieces at `cuts`. */
function bytePath(bytes: Buffer, cuts: number[]): Result & { taken: number } {
  const r = new ReplayChunks()
  const cut = new LineBlocks()
  const chunks: EncodedChunk[] = []
  // the worker's loop (replay-worker.ts), without the thread and the credits
  const handle = (b: Buffer): void => {
    for (let i = 0; i < b.length;) {
      i = r.fill(b, i)
      if (r.full) chunks.push(...r.take())
    }
  }
  let from = 0
  for (const at of [...cuts.filter((c) => c > 0 && c < bytes.length).sort((a, b) => a - b), bytes.length]) {
    for (const b of cut.push(bytes.subarray(from, at))) handle(b)
    from = at
  }
  const rest = cut.end()
  if (rest !== null) handle(rest)
  if (r.rows > 0) chunks.push(...r.take())
  return { chunks, counts: r.lines.counts(), taken: r.fast?.taken ?? 0 }
}

const shape = (c: EncodedChunk): unknown => ({ ...c, data: Buffer.from(c.data).toString('utf8') })

function expectSame(a: Result, b: Result): void {
  expect(a.chunks.map(shape)).toEqual(b.chunks.map(shape))
  expect(a.counts).toEqual(b.counts)
}

describe('replay byte path for Binance aggTrade lines', () => {
  it('gives the general path chunks and counters on odd lines, however the bytes are cut', () => {
    const lines = oddLines()
    const text = lines.map(([l]) => l).join('')
    const bytes = Buffer.from(text, 'utf8')
    const ref = general(text)
    const whole = bytePath(bytes, [])
    expectSame(whole, ref)
    // the byte path took exactly the lines marked for it, the rest went the general way
    expect(whole.taken).toBe(lines.filter(([, fast]) => fast).length)
    expect(ref.counts.duplicates).toBeGreaterThanOrEqual(3)
    expect(ref.counts.gapsFound).toBeGreaterThanOrEqual(1)
    expect(ref.counts.unsequenced).toBeGreaterThanOrEqual(1)
    const tsv = Buffer.from(ref.chunks.find((c) => c.table === 'trades')!.data).toString()
    expect(tsv).toContain('\t97000.1\t1\t101\n')
    expect(tsv).toContain('\tTABUSDT\tTA\\\\B\\tX\tUSDT\tsell\t2.5\t0.01\t2\n')
    expect(tsv).toContain('\tbinance\tperp\tBTCUSDT\tXBT\tUSDT\tsell\t97000.5\t0.01\t132\n')
    // every cut: at each byte of the first lines (inside the € too), and random sets of cuts
    for (let at = 1; at < 400; at++) expectSame(bytePath(bytes, [at]), ref)
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 40 }), (cuts) => {
        expectSame(bytePath(bytes, cuts), ref)
      }),
      { numRuns: 200 }
    )
    // without the last newline: the unterminated line is still read
    expectSame(bytePath(bytes.subarray(0, bytes.length - 1), [bytes.length - 30]), general(text.slice(0, -1)))
  })

  it('a market list that drops a market the byte path cached: its later trades go where the general path sends them', () => {
    const t = T0
    const text = [
      ws(agg('BTCUSDT', 1, t), t), // cached by the byte path
      recordedLine(
        'binance',
        '/fapi/v1/exchangeInfo',
        exchangeInfo([{ s: 'BTCUSDT', base: 'BTC', type: 'CURRENT_QUARTER' }]),
        t
      ),
      ws(agg('BTCUSDT', 2, t + 1), t + 1), // now a delivery contract: not followed
      recordedLine('binance', '/fapi/v1/exchangeInfo', exchangeInfo([{ s: 'BTCUSDT', base: 'BTC' }]), t + 2),
      ws(agg('BTCUSDT', 3, t + 3), t + 3) // a perpetual again, a new market state
    ].join('')
    const ref = general(text)
    const fast = bytePath(Buffer.from(text), [])
    expectSame(fast, ref)
    const tsv = Buffer.from(ref.chunks.find((c) => c.table === 'trades')!.data).toString()
    expect(
      tsv
        .split('\n')
        .filter(Boolean)
        .map((row) => row.split('\t').at(-1))
    ).toEqual(['1', '3'])
    expect(fast.taken).toBe(2)
  })

  it('gives the general path chunks and counters on random recordings', () => {
    const symbols = ['BTCUSDT', 'ETHUSDT', '1000PEPEUSDT', 'BTCUSDT_250328', 'btcusdt', 'X']
    const decimal = fc.oneof(
      fc
        .double({ min: 1e-7, max: 1e6, noNaN: true })
        .chain((x) => fc.integer({ min: 0, max: 9 }).map((d) => x.toFixed(d))),
      fc.stringMatching(/^[0-9.e+-]{0,8}$/)
    )
    const field = fc.oneof(
      decimal.map((d) => `"${d}"`),
      fc.constantFrom('null', '""', '', '1.5', '"1\\u002e5"')
    )
    const line = fc.record({
      s: fc.constantFrom(...symbols),
      a: fc.oneof(fc.integer({ min: 0, max: 40 }).map(String), fc.constantFrom('', 'null', '07', '"3"')),
      p: field,
      q: field,
      m: fc.constantFrom('true', 'false', 'true', 'null'),
      dt: fc.integer({ min: 0, max: 3 }),
      other: fc.integer({ min: 0, max: 12 })
    })
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 60 }), fc.array(fc.nat(), { maxLength: 8 }), (ls, cuts) => {
        let t = T0
        const text = ls
          .map((x) => {
            t += x.dt
            if (x.other === 0)
              return recordedLine('binance', '/fapi/v1/exchangeInfo', exchangeInfo([{ s: x.s, base: 'B' + x.dt }]), t)
            // the list makes a market the byte path may have cached a delivery contract (dropped, not followed)
            if (x.other === 1)
              return recordedLine(
                'binance',
                '/fapi/v1/exchangeInfo',
                exchangeInfo([{ s: x.s, base: 'B', type: 'CURRENT_QUARTER' }]),
                t
              )
            const fields: Record<string, string> = { m: x.m }
            if (x.p !== '"97000.5"') fields['p'] = x.p
            if (x.q !== '"0.010"') fields['q'] = x.q
            if (x.a === '' || x.a === 'null') fields['a'] = x.a
            const a = x.a === '' || x.a === 'null' ? 0 : x.a
            return ws(agg(x.s, a, t, fields), t)
          })
          .join('')
        const bytes = Buffer.from(text)
        expectSame(
          bytePath(
            bytes,
            cuts.map((c) => c % bytes.length)
          ),
          general(text)
        )
      }),
      { numRuns: 300 }
    )
  })
})

describe('replay byte path, whole files', () => {
  const rec = tmpDir()
  const TRADES = 12_000
  beforeAll(async () => {
    await writeCapture(path.join(rec.dir, 'binance-2026-10-01T00.ndjson.gz'), TRADES)
    const odd = oddLines()
      .map(([l]) => l)
      .join('')
    fs.writeFileSync(path.join(rec.dir, 'binance-2026-10-01T01.ndjson.gz'), zlib.gzipSync(odd))
  })
  afterAll(() => rec.cleanup())

  it('the worker thread stores what the in-thread replay stores, and so do tiny gunzip chunks', async () => {
    const source = (thread: 'worker' | 'main'): ReplaySource =>
      new ReplaySource({ path: rec.dir, speed: 0, log: silentLogger(), thread })
    const inThread = source('main')
    const main = drainSource(inThread)
    await main.done
    const inWorker = source('worker')
    const worker = drainSource(inWorker)
    await worker.done
    expect(main.chunks.length).toBeGreaterThan(TRADES / CHUNK_RECORDS)
    expect(worker.chunks.map(shape)).toEqual(main.chunks.map(shape))
    const { connected: _a, ...mainStatus } = inThread.status()
    const { connected: _b, ...workerStatus } = inWorker.status()
    expect(workerStatus).toEqual(mainStatus)

    // the worker's loop in process over 64-byte gunzip chunks: every line split somewhere
    const r = new ReplayChunks()
    const chunks: EncodedChunk[] = []
    for (const file of fs.readdirSync(rec.dir).sort()) {
      for await (const b of recordedBlocks(path.join(rec.dir, file), 64).blocks) {
        for (let i = 0; i < b.length;) {
          i = r.fill(b, i)
          if (r.full) chunks.push(...r.take())
        }
      }
    }
    chunks.push(...r.take())
    expect(chunks.map(shape)).toEqual(main.chunks.map(shape))
    expect(r.fast?.taken).toBeGreaterThan(TRADES)
  })
})
