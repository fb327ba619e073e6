import { describe, expect, it } from 'vitest'
import { EMPTY_CONFIRM_INPUTS, type ConfirmInputs } from '../../engine/confirm/confirm.js'
import type { NormalizedRecord } from '../../engine/records/types.js'
import { SignalEngine, type SignalInputs } from '../../engine/signals/signal-engine.js'
import { SignalBus, type SignalEvent } from '../../engine/signals/signal-event.js'
import { until } from '../helpers/until.js'

const T0 = Date.UTC(2025, 0, 5, 8)

/**
 * Whale inputs only: the long composite is 0.3 × W, W = 0.6·tanh(flow / $50M) + 0.4·balance
 * (docs/confirm.md), with flow 0 and balance = (longs − shorts) / 100 wallets.
 */
function inputsFor(balance: number): ConfirmInputs {
  const longs = Math.round(50 + 50 * balance)
  return { ...EMPTY_CONFIRM_INPUTS, whale_net_flow_usd_24h: 0, whales_long: longs, whales_short: 100 - longs }
}

/** A live-state stand-in: bases and per-base inputs set by the test; reads counted; failures injected. */
class FakeInputs implements SignalInputs {
  bases_ = new Set<string>(['BTC'])
  values = new Map<string, ConfirmInputs>()
  reads: string[] = []
  failNext = 0
  bases(): Iterable<string> {
    return this.bases_
  }
  async inputs(base: string): Promise<ConfirmInputs> {
    this.reads.push(base)
    if (this.failNext > 0) {
      this.failNext--
      throw new Error('store down')
    }
    return this.values.get(base) ?? EMPTY_CONFIRM_INPUTS
  }
}

/** An engine on a manual clock with its bus recorded. */
function setup() {
  const clock = { now: T0 }
  const src = new FakeInputs()
  const bus = new SignalBus()
  const events: SignalEvent[] = []
  bus.subscribe((e) => events.push(e))
  const engine = new SignalEngine(src, bus, { now: () => clock.now })
  engine.restore([])
  return { clock, src, bus, events, engine }
}

const trade = (base: string): NormalizedRecord =>
  ({
    kind: 'trade',
    ts: T0,
    exchange: 'binance',
    market: 'perp',
    symbol: `${base}USDT`,
    base,
    quote: 'USDT',
    side: 'buy',
    price: 1,
    qty: 1,
    trade_id: '1'
  }) as NormalizedRecord

