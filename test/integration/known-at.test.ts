import { describe, expect, it } from 'vitest'
import { completeHours, lateHours, oldestKnown } from '../../engine/asof/known-at.js'
import { useMigratedStore } from '../helpers/migrated-store.js'

const s = useMigratedStore()
const HOUR = 3_600_000

/** Inserts trades of BTCUSDT at `tsMs` event times, received (stored) at `ingestMs`. */
async function trades(tsMs: readonly number[], ingestMs: number, token: string): Promise<void> {
  const rows = tsMs.map((ts, i) =>
    JSON.stringify({
      ts: new Date(ts).toISOString().replace('T', ' ').replace('Z', ''),
      exchange: 'binance',
      market: 'perp',
      symbol: 'BTCUSDT',
      base: 'BTC',
      quote: 'USDT',
      side: 'buy',
      price: 100,
      qty: 1,
      trade_id: `${token}-${i}`,
      ingest_ts: new Date(ingestMs).toISOString().replace('T', ' ').replace('Z', '')
    })
  )
  await s.store.insert({
    table: 'trades',
    columns: ['ts', 'exchange', 'market', 'symbol', 'base', 'quote', 'side', 'price', 'qty', 'trade_id', 'ingest_ts'],
    format: 'JSONEachRow',
    data: Buffer.from(rows.join('\n') + '\n'),
    dedupToken: token
  })
}

describe('known-at ledger', () => {
  const t0 = Date.UTC(2026, 9, 1, 0, 0, 0)

  it('marks an hour late once a row of it arrives after the moment asked, and only that hour', async () => {
    // live: each hour's trades arrive within a second of their time
    for (let h = 0; h < 4; h++) await trades([t0 + h * HOUR + 10_000], t0 + h * HOUR + 11_000, `live-${h}`)
    // a later import of hour 1 (event times of hour 1, received 10 hours later)
    await trades([t0 + HOUR + 20_000], t0 + 10 * HOUR, 'import')

    expect(await lateHours(s.store, 'trades', t0, t0 + 4 * HOUR, t0 + 5 * HOUR)).toEqual([t0 + HOUR])
    expect(await lateHours(s.store, 'trades', t0, t0 + 4 * HOUR, t0 + 11 * HOUR)).toEqual([])
    // known by the middle of hour 2: hour 2's row and hour 3's (received later) are late too
    expect(await lateHours(s.store, 'trades', t0, t0 + 4 * HOUR, t0 + 2 * HOUR + 10_500)).toEqual([
      t0 + HOUR,
      t0 + 2 * HOUR,
      t0 + 3 * HOUR
    ])
  })

  it('takes from aggregates only whole hours ended by as_of and known by known_by', async () => {
    const asOf = t0 + 3 * HOUR + 30 * 60_000
    const r = await completeHours(s.store, 'trades', t0, asOf + 1, asOf, asOf)
    expect(r.complete).toEqual([t0, t0 + 2 * HOUR])
    expect(r.raw).toEqual([t0 + HOUR, t0 + 3 * HOUR])
    const now = await completeHours(s.store, 'trades', t0, asOf + 1, asOf, t0 + 11 * HOUR)
    expect(now.complete).toEqual([t0, t0 + HOUR, t0 + 2 * HOUR])
  })

  it('reports the oldest hour known by a moment', async () => {
    expect(await oldestKnown(s.store, 'trades', t0)).toBeNull()
    expect(await oldestKnown(s.store, 'trades', t0 + 11_000)).toBe(t0)
    expect(await oldestKnown(s.store, 'funding', t0 + 11 * HOUR)).toBeNull()
  })
})
