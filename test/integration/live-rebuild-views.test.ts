/**
 * The live state rebuilt from the store's aggregates (hourly candle and open-interest views, newest readings)
 * answers exactly what the same records give when applied one by one as they arrive, on a real chDB store:
 * every screener row and every base's confirmation inputs, with records on the edges of the 24-hour windows
 * (the first and last millisecond of the hours that start and end them, and of the minutes inside them).
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { ChdbStore } from '../../engine/store/chdb/chdb-store.js'
import { migrate } from '../../engine/schema/migrate.js'
import { silentLogger } from '../../engine/log.js'
import { IngestPipeline } from '../../ingest/pipeline.js'
import { encodeRecords } from '../../ingest/encode-records.js'
import { LiveState } from '../../engine/live/live-state.js'
import type { NormalizedRecord } from '../../engine/records/types.js'
import { tmpDir } from '../helpers/tmp-dir.js'

const HOUR = 3_600_000
const MINUTE = 60_000

const tmp = tmpDir()
let chdb: ChdbStore

beforeAll(async () => {
  chdb = new ChdbStore({ path: tmp.dir, poolSize: 2 })
  await migrate(chdb, {})
})
afterAll(async () => {
  await chdb.close()
  tmp.cleanup()
})

const MARKETS = [
  { exchange: 'binance', symbol: 'EQAUSDT', base: 'EQA' },
  { exchange: 'bybit', symbol: 'EQAUSDT', base: 'EQA' },
  { exchange: 'okx', symbol: 'EQB-USDT-SWAP', base: 'EQB' },
  // trades stop 5 hours ago (its open interest goes on): its newest trade lies in an older hour and minute
  { exchange: 'bybit', symbol: 'EQBUSDT', base: 'EQB', quietHours: 5 }
] as const

/**
 * Records of every kind the screener takes, in time order, within the 48 hours the rebuild reads: in each
 * hour from 47 hours ago to now, trades on the first and last millisecond of the hour and of a minute inside
 * it (and 1 ms before now, inside the current minute), open interest readings (several in the hour 24 hours ago: the last one counts), funding and long/short.
 */
function records(nowMs: number): NormalizedRecord[] {
  const nowHour = Math.floor(nowMs / HOUR)
  const out: NormalizedRecord[] = []
  let id = 0
  MARKETS.forEach((m, k) => {
    for (let h = nowHour - 47; h <= nowHour; h++) {
      const start = h * HOUR
      const stamps = [
        start,
        start + 17 * MINUTE - 1,
        start + 17 * MINUTE,
        start + HOUR - 1,
        ...(h === nowHour ? [nowMs - 1] : [])
      ]
      for (const [j, ts] of stamps.entries()) {
        if (ts > nowMs || h > nowHour - ('quietHours' in m ? m.quietHours : 0)) continue
        const price = 100 + k * 10 + (h % 13) + j / 4
        out.push({
          kind: 'trade',
          ts,
          exchange: m.exchange,
          market: 'perp',
          symbol: m.symbol,
          base: m.base,
          quote: 'USDT',
          side: j % 2 ? 'sell' : 'buy',
          price,
          qty: 0.5 + ((h + j) % 5),
          trade_id: `eq${id++}`
        })
      }
      for (const ts of [start + 5 * MINUTE, start + 35 * MINUTE, start + HOUR - 1]) {
        if (ts > nowMs) continue
        out.push({
          kind: 'open_interest',
          ts,
          exchange: m.exchange,
          symbol: m.symbol,
          base: m.base,
          oi_base: 1000 + (h % 17),
          oi_usd: 1e6 + (h % 17) * 1e4 + (ts % HOUR) / 1000 + k
        })
      }
      if (h % 8 === 0 && start <= nowMs) {
        out.push({
          kind: 'funding',
          ts: start,
          exchange: m.exchange,
          symbol: m.symbol,
          base: m.base,
          funding_rate: 0.0001 * ((h % 5) - 2),
          interval_hours: 8
        })
      }
      if (start + 30 * MINUTE <= nowMs) {
        out.push({
          kind: 'long_short',
          ts: start + 30 * MINUTE,
          exchange: m.exchange,
          symbol: m.symbol,
          base: m.base,
          long_short_ratio: 1 + (h % 7) / 10
        })
      }
    }
  })
  return out.sort((a, b) => a.ts - b.ts)
}

describe('live state rebuilt from the views', () => {
  it('answers what the records applied one by one answer, on the window edges', async () => {
    // a moment inside an hour: the current hour is partial, and its last stamps lie in the future
    const nowMs = Date.now()
    const all = records(nowMs)
    const applied = new LiveState(chdb)
    for (const r of all) applied.apply([r])

    const pipeline = new IngestPipeline(chdb, { batchRows: 50_000, flushMs: 1000, queueRows: 100_000 }, silentLogger())
    for (const c of encodeRecords(all, true)) await pipeline.write(c)
    await pipeline.barrier()
    await pipeline.close(Date.now() + 5000)
    const rebuilt = new LiveState(chdb)
    await rebuilt.rebuild()

    const rows = (l: LiveState) =>
      l.screener.rows(nowMs).sort((a, b) => `${a.exchange}|${a.symbol}`.localeCompare(`${b.exchange}|${b.symbol}`))
    expect(rows(rebuilt)).toEqual(rows(applied))
    for (const base of ['EQA', 'EQB']) {
      expect(rebuilt.screener.baseStats(base, nowMs)).toEqual(applied.screener.baseStats(base, nowMs))
    }
    // the figures are the records' own: the last 24 hours are the current hour and the 23 before it
    const nowHour = Math.floor(nowMs / HOUR)
    const quote = (m: (typeof MARKETS)[number], from: number, to: number): number =>
      all
        .filter((r) => r.kind === 'trade' && r.symbol === m.symbol && r.exchange === m.exchange)
        .filter((r) => r.ts >= from * HOUR && r.ts < (to + 1) * HOUR)
        .reduce((s, r) => s + (r.kind === 'trade' ? r.price * r.qty : 0), 0)
    const row = rows(rebuilt).find((r) => r.exchange === 'binance')!
    expect(row.volume_24h_usd).toBeCloseTo(quote(MARKETS[0], nowHour - 23, nowHour), 6)
    expect(row.volume_change_24h).toBeCloseTo(
      (quote(MARKETS[0], nowHour - 23, nowHour) / quote(MARKETS[0], nowHour - 47, nowHour - 24) - 1) * 100,
      6
    )
    // both take the next records alike: a late trade of the newest hour (older than its newest trade) does
    // not replace the last price, a new one does (the newest stored trade is 1 ms before now)
    const nowHourStart = Math.floor(nowMs / HOUR) * HOUR
    const next = (ts: number, price: number, id: string): NormalizedRecord[] => [
      {
        kind: 'trade',
        ts,
        exchange: 'binance',
        market: 'perp',
        symbol: 'EQAUSDT',
        base: 'EQA',
        quote: 'USDT',
        side: 'buy',
        price,
        qty: 1,
        trade_id: id
      }
    ]
    for (const [ts, price, id] of [
      [Math.max(nowHourStart, nowMs - 2), 1, 'late'],
      [nowMs + 1, 2, 'new']
    ] as const) {
      for (const l of [applied, rebuilt]) l.apply(next(ts, price, id))
      expect(rebuilt.screener.baseStats('EQA', nowMs)).toEqual(applied.screener.baseStats('EQA', nowMs))
      expect(rows(rebuilt)).toEqual(rows(applied))
    }
  })
})
