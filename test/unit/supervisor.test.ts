import { describe, expect, it, vi } from 'vitest'
import { Supervisor } from '../../engine/runtime/supervisor.js'
import { silentLogger } from '../../engine/log.js'
import { LiveState } from '../../engine/live/live-state.js'
import type { Store } from '../../engine/store/store.js'
import { StreamHub } from '../../engine/stream/stream-hub.js'
import { parseChannel } from '../../engine/stream/channels.js'
import type { NormalizedRecord } from '../../engine/records/types.js'

const fastBackoff = () => 5

describe('Supervisor', () => {
  it('restarts a loop that throws, with its errors counted, until it ends by itself', async () => {
    const sup = new Supervisor(silentLogger(), fastBackoff)
    let runs = 0
    sup.run('flaky', async () => {
      runs++
      if (runs < 3) throw new Error(`boom ${runs}`)
    })
    await vi.waitFor(() => expect(sup.status()[0]!.state).toBe('done'), { timeout: 5000, interval: 5 })
    expect(sup.status()[0]).toMatchObject({ name: 'flaky', errors: 2, restarts: 2, last_error: 'boom 2' })
    await sup.stop()
  })

  it('keeps a periodic task running when a tick throws, and counts it', async () => {
    const sup = new Supervisor(silentLogger(), fastBackoff)
    let ticks = 0
    sup.every('ticker', 2, () => {
      ticks++
      if (ticks % 2 === 0) throw new Error('even tick')
    })
    await vi.waitFor(() => expect(ticks).toBeGreaterThanOrEqual(6), { timeout: 5000, interval: 5 })
    const s = sup.status()[0]!
    expect(s.state).toBe('running')
    expect(s.errors).toBeGreaterThanOrEqual(3)
    expect(s.restarts).toBe(0)
    await sup.stop()
    expect(sup.status()[0]!.state).toBe('stopped')
  })

  it('stops loops at once: a loop sleeping in backoff ends when stopped', async () => {
    const sup = new Supervisor(silentLogger(), () => 60_000)
    sup.run('down', async () => {
      throw new Error('always')
    })
    await vi.waitFor(() => expect(sup.status()[0]!.state).toBe('backoff'), { timeout: 5000, interval: 5 })
    await sup.stop()
    expect(sup.status()[0]!.state).toBe('stopped')
  })
})

describe('stream hub under a failing store', () => {
  it('counts a failing confirm refresh, completes the pass, and recovers when the store does', async () => {
    let failing = true
    const store = {
      query: async () => {
        if (failing) throw new Error('store down')
        return []
      }
    } as unknown as Store
    const live = new LiveState(store)
    const rec: NormalizedRecord = {
      kind: 'funding',
      ts: Date.now(),
      exchange: 'binance',
      symbol: 'BTCUSDT',
      base: 'BTC',
      funding_rate: 0.0001,
      interval_hours: 8
    }
    live.apply([rec])
    const hub = new StreamHub(live)
    const published: unknown[] = []
    hub.attach({ publish: (_t, frame) => void published.push(frame), subscribers: () => 1 })
    hub.acquire(parseChannel('confirm:BTC'))
    const sup = new Supervisor(silentLogger(), fastBackoff)
    sup.every('stream-hub', 5, () => hub.tick())
    await vi.waitFor(() => expect(sup.status()[0]!.errors).toBeGreaterThanOrEqual(2), { timeout: 5000, interval: 5 })
    expect(hub.stats().confirm_errors).toBeGreaterThanOrEqual(2)
    expect(sup.status()[0]!.state).toBe('running')
    await sup.stop()
    failing = false
    const errorsThen = hub.stats().confirm_errors
    await hub.tick() // the store is back: the pass succeeds and the channel has its verdict
    expect(hub.stats().confirm_errors).toBe(errorsThen)
    const snap = await hub.snapshot(hub.acquire(parseChannel('confirm:BTC')))
    expect(snap.data).toMatchObject({ symbol: 'BTC' })
  })
})

describe('a failing source under the supervisor', () => {
  it('is restarted with backoff, counted, and its data still arrives', async () => {
    const inserted: number[] = []
    const store = { insert: async (b: { data: Buffer }) => void inserted.push(b.data.length) } as unknown as Store
    const { IngestPipeline } = await import('../../ingest/pipeline.js')
    const { runSource } = await import('../../ingest/run-source.js')
    const { makeChunk } = await import('../../ingest/encoded-chunk.js')
    const pipeline = new IngestPipeline(store, { batchRows: 1, flushMs: 10, queueRows: 100 }, silentLogger())
    let starts = 0
    const source = {
      name: 'flaky',
      synthetic: false,
      status: () => ({ name: 'flaky', synthetic: false, connected: true, last_event_ts: null, rows: 0 }),
      async *items() {
        starts++
        yield makeChunk('trades', ['x'], 1, `${starts}\n`, true)
        if (starts === 1) throw new Error('venue connection lost')
      }
    }
    const sup = new Supervisor(silentLogger(), fastBackoff)
    sup.run('source:flaky', (signal) => runSource(source, pipeline, signal, silentLogger()))
    await vi.waitFor(() => expect(sup.status()[0]!.state).toBe('done'), { timeout: 5000, interval: 5 })
    expect(sup.status()[0]).toMatchObject({ errors: 1, restarts: 1, last_error: 'venue connection lost' })
    await pipeline.barrier()
    expect(pipeline.totals().written).toBe(2)
    await pipeline.close(Date.now() + 1000)
    await sup.stop()
  })

  it('gives every loop its own signal: 30 loops waiting on theirs print no MaxListenersExceededWarning', async () => {
    const warnings: Error[] = []
    const onWarning = (w: Error): void => {
      warnings.push(w)
    }
    process.on('warning', onWarning)
    try {
      const sup = new Supervisor(silentLogger(), fastBackoff)
      const signals = new Set<AbortSignal>()
      let waiting = 0
      for (let i = 0; i < 30; i++) {
        sup.run(`loop-${i}`, (signal) => {
          signals.add(signal)
          waiting++
          // two listeners per loop, as a source's feed and its sleep add
          return new Promise<void>((resolve) => {
            signal.addEventListener('abort', () => undefined)
            signal.addEventListener('abort', () => resolve())
          })
        })
      }
      await vi.waitFor(() => expect(waiting).toBe(30), { timeout: 5000, interval: 5 })
      expect(signals.size).toBe(30)
      await sup.stop() // every loop's signal aborted: each ended
      expect(sup.status().every((l) => l.state === 'stopped')).toBe(true)
      sup.run('late', (signal) => {
        expect(signal.aborted).toBe(true) // a loop started after the stop ends at once
        return Promise.resolve()
      })
      // process warnings are emitted on the next tick
      await new Promise((r) => setImmediate(r))
      expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([])
    } finally {
      process.off('warning', onWarning)
    }
  })
})
