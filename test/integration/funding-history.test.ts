/**
 * The live funding histories of the confirmation model on a real chDB store. Each reading is applied to the
 * history first and written to the store after the answer (as the live state applies records on receipt,
 * before the store writes them): after every kind of reading (newer in the newest hour, older in it, a new
 * hour, a late one for an earlier hour, a tie in time, several hours not yet written) the answer equals a
 * fresh load of the store once it holds the same readings, and the readings that can be folded in cost no
 * store query.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { loadFundingHistory } from '../../engine/live/books-load.js'
import { FundingHistory } from '../../engine/live/funding-history.js'
import { foldReading } from '../../engine/live/funding-tail.js'
import { liveBounds } from '../../engine/live/load-bounds.js'
import type { FundingRecord } from '../../engine/records/types.js'
import type { Store } from '../../engine/store/store.js'
import { encodeRecords } from '../../ingest/encode-records.js'
import { useMigratedStore } from '../helpers/migrated-store.js'

const s = useMigratedStore()
const HOUR = 3_600_000
/** ten days ago at an hour start: the raw readings' TTL (90 days) keeps them */
const t0 = Math.floor(Date.now() / HOUR) * HOUR - 240 * HOUR
/** the clock: 10 min into hour 50; the stored readings end in hour 49 */
const now = t0 + 50 * HOUR + 10 * 60_000
const EX = 'binance'

const reading = (symbol: string, ts: number, rate: number): FundingRecord => ({
  kind: 'funding',
  ts,
  exchange: EX,
  symbol,
  base: symbol.replace('USDT', ''),
  funding_rate: rate,
  interval_hours: 8
})

/** Writes readings to the store as the ingest pipeline encodes them (received when written). */
async function write(...rs: FundingRecord[]): Promise<void> {
  for (const c of encodeRecords(rs, false)) {
    await s.store.insert({
      table: c.table,
      columns: c.columns,
      format: 'TSV',
      data: Buffer.from(c.data),
      dedupToken: `funding-history-${c.hash}`
    })
  }
}

/** The store, counting the statements run through it. */
function counted(store: Store): { store: Store; queries: () => number } {
  let n = 0
  const query = ((...args: Parameters<Store['query']>) => {
    n++
    return store.query(...args)
  }) as Store['query']
  return { store: Object.assign(Object.create(store) as Store, { query }), queries: () => n }
}

const fresh = (symbol: string, at = now) => loadFundingHistory(s.store, EX, symbol, liveBounds(at))

beforeAll(async () => {
  // hours 0-49: a reading every 10 min, rates distinct per reading
  const rs: FundingRecord[] = []
  for (let ts = t0; ts < t0 + 50 * HOUR; ts += 10 * 60_000) {
    const i = (ts - t0) / 60_000
    rs.push(reading('BTCUSDT', ts, i / 1e6), reading('ETHUSDT', ts, -i / 1e6))
  }
  await write(...rs)
}, 60_000)