describe('SignalEngine', () => {
  it('primes silently, then fires on a change with a stable id, the tracked buckets and the composite', async () => {
    const { clock, src, events, engine } = setup()
    // whales 90/10: W = 0.4 * 0.8 = 0.32, composite 0.3 * 0.32 = 0.096 (LOW, REDUCE)
    src.values.set('BTC', inputsFor(0.8))
    await engine.pass()
    expect(events).toEqual([])
    expect(engine.stateOf('BTC', 'long')).toMatchObject({ level: 'LOW', action: 'REDUCE' })
    expect(engine.stateOf('BTC', 'short')).toMatchObject({ level: 'NONE', action: 'REDUCE' })
    // all wallets long and a huge inflow: W = 0.6 * tanh(huge) + 0.4 * 1 = 1
    src.values.set('BTC', { ...inputsFor(1), whale_net_flow_usd_24h: 1e12 })
    engine.apply([trade('BTC')])
    clock.now += 1_000
    await engine.pass()
    // composite 0.3 * (0.6 + 0.4) = 0.3: MEDIUM and CONFIRM for the long; the short goes to SKIP
    expect(events.map((e) => `${e.direction} ${e.event}`)).toEqual(['long MEDIUM', 'long SIGNAL', 'short SIGNAL'])
    expect(events[0]).toEqual({
      id: `BTC-long-MEDIUM-${clock.now}`,
      event: 'MEDIUM',
      ts: clock.now,
      symbol: 'BTC',
      direction: 'long',
      confidence: 'MEDIUM',
      composite: expect.closeTo(0.3, 12),
      action: 'CONFIRM',
      source: 'engine'
    })
    expect(events[2]).toMatchObject({ confidence: 'NONE', action: 'SKIP', composite: expect.closeTo(-0.3, 12) })
  })

  it('re-evaluates a dirty base at most once a second and every base at least once a minute', async () => {
    const { clock, src, engine } = setup()
    src.values.set('BTC', inputsFor(0))
    await engine.pass()
    expect(src.reads).toEqual(['BTC'])
    engine.apply([trade('BTC')])
    clock.now += 500
    await engine.pass()
    expect(src.reads).toHaveLength(1) // dirty, but evaluated 500 ms ago
    clock.now += 500
    await engine.pass()
    expect(src.reads).toHaveLength(2)
    clock.now += 30_000
    await engine.pass()
    expect(src.reads).toHaveLength(2) // clean: not before a minute
    clock.now += 30_000
    await engine.pass()
    expect(src.reads).toHaveLength(3)
    // spot trades do not feed the confirmation; funding does
    clock.now += 2_000
    engine.apply([{ ...trade('BTC'), market: 'spot' } as NormalizedRecord])
    await engine.pass()
    expect(src.reads).toHaveLength(3)
  })

  it('tracks a base as soon as its records arrive, and every screener base after a rebuild', async () => {
    const { clock, src, engine } = setup()
    await engine.pass()
    engine.apply([trade('ETH')])
    clock.now += 1_000
    await engine.pass()
    expect(src.reads).toEqual(['BTC', 'ETH'])
    src.bases_ = new Set(['BTC', 'ETH', 'SOL'])
    await engine.rebuilt()
    clock.now += 1_000
    await engine.pass()
    expect(src.reads.slice(2).sort()).toEqual(['BTC', 'ETH', 'SOL'])
    expect(engine.stats().bases).toBe(3)
  })

  it('re-evaluates the tracked base a whale transfer or an on-chain metric counts for, and no other', async () => {
    const { clock, src, engine } = setup()
    src.bases_ = new Set(['BTC', 'ETH', 'SOL'])
    await engine.pass()
    expect(src.reads.sort()).toEqual(['BTC', 'ETH', 'SOL'])
    src.reads = []
    const whale = (token: string): NormalizedRecord => ({
      kind: 'whale_transfer',
      ts: T0,
      chain: 'ethereum',
      tx_hash: '0x1',
      log_index: 0,
      block_number: 1,
      address: '0xa',
      counterparty: '0xb',
      event_type: 'transfer_in',
      token,
      amount: 1,
      usd_value: 1e6
    })
    // a wrapped token counts for its coin; a token without a perpetual market is not tracked
    engine.apply([whale('WBTC'), whale('PEPE2')])
    engine.apply([{ kind: 'onchain_metric', ts: T0, asset: 'SOL', metric: 'mvrv', value: 2 }])
    clock.now += 1_000
    await engine.pass()
    expect(src.reads.sort()).toEqual(['BTC', 'SOL'])
    expect(engine.stats().bases).toBe(3)
  })

  it('evaluates every due base of a pass, yielding to the event loop between slices', async () => {
    const { clock, src, engine } = setup()
    src.bases_ = new Set(Array.from({ length: 400 }, (_, i) => `B${i}`))
    await engine.pass()
    expect(new Set(src.reads).size).toBe(400)
    // an immediate queued before a pass runs before the pass ends once a slice is used up
    src.reads = []
    let ranDuring = -1
    const slow = src.inputs.bind(src)
    src.inputs = async (base) => {
      const t = performance.now()
      while (performance.now() - t < 0.05); // a base's evaluation costs CPU, like a real one
      return slow(base)
    }
    setImmediate(() => (ranDuring = src.reads.length))
    clock.now += 60_000
    await engine.pass()
    expect(src.reads).toHaveLength(400)
    expect(ranDuring).toBeGreaterThan(0)
    expect(ranDuring).toBeLessThan(400)
  })

  it('counts a failing evaluation and retries it at the next pass; no data at all changes nothing', async () => {
    const { clock, src, events, engine } = setup()
    src.failNext = 1
    await engine.pass()
    expect(engine.stats()).toMatchObject({ eval_errors: 1, evaluations: 0, last_error: 'BTC: store down' })
    clock.now += 1_000
    await engine.pass()
    expect(engine.stats()).toMatchObject({ eval_errors: 1, evaluations: 1, no_data: 1 })
    expect(engine.stateOf('BTC', 'long')).toBeUndefined()
    expect(events).toEqual([])
  })

  it('rebuilt from stored events, does not fire what it fired before the restart', async () => {
    const { clock, src, events, engine } = setup()
    src.values.set('BTC', inputsFor(0.8))
    await engine.pass()
    src.values.set('BTC', { ...inputsFor(1), whale_net_flow_usd_24h: 1e12 })
    engine.apply([trade('BTC')])
    clock.now += 1_000
    await engine.pass()
    expect(events).toHaveLength(3)
    // what signal-store.ts restoreRows reads back: the latest event per base, direction and kind
    const rows = events.map((e) => ({
      symbol: e.symbol,
      direction: e.direction,
      event: e.event,
      last_ms: e.ts,
      confidence: e.confidence,
      action: e.action
    }))
    const bus2 = new SignalBus()
    const again: SignalEvent[] = []
    bus2.subscribe((e) => again.push(e))
    const restarted = new SignalEngine(src, bus2, { now: () => clock.now })
    restarted.restore(rows)
    expect(restarted.stats().restored).toBe(2)
    expect(restarted.stateOf('BTC', 'long')).toEqual({
      level: 'MEDIUM',
      action: 'CONFIRM',
      lastFired: { MEDIUM: clock.now, SIGNAL: clock.now }
    })
    clock.now += 5_000
    await restarted.pass()
    expect(again).toEqual([])
  })

  it('runs under a signal: waits for readiness, restores, then passes every tick until aborted', async () => {
    const src = new FakeInputs()
    const engine = new SignalEngine(src, new SignalBus(), { tickMs: 5 })
    const abort = new AbortController()
    let ready = false
    let checks = 0
    let loads = 0
    const running = engine.run(
      abort.signal,
      () => (checks++, ready),
      async () => {
        loads++
        return []
      }
    )
    // it looked at readiness three times, and restored nothing yet
    await until('three readiness checks', () => checks >= 3)
    expect(loads).toBe(0)
    ready = true
    await until('a tick after the restore', () => src.reads.length >= 1)
    expect(loads).toBe(1)
    expect(engine.restored).toBe(true)
    expect(src.reads.length).toBeGreaterThanOrEqual(1)
    abort.abort()
    await running
  })

  it('with the store down, probes with one evaluation per pass instead of reading every base', async () => {
    const { clock, src, engine } = setup()
    src.bases_ = new Set(['BTC', 'ETH', 'SOL', 'XRP', 'DOGE'])
    src.failNext = 1_000 // every read fails
    expect(await engine.pass()).toBe(false)
    expect(src.reads).toHaveLength(1)
    clock.now += 1_000
    expect(await engine.pass()).toBe(false)
    expect(src.reads).toHaveLength(2)
    // the store is back: the next pass reads every base
    src.failNext = 0
    clock.now += 1_000
    expect(await engine.pass()).toBe(true)
    expect(new Set(src.reads.slice(2))).toEqual(src.bases_)
  })
})
