/**
 * A fixed window's answer does not depend on how much history is stored (docs/benchmarks.md "Scale"):
 * the built server backfills the demo market (a few markets) for 2 days in one data dir and 6 days in
 * another, and the 1m and 1h candles of every market over a window both hold are byte-identical, page
 * by page, while the larger dir does hold the older days.
 */
import { describe, it, expect, afterAll } from 'vitest'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { freePort, spawnServer, waitForHealth, type Spawned } from '../helpers/spawn-server.js'
import { TEST_ADMIN_TOKEN } from '../helpers/server.js'
import { limitMarkets, UNIVERSE } from '../../ingest/sources/sim/universe.js'

const HOUR_MS = 3_600_000
const MARKETS = 4
/** generous: a backfill (the options chains are whole at any market count) on a loaded 2-core machine */
const READY_MS = 600_000

const servers: Spawned[] = []
const dirs: string[] = []

// a server stopped mid-backfill finishes its window first (up to the 40 s stop deadline)
afterAll(async () => {
  for (const s of servers) {
    if (s.child.exitCode === null) {
      s.child.kill('SIGTERM')
      await s.exited
    }
  }
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true })
}, 300_000)

async function demo(days: number): Promise<{ s: Spawned; fromMs: number; liveFromMs: number; key: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `tw-scale-${days}d-`))
  dirs.push(dir)
  const s = spawnServer(
    {
      DATA_DIR: dir,
      SOURCES: 'sim',
      SIM_BACKFILL_DAYS: String(days),
      SIM_MARKETS: String(MARKETS),
      ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      TZ: 'UTC'
    },
    await freePort()
  )
  servers.push(s)
  await waitForHealth(s, (b) => b['ready'] === true, READY_MS)
  // the demo source logs the backfill's range when it starts (ingest/sources/sim-source.ts)
  const line = s.stdout.split('\n').find((l) => l.includes('all data from this source is SYNTHETIC'))!
  const fields = JSON.parse(line) as { backfill_from: string; live_from: string }
  const res = await fetch(`${s.base}/v1/admin/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ plan: 'enterprise' })
  })
  expect(res.status).toBe(201)
  const key = ((await res.json()) as { key: string }).key
  return { s, fromMs: Date.parse(fields.backfill_from), liveFromMs: Date.parse(fields.live_from), key }
}

/** Every page of a market's candles over [fromMs, toMs), as served. */
async function pages(
  d: { s: Spawned; key: string },
  exchange: string,
  symbol: string,
  tf: string,
  fromMs: number,
  toMs: number
): Promise<string[]> {
  const out: string[] = []
  for (let cursor: number | null = fromMs; cursor !== null;) {
    const res = await fetch(
      `${d.s.base}/v1/historical/ohlcv?symbol=${symbol}&exchange=${exchange}&timeframe=${tf}&start_time=${fromMs}&end_time=${toMs}&limit=1000&cursor=${cursor}`,
      { headers: { 'x-api-key': d.key } }
    )
    const body = await res.text()
    expect(res.status, body.slice(0, 300)).toBe(200)
    out.push(body)
    cursor = (JSON.parse(body) as { next_cursor: number | null }).next_cursor
  }
  return out
}

const candleCount = (bodies: readonly string[]): number =>
  bodies.reduce((n, b) => n + (JSON.parse(b) as { data: unknown[] }).data.length, 0)

describe('the fixed window across data sizes', () => {
  it('serves byte-identical candles for a window whether 2 or 6 days are stored', { timeout: 1_500_000 }, async () => {
    // one after the other: the second backfill ends at a later minute, so its windows are cut elsewhere
    // relative to its start than the first's
    const small = await demo(2)
    const large = await demo(6)
    // the whole hours both backfills hold, before either live feed started
    const fromMs = Math.ceil(Math.max(small.fromMs, large.fromMs) / HOUR_MS) * HOUR_MS
    const toMs = Math.floor(Math.min(small.liveFromMs, large.liveFromMs) / HOUR_MS) * HOUR_MS
    expect(toMs - fromMs).toBeGreaterThanOrEqual(40 * HOUR_MS)
    for (const m of limitMarkets(UNIVERSE, MARKETS).markets) {
      for (const tf of ['1m', '1h']) {
        const a = await pages(small, m.exchange, m.symbol, tf, fromMs, toMs)
        const b = await pages(large, m.exchange, m.symbol, tf, fromMs, toMs)
        expect(candleCount(a), `${m.exchange} ${m.symbol} ${tf}`).toBeGreaterThan(0)
        expect(b, `${m.exchange} ${m.symbol} ${tf}`).toEqual(a)
      }
    }
    // the larger dir holds the days before the window, the smaller does not
    const m = limitMarkets(UNIVERSE, MARKETS).markets[0]!
    const before = [fromMs - 72 * HOUR_MS, fromMs - 24 * HOUR_MS] as const
    expect(candleCount(await pages(large, m.exchange, m.symbol, '1h', ...before))).toBeGreaterThan(0)
    expect(candleCount(await pages(small, m.exchange, m.symbol, '1h', ...before))).toBe(0)
  })
})
