import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { migrate } from '../../engine/schema/migrate.js'
import type { SignalEvent } from '../../engine/signals/signal-event.js'
import { insertBatch, listSignals, restoreRows, type SignalFilter } from '../../engine/signals/signal-store.js'
import { ChdbStore } from '../../engine/store/chdb/chdb-store.js'
import { tmpDir } from '../helpers/tmp-dir.js'

const tmp = tmpDir()
let store: ChdbStore
const T0 = Date.UTC(2026, 0, 10, 12, 0, 0, 123)

const ev = (ts: number, o: Partial<SignalEvent>): SignalEvent => {
  const base = { symbol: 'BTC', direction: 'long' as const, event: 'SIGNAL' as const, ...o }
  return {
    id: `${base.symbol}-${base.direction}-${base.event}-${ts}`,
    ts,
    confidence: 'MEDIUM',
    composite: 0.3,
    action: 'CONFIRM',
    source: 'engine',
    ...base
  }
}

const EVENTS: SignalEvent[] = [
  ev(T0, { event: 'MEDIUM' }),
  ev(T0, { event: 'SIGNAL' }),
  ev(T0 + 1_000, { event: 'HIGH', confidence: 'HIGH', composite: 0.55 }),
  ev(T0 + 2_000, { symbol: 'ETH', direction: 'short', event: 'VETO', confidence: 'VETO', action: 'SKIP' }),
  ev(T0 + 3_000, { symbol: 'BTC', direction: 'short', event: 'SIGNAL', confidence: 'NONE', action: 'SKIP' }),
  // a forwarded alert of one key: listed to that key only, never read back into the engine's state
  ev(T0 + 4_000, { event: 'SIGNAL', source: 'alert:tradingview', key_id: 'key-a', action: 'REDUCE' })
]

beforeAll(async () => {
  store = new ChdbStore({ path: tmp.dir, poolSize: 2 })
  await migrate(store, {})
  await store.insert(insertBatch(EVENTS.slice(0, 3)))
  await store.insert(insertBatch(EVENTS.slice(3)))
  // a retry of the first batch (same bytes, same token) stores nothing more
  await store.insert(insertBatch(EVENTS.slice(0, 3)))
})
afterAll(async () => {
  await store.close()
  tmp.cleanup()
})

const list = (f: Partial<SignalFilter>) => listSignals(store, { keyId: null, limit: 50, ...f })
const ids = (p: Awaited<ReturnType<typeof list>>) => p.events.map((e) => e.id)

describe('signal_events', () => {
  it('lists newest first with every field, ties by id, the other keys’ alerts left out', async () => {
    const page = await list({})
    expect(ids(page)).toEqual([EVENTS[4]!.id, EVENTS[3]!.id, EVENTS[2]!.id, EVENTS[1]!.id, EVENTS[0]!.id])
    expect(page.next).toBeNull()
    const { key_id: _k, ...wire } = EVENTS[3]!
    expect(page.events[1]).toEqual(wire)
    expect(ids(await list({ keyId: 'key-a' }))[0]).toBe(EVENTS[5]!.id)
    expect(ids(await list({ keyId: 'key-b' }))).not.toContain(EVENTS[5]!.id)
    // the retried batch was deduplicated by its token, not only hidden by LIMIT 1 BY id
    expect(await store.query<{ n: number }>('SELECT count() AS n FROM signal_events')).toEqual([{ n: 6 }])
  })

  it('filters by symbol, event, direction and since (inclusive, to the millisecond)', async () => {
    expect(ids(await list({ symbol: 'ETH' }))).toEqual([EVENTS[3]!.id])
    expect(ids(await list({ event: 'SIGNAL' }))).toEqual([EVENTS[4]!.id, EVENTS[1]!.id])
    expect(ids(await list({ direction: 'short', symbol: 'BTC' }))).toEqual([EVENTS[4]!.id])
    expect(ids(await list({ sinceMs: T0 + 1_000 }))).toEqual([EVENTS[4]!.id, EVENTS[3]!.id, EVENTS[2]!.id])
    expect(ids(await list({ sinceMs: T0 + 1_001 }))).toHaveLength(2)
  })

  it('pages by position: each event once, in order, the last page without a next position', async () => {
    const seen: string[] = []
    let after: SignalFilter['after']
    for (let n = 0; n < 10; n++) {
      const page = await list({ limit: 2, ...(after ? { after } : {}) })
      seen.push(...ids(page))
      if (!page.next) break
      after = page.next
    }
    expect(seen).toEqual(ids(await list({})))
  })

  it('reads back the latest engine event per base, direction and kind for the restart', async () => {
    const rows = await restoreRows(store)
    const byKey = Object.fromEntries(rows.map((r) => [`${r.symbol} ${r.direction} ${r.event}`, r]))
    expect(Object.keys(byKey).sort()).toEqual([
      'BTC long HIGH',
      'BTC long MEDIUM',
      'BTC long SIGNAL',
      'BTC short SIGNAL',
      'ETH short VETO'
    ])
    expect(byKey['BTC long HIGH']).toEqual({
      symbol: 'BTC',
      direction: 'long',
      event: 'HIGH',
      last_ms: T0 + 1_000,
      confidence: 'HIGH',
      action: 'CONFIRM'
    })
    expect(byKey['BTC long SIGNAL']!.last_ms).toBe(T0) // the alert's SIGNAL is not the engine's
  })
})
