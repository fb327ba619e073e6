/**
 * The candle caches' warm-up after a start (engine/export/warm-up.ts), on real chDB: on an empty store it
 * loads nothing (every table skipped); with candles it loads the tables holding parts and the export's
 * bytes are the same after it; a failing store is logged, not thrown; on the server it runs once ready, as
 * a loop that ends without an error, and the server stays ready.
 */
import { Writable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createLogger } from '../../engine/log.js'
import { runCandleExport } from '../../engine/export/export-run.js'
import { warmCandleCaches, warmUpLogged, WARMED_TIMEFRAMES } from '../../engine/export/warm-up.js'
import { TIMEFRAMES } from '../../engine/history/timeframes.js'
import { FlakyStore } from '../helpers/flaky-store.js'
import { jsonBody, startTestServer } from '../helpers/server.js'
import { until } from '../helpers/until.js'

/** one server per file (chDB binds one data dir per process): its store serves the direct calls too */
let srv: Awaited<ReturnType<typeof startTestServer>>
beforeAll(async () => {
  srv = await startTestServer()
})
afterAll(async () => {
  await srv?.stop()
})
const store = () => srv.running.ctx.store
/** an hour two days back (inside every table's retention), epoch ms */
const T0 = Math.floor(Date.now() / 3_600_000) * 3_600_000 - 48 * 3_600_000
const never = new AbortController().signal
const tables = WARMED_TIMEFRAMES.map((t) => TIMEFRAMES[t].table)

/** One market's trades, one every 10 s for an hour, inserted straight into the raw table. */
async function insertTrades(): Promise<void> {
  const rows = Array.from({ length: 360 }, (_, i) => {
    const ts = new Date(T0 + i * 10_000).toISOString().replace('T', ' ').replace('Z', '')
    return `('${ts}', 'binance', 'perp', 'ETHUSDT', 'ETH', 'USDT', '${i % 2 ? 'buy' : 'sell'}', ${3000 + (i % 17)}, 0.5, 't${i}')`
  })
  await store().command(
    `INSERT INTO trades (ts, exchange, market, symbol, base, quote, side, price, qty, trade_id) VALUES ${rows.join(', ')}`
  )
}

async function exportBytes(): Promise<Buffer> {
  const chunks: Uint8Array[] = []
  for await (const c of runCandleExport(store(), {
    timeframe: '1m',
    markets: [{ exchange: 'binance', symbol: 'ETHUSDT', base: 'ETH' }],
    fromMs: T0,
    toMs: T0 + 3_600_000,
    format: 'csv',
    tmpDir: srv.dataDir,
    synthetic: false,
    pinMerged: true
  })) {
    chunks.push(c)
  }
  return Buffer.concat(chunks)
}

/** A logger whose lines are kept as parsed objects. */
function recordingLogger(): { log: ReturnType<typeof createLogger>; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = []
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>)
      done()
    }
  })
  return { log: createLogger('info', sink), lines }
}

describe('candle cache warm-up', () => {
  it('skips every table of an empty store', async () => {
    const r = await warmCandleCaches(store(), never)
    expect(r.warmed).toEqual([])
    expect(r.skipped).toEqual(tables)
  })

  it('loads the tables holding parts, and the export answers the same bytes after it', async () => {
    await insertTrades()
    const before = await exportBytes()
    expect(before.toString('utf8').split('\n').filter(Boolean).length).toBe(61) // header + 60 minutes
    const r = await warmCandleCaches(store(), never)
    expect(r.warmed).toContain('candles_1m')
    expect(r.warmed).toContain('candles_1h')
    expect([...r.warmed, ...r.skipped].sort()).toEqual([...tables].sort())
    expect((await exportBytes()).equals(before)).toBe(true)
  })

  it('stops at an aborted signal before loading anything', async () => {
    const ac = new AbortController()
    ac.abort()
    expect(await warmCandleCaches(store(), ac.signal)).toMatchObject({ warmed: [], skipped: [] })
  })

  it('logs a store failure and resolves', async () => {
    const flaky = new FlakyStore(store())
    flaky.down = true
    const { log, lines } = recordingLogger()
    await expect(warmUpLogged(flaky, never, log)).resolves.toBeUndefined()
    await until('the failure is logged', () => lines.length > 0)
    expect(lines[0]).toMatchObject({ level: 40, msg: expect.stringContaining('warm-up failed') })
  })
})

describe('the warm-up on the server', () => {
  it('runs once ready, ends without an error, and the server stays ready', async () => {
    const loop = async () => {
      const health = await jsonBody(await fetch(`${srv.base}/v1/health`))
      return (health.loops as { name: string; state: string; errors: number }[]).find(
        (l) => l.name === 'candle-cache-warm-up'
      )
    }
    await until('the warm-up loop is done', async () => (await loop())?.state === 'done')
    expect((await loop())?.errors).toBe(0)
    const health = await jsonBody(await fetch(`${srv.base}/v1/health`))
    expect(health.ready).toBe(true)
  })
})
