import { describe, expect, it } from 'vitest'
import type { SignalEvent } from '../../engine/signals/signal-event.js'
import { decodeCursor, encodeCursor, insertBatch } from '../../engine/signals/signal-store.js'
import { SignalWriter } from '../../engine/signals/signal-writer.js'
import type { InsertBatch, Store } from '../../engine/store/store.js'

const T0 = Date.UTC(2025, 0, 5, 8, 0, 0, 7)

const ev = (n: number, extra: Partial<SignalEvent> = {}): SignalEvent => ({
  id: `BTC-long-HIGH-${T0 + n}`,
  event: 'HIGH',
  ts: T0 + n,
  symbol: 'BTC',
  direction: 'long',
  confidence: 'HIGH',
  composite: 0.51234567890123,
  action: 'CONFIRM',
  source: 'engine',
  ...extra
})

/** Records inserts; the next `fail` inserts throw (the store is down). */
class InsertLog {
  inserts: InsertBatch[] = []
  fail = 0
  readonly store = {
    insert: async (b: InsertBatch) => {
      if (this.fail > 0) {
        this.fail--
        throw new Error('store down')
      }
      this.inserts.push(b)
    }
  } as unknown as Store
}

describe('signal_events insert payload', () => {
  it('writes every field as TSV, times as seconds.millis, the key id empty when absent', () => {
    const b = insertBatch([ev(0), ev(1, { source: 'alert:tradingview', key_id: 'k1\tx' })])
    expect(b.table).toBe('signal_events')
    expect(b.columns).toEqual([
      'id',
      'event',
      'ts',
      'symbol',
      'direction',
      'confidence',
      'composite',
      'action',
      'source',
      'key_id'
    ])
    expect(b.data.toString()).toBe(
      `BTC-long-HIGH-${T0}\tHIGH\t1736064000.007\tBTC\tlong\tHIGH\t0.51234567890123\tCONFIRM\tengine\t\n` +
        `BTC-long-HIGH-${T0 + 1}\tHIGH\t1736064000.008\tBTC\tlong\tHIGH\t0.51234567890123\tCONFIRM\talert:tradingview\tk1\\tx\n`
    )
    expect(insertBatch([ev(0)]).dedupToken).toBe(`signal:BTC-long-HIGH-${T0}`)
    expect(b.dedupToken).toBe(insertBatch([ev(0), ev(1)]).dedupToken)
    expect(b.dedupToken).not.toBe(insertBatch([ev(1), ev(2)]).dedupToken)
  })

  it('cursors round-trip and refuse what this service did not make', () => {
    const c = encodeCursor({ ts: T0, id: 'BTC-long-HIGH-1' })
    expect(decodeCursor(c)).toEqual({ ts: T0, id: 'BTC-long-HIGH-1' })
    for (const bad of ['', 'not base64!', Buffer.from('x:y').toString('base64url'), 'A'.repeat(401)]) {
      expect(decodeCursor(bad), bad).toBeNull()
    }
  })
})

describe('SignalWriter', () => {
  it('stores offered events; a failed insert throws, keeps its batch and retries it with the same token', async () => {
    const log = new InsertLog()
    const w = new SignalWriter(log.store)
    w.offer(ev(0))
    w.offer(ev(1))
    log.fail = 1
    await expect(w.flush()).rejects.toThrow('store down')
    expect(w.stats()).toMatchObject({ queued: 2, stored: 0, write_errors: 1 })
    w.offer(ev(2)) // arrives while the batch waits: goes in the next batch
    await w.flush()
    expect(log.inserts.map((b) => b.dedupToken)).toEqual([
      insertBatch([ev(0), ev(1)]).dedupToken,
      insertBatch([ev(2)]).dedupToken
    ])
    expect(w.stats()).toMatchObject({ queued: 0, stored: 3, dropped: 0 })
  })

  it('is bounded: past the queue limit the newest event is dropped and counted', () => {
    const w = new SignalWriter(new InsertLog().store, 3)
    for (let i = 0; i < 5; i++) w.offer(ev(i))
    expect(w.stats()).toMatchObject({ queued: 3, dropped: 2 })
  })

  it('runs until aborted: wakes on an offer, and stores what is left when it stops', async () => {
    const log = new InsertLog()
    const w = new SignalWriter(log.store)
    const abort = new AbortController()
    const running = w.run(abort.signal)
    w.offer(ev(0))
    await new Promise((r) => setTimeout(r, 20))
    expect(log.inserts).toHaveLength(1)
    abort.abort()
    w.offer(ev(1))
    await running
    expect(log.inserts).toHaveLength(2)
    expect(w.stats().stored).toBe(2)
  })
})
