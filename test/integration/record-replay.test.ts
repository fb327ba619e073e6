import fs from 'node:fs'
import path from 'node:path'
import zlib from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../server/config.js'
import { silentLogger } from '../../engine/log.js'
import type { NormalizedRecord } from '../../engine/records/types.js'
import { recordingFiles } from '../../ingest/record/replay-reader.js'
import { BinanceSource } from '../../ingest/sources/binance.js'
import { ReplaySource } from '../../ingest/sources/replay-source.js'
import { startTestServer } from '../helpers/server.js'
import { tmpDir } from '../helpers/tmp-dir.js'
import { BinanceTestServer } from '../helpers/venues/binance-server.js'
import { PERPS, forceOrderEvent, markPriceUpdate } from '../helpers/venues/binance-fixtures.js'
import { drainSource } from '../helpers/venues/drain-source.js'
import { until } from '../helpers/until.js'

const rec = tmpDir()
let live: NormalizedRecord[] = []
let liveStatus: ReturnType<BinanceSource['status']>

/** Records a short session from the local venue: trades with a gap, mark prices, a liquidation, junk. */
beforeAll(async () => {
  const venue = await new BinanceTestServer().start()
  for (const s of PERPS) {
    venue.openInterest.set(s, '500')
    venue.longShort.set(s, '0.9')
  }
  const source = new BinanceSource({
    wsUrl: venue.wsUrl,
    restUrl: venue.restUrl,
    symbols: ['BTCUSDT', 'SOLVUSDT'],
    log: silentLogger(),
    recordDir: rec.dir
  })
  const feed = drainSource(source)
  await venue.waitSubscribed(['!markPrice@arr@1s', 'btcusdt@aggTrade', 'solvusdt@aggTrade'])
  const t = Date.now()
  venue.publish(
    '!markPrice@arr@1s',
    PERPS.map((s) => markPriceUpdate(s, t, '0.00012000', t + 3_600_000))
  )
  for (let i = 0; i < 20; i++) venue.trade('BTCUSDT', t + i, String(97000 + i), '0.01', i % 3 === 0, i === 7)
  venue.trade('SOLVUSDT', t, '0.05', '1000', true)
  venue.publish('!forceOrder@arr', forceOrderEvent('BTCUSDT', 'BUY', t, '97100', '0.3'))
  venue.sendRaw('{"broken":')
  await new Promise((r) => setTimeout(r, 150))
  venue.trade('SOLVUSDT', Date.now(), '0.051', '10', false)
  // the session ends with the late trade: records are handed on as they arrive, so the count alone can be
  // reached before it, and the recording would span less than the 150 ms the pace test relies on
  const late = (r: NormalizedRecord): boolean => r.kind === 'trade' && r.symbol === 'SOLVUSDT' && r.price === 0.051
  await until('recorded session', () => source.status().gaps_filled === 1 && feed.records.some(late))
  await until('open interest', () => feed.records.filter((r) => r.kind === 'open_interest').length === 2)
  await feed.stop()
  live = feed.records
  liveStatus = source.status()
  await venue.stop()
})

afterAll(() => rec.cleanup())

function replay(speed: number, target = rec.dir): { source: ReplaySource; feed: ReturnType<typeof drainSource> } {
  const source = new ReplaySource({ path: target, speed, log: silentLogger() })
  return { source, feed: drainSource(source) }
}