describe('live funding history', () => {
  it('keeps the history equal to a fresh load through every kind of reading, loading only when it must', async () => {
    const c = counted(s.store)
    const h = new FundingHistory(c.store)
    const first = await h.get(EX, 'BTCUSDT', now)
    expect(first).toEqual(await fresh('BTCUSDT'))
    expect(first).toHaveLength(50)
    const loads = c.queries()
    expect(loads).toBeGreaterThan(0)

    /** applies `r`, answers, then writes it: the answer must be the store's once it has the reading */
    const step = async (r: FundingRecord, queried: boolean) => {
      h.applied([r])
      const before = c.queries()
      const got = await h.get(EX, 'BTCUSDT', now)
      expect(c.queries() > before).toBe(queried)
      await write(r)
      expect(got).toEqual(await fresh('BTCUSDT'))
      return got
    }
    // the first reading of hour 50: appended
    expect(await step(reading('BTCUSDT', now - 60_000, 0.5), false)).toHaveLength(51)
    // a newer one of hour 50: replaces the hour's last rate
    expect((await step(reading('BTCUSDT', now, 0.7), false)).at(-1)).toBe(0.7)
    // an older one of hour 50: the hour's last rate stays
    expect((await step(reading('BTCUSDT', now - 120_000, 0.9), false)).at(-1)).toBe(0.7)
    // the same time as the newest with the same rate (a repeat): nothing to do
    await step(reading('BTCUSDT', now, 0.7), false)
    // a late reading of hour 40, the newest of that hour: reloaded
    await step(reading('BTCUSDT', t0 + 40 * HOUR + 59 * 60_000, 0.25), true)
    // ... and kept: the next answer reads nothing
    const kept = c.queries()
    await h.get(EX, 'BTCUSDT', now)
    expect(c.queries()).toBe(kept)
    // the next clock hour moves the window: reloaded
    const later = now + HOUR
    const before = c.queries()
    expect(await h.get(EX, 'BTCUSDT', later)).toEqual(await fresh('BTCUSDT', later))
    expect(c.queries()).toBeGreaterThan(before)
    // the same time as the newest with another rate: loaded again (which of the two the store keeps is its own)
    const tie = reading('BTCUSDT', now, 0.8)
    h.applied([tie])
    await write(tie)
    const atTie = c.queries()
    expect([0.7, 0.8]).toContain((await h.get(EX, 'BTCUSDT', later)).at(-1))
    expect(c.queries()).toBeGreaterThan(atTie)
    // a newer reading of that hour settles it: kept again
    const settle = reading('BTCUSDT', now + 30_000, 0.6)
    h.applied([settle])
    await write(settle)
    expect(await h.get(EX, 'BTCUSDT', later)).toEqual(await fresh('BTCUSDT', later))
    const q = c.queries()
    await h.get(EX, 'BTCUSDT', later)
    expect(c.queries()).toBe(q)
  })

  it('answers with a reading applied before the store wrote it, and stays equal once it is written', async () => {
    const h = new FundingHistory(s.store)
    const r = reading('ETHUSDT', now + 60_000, 0.125)
    h.applied([r])
    // not in the store yet: the load merges it
    const got = await h.get(EX, 'ETHUSDT', now)
    expect(got.at(-1)).toBe(0.125)
    expect(got).toHaveLength((await fresh('ETHUSDT')).length + 1)
    await write(r)
    expect(await h.get(EX, 'ETHUSDT', now)).toEqual(await fresh('ETHUSDT'))
    // three hours of readings not yet written (a store behind its feed), and a late one of an earlier hour
    const clock = now + 2 * HOUR
    const behind = [
      reading('ETHUSDT', now + 30 * 60_000, 0.5),
      reading('ETHUSDT', now + HOUR + 1_000, 0.625),
      reading('ETHUSDT', now + 2 * HOUR - 1_000, 0.75),
      reading('ETHUSDT', t0 + 45 * HOUR + 59 * 60_000, -0.5)
    ]
    for (const b of behind) h.applied([b])
    const behindGot = await h.get(EX, 'ETHUSDT', clock)
    await write(...behind)
    expect(behindGot).toEqual(await fresh('ETHUSDT', clock))
    expect(behindGot.slice(-3)).toEqual([0.5, 0.625, 0.75])
    // a rebuild drops the histories, not the readings the store may not have yet
    const pending = reading('ETHUSDT', clock, 0.875)
    h.applied([pending])
    h.clear()
    const afterRebuild = await h.get(EX, 'ETHUSDT', clock)
    await write(pending)
    expect(afterRebuild).toEqual(await fresh('ETHUSDT', clock))
  })

  it('leaves other markets cached when one market gets a reading', async () => {
    const c = counted(s.store)
    const h = new FundingHistory(c.store)
    await h.get(EX, 'BTCUSDT', now)
    await h.get(EX, 'ETHUSDT', now)
    const before = c.queries()
    h.applied([reading('BTCUSDT', t0 + 3 * HOUR, 1)])
    await h.get(EX, 'ETHUSDT', now)
    expect(c.queries()).toBe(before)
    await h.get(EX, 'BTCUSDT', now)
    expect(c.queries()).toBeGreaterThan(before)
  })
})

describe('foldReading', () => {
  const tail = { rates: [1, 2], fromMs: 0, lastHourMs: 2 * HOUR, lastTs: 2 * HOUR + 5 }
  it('asks for a load for a late reading, a tie with another rate and an unknown newest time', () => {
    expect(foldReading(tail, { hourMs: HOUR, ts: HOUR + 1, rate: 9 })).toBeNull()
    expect(foldReading(tail, { hourMs: 2 * HOUR, ts: 2 * HOUR + 5, rate: 9 })).toBeNull()
    expect(foldReading(tail, { hourMs: 2 * HOUR, ts: 2 * HOUR + 5, rate: 2 })).toBe(tail)
    expect(foldReading({ ...tail, lastTs: NaN }, { hourMs: 2 * HOUR, ts: 2 * HOUR + 9, rate: 9 })).toBeNull()
  })
  it('ignores a reading before the window', () => {
    const late = { ...tail, fromMs: 2 * HOUR }
    expect(foldReading(late, { hourMs: HOUR, ts: HOUR, rate: 9 })).toBe(late)
  })
})
