/**
 * Fault test: the store is unavailable for 60 s under the live demo feed. Memory stays bounded,
 * no table queues more than INGEST_QUEUE_ROWS, /v1/health shows the outage, endpoints that need the store
 * answer 503 with the envelope while hot reads keep answering from memory, and once the store is back
 * everything queued is written exactly once, without a restart. Figures are logged (RSS, queued rows,
 * time to drain) for the benchmark notes.
 */
import { describe, it, expect } from 'vitest'
import { loadConfig } from '../../server/config.js'
import { silentLogger } from '../../engine/log.js'
import { start } from '../../server/start.js'
import { FlakyStore } from '../helpers/flaky-store.js'
import { TEST_ADMIN_TOKEN, jsonBody } from '../helpers/server.js'
import { tmpDir } from '../helpers/tmp-dir.js'

/** Outage length, s (the 60 s; OUTAGE_S shortens it for a quick local run). */
const OUTAGE_S = Number(process.env['OUTAGE_S'] ?? 60)
const QUEUE_ROWS = 5_000
const MB = 1024 * 1024

describe('store outage under the live demo feed', () => {
  it(`survives ${OUTAGE_S} s without the store, bounded, and writes everything once afterwards`, async () => {
    const tmp = tmpDir()
    let store: FlakyStore | undefined
    const running = await start(
      loadConfig({
        PORT: '0',
        HOST: '127.0.0.1',
        DATA_DIR: tmp.dir,
        SOURCES: 'sim',
        SIM_BACKFILL_DAYS: '0',
        INGEST_QUEUE_ROWS: String(QUEUE_ROWS),
        INGEST_FLUSH_MS: '200',
        ADMIN_TOKEN: TEST_ADMIN_TOKEN,
        CHDB_POOL_SIZE: '3'
      }),
      silentLogger(),
      { wrapStore: (s) => (store = new FlakyStore(s)) }
    )
    const base = `http://127.0.0.1:${running.port}`
    try {
      await running.ready
      const keyRes = await fetch(`${base}/v1/admin/keys`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ plan: 'enterprise' })
      })
      const key = ((await jsonBody(keyRes)) as { key: string }).key
      const h = { 'x-api-key': key }
      // the live feed runs and writes for a while first
      const pipeline = running.ctx.pipeline
      while (pipeline.totals().written < 2_000) await new Promise((r) => setTimeout(r, 200))
      const rssBefore = process.memoryUsage().rss
      const writtenBefore = pipeline.totals().written

      store!.down = true
      let rssMax = rssBefore
      let queuedMax = 0
      let sawDegraded = false
      const until = Date.now() + OUTAGE_S * 1000
      while (Date.now() < until) {
        await new Promise((r) => setTimeout(r, 1000))
        rssMax = Math.max(rssMax, process.memoryUsage().rss)
        for (const [table, c] of Object.entries(pipeline.totals().tables)) {
          expect(c.queued, table).toBeLessThanOrEqual(QUEUE_ROWS)
          queuedMax = Math.max(queuedMax, c.queued)
        }
        const health = await jsonBody(await fetch(`${base}/v1/health`))
        if (health.status === 'degraded' && health.store.ok === false) sawDegraded = true
        // the health answer shows the bound and every table's queue
        expect(health.ingest.queue_bound_rows).toBe(QUEUE_ROWS)
        for (const t of Object.values(health.ingest.tables) as { queued: number }[]) {
          expect(t.queued).toBeLessThanOrEqual(QUEUE_ROWS)
        }
        // hot reads answer from memory
        expect((await fetch(`${base}/v1/options/chain?currency=BTC`, { headers: h })).status).toBe(200)
        const screener = await fetch(`${base}/v1/derivatives/screener`, { headers: h })
        expect(screener.status).toBe(200)
        await screener.arrayBuffer()
        // history needs the store: 503 with the envelope, never a 500
        const hist = await fetch(`${base}/v1/historical/ohlcv?symbol=BTC&timeframe=1h&limit=5`, { headers: h })
        const body = await jsonBody(hist)
        expect(hist.status, JSON.stringify(body)).toBe(503)
        expect(body.error.code).toBe('unavailable')
        expect(hist.headers.get('retry-after')).toBe('5')
      }
      expect(sawDegraded).toBe(true)
      expect(rssMax - rssBefore).toBeLessThan(200 * MB)
      const queuedAtEnd = pipeline.totals().queued
      const refused = store!.refused
      expect(refused).toBeGreaterThan(0)

      // the store is back: the queued rows drain without a restart
      store!.down = false
      const back = Date.now()
      while (pipeline.totals().queued > 0 || pipeline.totals().written === writtenBefore) {
        expect(Date.now() - back).toBeLessThan(60_000)
        await new Promise((r) => setTimeout(r, 100))
      }
      const drainMs = Date.now() - back
      const health = await jsonBody(await fetch(`${base}/v1/health`))
      console.log(
        `store outage ${OUTAGE_S} s: RSS before ${Math.round(rssBefore / MB)} MB, max ${Math.round(rssMax / MB)} MB ` +
          `(+${Math.round((rssMax - rssBefore) / MB)} MB); queued max ${queuedMax} rows/table (bound ${QUEUE_ROWS}), ` +
          `${queuedAtEnd} rows queued at the end of the outage; ${refused} store calls refused; drained in ${drainMs} ms; ` +
          `loops: ${JSON.stringify(health.loops.map((l: { name: string; errors: number }) => [l.name, l.errors]))}`
      )
      expect(health.ingest.failed).toBe(0)
      // nothing was restarted: the feed rode out the outage (waiting on its barrier), no loop is in backoff
      for (const l of health.loops as { name: string; state: string; restarts: number }[]) {
        expect(l.restarts, l.name).toBe(0)
        expect(l.state, l.name).not.toBe('backoff')
      }
      expect(health.loops.find((l: { name: string }) => l.name === 'source:sim').state).toBe('running')
      // written exactly once: the raw table holds each trade once, and as many rows as the pipeline wrote
      await pipeline.barrier()
      const [row] = await running.ctx.store.query<{ n: number; u: number }>(
        'SELECT count() AS n, uniqExact(exchange, symbol, trade_id) AS u FROM trades'
      )
      expect(row!.n).toBe(row!.u)
      expect(row!.n).toBe(pipeline.totals().tables['trades']!.written)
    } finally {
      await running.stop()
      tmp.cleanup()
    }
  }, 240_000)
})