describe('record and replay', () => {
  it('a replay yields exactly the records of the live session, through the same normalizer', async () => {
    const { source, feed } = replay(0)
    await feed.done
    expect(feed.records).toEqual(live)
    expect(source.status()).toMatchObject({
      phase: 'done',
      connected: false,
      rows: live.length,
      parse_errors: liveStatus.parse_errors,
      gaps_found: 1
    })
    expect(liveStatus.parse_errors).toBe(1)
  })

  it('REPLAY_SPEED=1 keeps the recorded pace, 0 runs as fast as possible', async () => {
    const t0 = Date.now()
    await replay(1).feed.done
    const paced = Date.now() - t0
    const t1 = Date.now()
    await replay(0).feed.done
    const fast = Date.now() - t1
    expect(paced).toBeGreaterThanOrEqual(140) // the session spans ~150 ms of receive times
    expect(fast).toBeLessThan(paced)
  })

  it('a truncated recording (a crash while writing) replays what it holds', async () => {
    const [file] = recordingFiles(rec.dir)
    const whole = fs.readFileSync(file!)
    const cut = tmpDir()
    const target = path.join(cut.dir, 'binance-2026-01-01T00.ndjson.gz')
    fs.writeFileSync(target, whole.subarray(0, Math.floor(whole.length * 0.8)))
    expect(() => zlib.gunzipSync(fs.readFileSync(target))).toThrow()
    const { source, feed } = replay(0, target)
    await feed.done
    expect(feed.records.length).toBeGreaterThan(0)
    expect(feed.records.length).toBeLessThan(live.length)
    // exactly the records of the part that survived, in order: nothing corrupted, reordered or invented
    expect(feed.records).toEqual(live.slice(0, feed.records.length))
    expect(source.status().phase).toBe('done')
    cut.cleanup()
  })

  it('SOURCES=replay:<dir> through the real server writes the recorded trades to the store', async () => {
    const srv = await startTestServer({ SOURCES: `replay:${rec.dir}`, REPLAY_SPEED: 'max', INGEST_FLUSH_MS: '50' })
    try {
      await until('replay done', () => srv.running.ctx.sources[0]!.status().phase === 'done')
      const trades = live.filter((r) => r.kind === 'trade').length
      await until('trades written', () => (srv.running.ctx.pipeline.totals().tables['trades']?.written ?? 0) === trades)
      const [row] = await srv.running.ctx.store.query<{ n: number }>(
        "SELECT count() AS n FROM trades WHERE exchange = 'binance'"
      )
      expect(Number(row!.n)).toBe(trades)
      const health = (await (await fetch(`${srv.base}/v1/health`)).json()) as {
        status: string
        sources: { phase: string; connected: boolean }[]
      }
      expect([health.status, health.sources[0]!.phase, health.sources[0]!.connected]).toEqual(['ok', 'done', false])
    } finally {
      await srv.stop()
    }
  })
})

describe('configuration of venue sources', () => {
  it('accepts binance, live (all existing venues) and replay:<path>, naming bad values', () => {
    expect(loadConfig({ SOURCES: 'live' }).sources).toEqual(['binance', 'bybit', 'okx', 'deribit'])
    expect(loadConfig({ SOURCES: 'binance,live,sim' }).sources).toEqual(['binance', 'bybit', 'okx', 'deribit', 'sim'])
    expect(loadConfig({ SOURCES: `replay:${rec.dir}` }).sources).toEqual([`replay:${rec.dir}`])
    expect(() => loadConfig({ SOURCES: 'replay:/no/such/dir' })).toThrow(
      "SOURCES=replay:/no/such/dir: no such file or directory '/no/such/dir'"
    )
    expect(loadConfig({ REPLAY_SPEED: 'max' }).replaySpeed).toBe(0)
    expect(loadConfig({}).replaySpeed).toBe(1)
    expect(() => loadConfig({ REPLAY_SPEED: 'fast' })).toThrow('REPLAY_SPEED must be max or a number')
    expect(() => loadConfig({ BINANCE_WS_URL: 'http://x' })).toThrow('BINANCE_WS_URL must use ws or wss')
    expect(loadConfig({ BINANCE_REST_URL: 'http://127.0.0.1:9/' }).venues.binance.restUrl).toBe('http://127.0.0.1:9')
    expect(loadConfig({ BINANCE_SYMBOLS: 'btcusdt, ETHUSDT' }).venues.binance.symbols).toEqual(['BTCUSDT', 'ETHUSDT'])
  })
})
