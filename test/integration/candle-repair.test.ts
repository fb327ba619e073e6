/**
 * The candle repair (engine/history/candle-repair.ts) on a real chDB store: trades that reached the raw
 * table and some views but not others (as a full disk leaves them: the views' parts are written separately)
 * are brought into every level, each level equal to what its view computes from raw trades; a second run
 * changes nothing, and buckets outside the range are not touched.
 */
import { describe, it, expect } from 'vitest'
import { CANDLE_LEVELS, repairCandles } from '../../engine/history/candle-repair.js'
import { columnsOf } from '../../engine/records/fields.js'
import { encodeTsv } from '../../engine/records/tsv.js'
import type { TradeRecord } from '../../engine/records/types.js'
import { useMigratedStore } from '../helpers/migrated-store.js'

const env = useMigratedStore()

const SYMBOLS = ['RPA', 'RPB', 'RPC']
/** Sunday 2026-11-29 22:00 UTC: the range crosses a day and a week (Monday) boundary */
const FROM = Date.UTC(2026, 10, 29, 22)
const STEP_MS = 7_000

function trades(fromMs: number, toMs: number): TradeRecord[] {
  const out: TradeRecord[] = []
  for (let ts = fromMs, i = 0; ts < toMs; ts += STEP_MS, i++) {
    for (const [k, symbol] of SYMBOLS.entries()) {
      out.push({
        kind: 'trade',
        ts: ts + k,
        exchange: 'okx',
        market: 'perp',
        symbol,
        base: symbol,
        quote: 'USDT',
        side: i % 3 === 0 ? 'sell' : 'buy',
        price: 100 + ((i * 7 + k * 13) % 50),
        qty: 1 + (i % 5),
        trade_id: `${symbol}-${ts}`
      })
    }
  }
  return out
}

async function insert(rows: readonly TradeRecord[], token: string): Promise<void> {
  await env.store.insert({
    table: 'trades',
    columns: columnsOf('trade'),
    format: 'TSV',
    data: Buffer.from(encodeTsv('trade', rows)),
    dedupToken: token
  })
}

/** Per level and symbol: trades, volume, open, close, high, low as the level answers a read over all of it. */
async function levels(): Promise<Record<string, Record<string, unknown>>> {
  const out: Record<string, Record<string, unknown>> = {}
  const raw = await env.store.query<{
    symbol: string
    n: number
    v: number
    o: number
    c: number
    h: number
    l: number
  }>(
    `SELECT symbol, count() AS n, round(sum(qty), 6) AS v, argMin(price, ts) AS o, argMax(price, ts) AS c,
       max(price) AS h, min(price) AS l FROM trades WHERE symbol IN ('RPA', 'RPB', 'RPC') GROUP BY symbol ORDER BY symbol`
  )
  out['raw'] = Object.fromEntries(raw.map((r) => [r.symbol, { ...r, symbol: undefined }]))
  for (const level of CANDLE_LEVELS) {
    const rows = await env.store.query<{ symbol: string }>(
      `SELECT symbol, sum(trades) AS n, round(sum(volume_base), 6) AS v, argMinMerge(open) AS o, argMaxMerge(close) AS c,
         max(high) AS h, min(low) AS l FROM ${level.table} WHERE symbol IN ('RPA', 'RPB', 'RPC')
       GROUP BY symbol ORDER BY symbol`
    )
    out[level.table] = Object.fromEntries(rows.map((r) => [r.symbol, { ...r, symbol: undefined }]))
  }
  return out
}

describe('candle repair', () => {
  it('completes every level from raw trades where views missed a batch, and a second run changes nothing', async () => {
    const mid = FROM + 2 * 3_600_000 + 30 * 60_000 // 00:30 Monday
    const to = FROM + 4 * 3_600_000
    await insert(trades(FROM, mid), 'repair-a')
    // batch B reaches raw, 1m and 15m but not 5m, nor 1h and what cascades from it (4h, 1d, 1w, 1mo)
    await env.store.command('DETACH TABLE candles_5m_mv')
    await env.store.command('DETACH TABLE candles_1h_mv')
    try {
      await insert(trades(mid, to), 'repair-b')
    } finally {
      await env.store.command('ATTACH TABLE candles_5m_mv')
      await env.store.command('ATTACH TABLE candles_1h_mv')
    }
    const before = await levels()
    const rawTrades = (before['raw']!['RPA'] as { n: number }).n
    expect(rawTrades).toBe(trades(FROM, to).length / SYMBOLS.length)
    expect((before['candles_1m']!['RPA'] as { n: number }).n).toBe(rawTrades)
    expect((before['candles_5m']!['RPA'] as { n: number }).n).toBeLessThan(rawTrades)
    expect((before['candles_1w']!['RPA'] as { n: number }).n).toBeLessThan(rawTrades)

    // the range of batch B only: the buckets it touches are completed as wholes
    const repaired = await repairCandles(env.store, { fromMs: mid, toMs: to - 1 })
    const after = await levels()
    for (const level of CANDLE_LEVELS) expect(after[level.table], level.table).toEqual(after['raw'])
    const byTable = Object.fromEntries(repaired.map((r) => [r.table, r]))
    expect(byTable['candles_1m']).toMatchObject({ buckets: 0, surplus: 0 })
    expect(byTable['candles_15m']).toMatchObject({ buckets: 0, surplus: 0 })
    expect(byTable['candles_5m']!.buckets).toBeGreaterThan(0)
    expect(byTable['candles_1h']!.buckets).toBeGreaterThan(0)
    // 4h, 1d, 1w and 1mo were completed through their views by the repair of 1h (and 1d): nothing left there
    for (const t of ['candles_4h', 'candles_1d', 'candles_1w', 'candles_1mo']) {
      expect(byTable[t], t).toMatchObject({ buckets: 0, surplus: 0 })
    }

    // a second run finds nothing to do and changes nothing
    const again = await repairCandles(env.store, { fromMs: FROM, toMs: to })
    expect(again.every((r) => r.buckets === 0 && r.surplus === 0)).toBe(true)
    expect(await levels()).toEqual(after)
  })
})
