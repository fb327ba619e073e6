/**
 * Sequence checks of inbound alerts (docs/alerts.md "Sequence checks"): the bar length of TradingView's
 * intervals, reading `seq` and `time`, the template fields standing in for the canonical ones, and the
 * per-strategy judgement (missing, late, out of order, silence) on an injected clock.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { readAlertFields } from '../../engine/alerts/alert-body.js'
import { readBarTime, readSeq } from '../../engine/alerts/alert-sequence.js'
import { barMs } from '../../engine/alerts/alert-timeframe.js'
import { LATE_FLOOR_MS, STRATEGIES_PER_KEY, StrategyStatuses } from '../../engine/alerts/strategy-status.js'
import { ApiError } from '../../engine/errors.js'
import { FakeStore } from '../helpers/fake-store.js'

const MIN = 60_000
const T0 = Date.parse('2026-05-01T12:00:00Z')

describe('barMs', () => {
  it('reads TradingView intervals and the usual forms; m is minutes, M months', () => {
    expect(barMs('1')).toBe(MIN)
    expect(barMs('240')).toBe(240 * MIN)
    expect(barMs('30S')).toBe(30_000)
    expect(barMs('1D')).toBe(1440 * MIN)
    expect(barMs('D')).toBe(1440 * MIN)
    expect(barMs('W')).toBe(7 * 1440 * MIN)
    expect(barMs('1M')).toBe(30 * 1440 * MIN)
    expect(barMs('15m')).toBe(15 * MIN)
    expect(barMs('4h')).toBe(240 * MIN)
    for (const bad of [null, '', '0', '1X', 'abc', '10000M', '15 m']) expect(barMs(bad), String(bad)).toBeNull()
  })
})

describe('seq and time', () => {
  it('reads numbers, numeric strings and ISO dates; refuses the rest naming the forms', () => {
    expect(readSeq(7)).toEqual({ kind: 'number', value: 7 })
    expect(readSeq('12')).toEqual({ kind: 'number', value: 12 })
    expect(readSeq('2026-05-01T12:00:00Z')).toEqual({ kind: 'time', value: T0 })
    expect(readSeq('2026-05-01T14:00:00+02:00')).toEqual({ kind: 'time', value: T0 })
    expect(readSeq(null)).toBeNull()
    for (const bad of [-1, 'soon', '2026-05-01', true, {}, Number.MAX_SAFE_INTEGER * 2]) {
      expect(() => readSeq(bad), JSON.stringify(bad)).toThrow(ApiError)
      expect(() => readSeq(bad)).toThrow(/number .* or a date in ISO 8601/)
    }
    expect(readBarTime('2026-05-01T12:00:00Z')).toBe(T0)
    expect(readBarTime(T0)).toBe(T0)
    for (const bad of ['yesterday', 1.5, 12]) expect(() => readBarTime(bad), String(bad)).toThrow(/ISO 8601/)
  })

  it('maps ticker/exchange, interval and action, and names both fields when they disagree', () => {
    const read = (o: Record<string, unknown>) => readAlertFields({ secret: 's', ...o })
    expect(read({ exchange: 'BYBIT', ticker: 'ETHUSDT.P', action: 'sell', interval: '60' })).toMatchObject({
      symbol: 'BYBIT:ETHUSDT.P',
      direction: 'short',
      timeframe: '60',
      tickerAlso: null
    })
    expect(read({ symbol: 'ETH', ticker: 'ETHUSDT', direction: 'long' }).tickerAlso).toBe('ETHUSDT')
    const refused = (o: Record<string, unknown>, param: string, ...named: string[]) => {
      try {
        read(o)
        expect.unreachable(JSON.stringify(o))
      } catch (err) {
        expect((err as ApiError).param).toBe(param)
        for (const n of named) expect((err as ApiError).message).toContain(n)
      }
    }
    refused({ symbol: 'BTC', direction: 'long', action: 'sell' }, 'action', 'sell', 'long')
    refused({ symbol: 'BTC', direction: 'long', timeframe: '15', interval: '60' }, 'interval', '60', '15')
    refused({ direction: 'long' }, 'symbol', 'ticker')
    refused({ symbol: 'BTC' }, 'direction', 'action')
    refused({ symbol: 'BTC', direction: 'long', message: 'x'.repeat(1001) }, 'message')
    refused({ symbol: 'BTC', direction: 'long', exchange: 'BIN ANCE' }, 'exchange')
  })
})

/**
 * The tracker over a store that refuses inserts and records every call: `observe`, `silenced` and `list`
 * work in memory and must not touch it (flush/load against chDB: the integration test).
 */
let store = new FakeStore(() => [])
const statuses = () => new StrategyStatuses((store = new FakeStore(() => [])))
afterEach(() => expect(store.calls).toEqual([]))
const obs = (o: Partial<Parameters<StrategyStatuses['observe']>[0]> = {}) => ({
  keyId: 'k1',
  strategy: 's',
  symbol: 'BTC',
  timeframe: '15',
  seq: null,
  barTime: null,
  ...o
})

describe('strategy statuses', () => {
  it('counts gaps of numeric seqs, seqs not above the last, and late moments against one bar', () => {
    const s = statuses()
    const n = (value: number) => ({ kind: 'number' as const, value })
    expect(s.observe(obs({ seq: n(1) }), T0)).toEqual({ missing: 0, late: false, outOfOrder: false })
    expect(s.observe(obs({ seq: n(4) }), T0)).toEqual({ missing: 2, late: false, outOfOrder: false })
    expect(s.observe(obs({ seq: n(4) }), T0)).toEqual({ missing: 0, late: false, outOfOrder: true })
    expect(s.observe(obs({ seq: n(3) }), T0)).toEqual({ missing: 0, late: false, outOfOrder: true })
    expect(s.observe(obs({ seq: n(5) }), T0)).toEqual({ missing: 0, late: false, outOfOrder: false })
    // a date seq: late when more than one 15-minute bar old; a bar time: late after its close plus a bar
    const t = (value: number) => ({ kind: 'time' as const, value })
    expect(s.observe(obs({ strategy: 'd', seq: t(T0 - 15 * MIN) }), T0).late).toBe(false)
    expect(s.observe(obs({ strategy: 'd', seq: t(T0 - 16 * MIN) }), T0 + 1).outOfOrder).toBe(true)
    expect(s.observe(obs({ strategy: 'd', seq: t(T0 - 15 * MIN - 1) }), T0).late).toBe(true)
    expect(s.observe(obs({ strategy: 'b', barTime: T0 - 30 * MIN }), T0).late).toBe(false)
    expect(s.observe(obs({ strategy: 'b', barTime: T0 - 31 * MIN }), T0).late).toBe(true)
    // without a timeframe the floor applies
    expect(s.observe(obs({ strategy: 'f', timeframe: null, seq: t(T0 - LATE_FLOOR_MS) }), T0).late).toBe(false)
    expect(s.observe(obs({ strategy: 'f', timeframe: null, seq: t(T0 - LATE_FLOOR_MS - 1) }), T0).late).toBe(true)
    const main = s.list('k1').find((x) => x.strategy === 's')!
    expect(main).toMatchObject({ received: 5, missing: 2, outOfOrder: 2, lastSeq: n(5) })
  })

  it('declares silence once after silence_bars bars, re-armed by the next alert', () => {
    const s = statuses()
    s.observe(obs({ timeframe: '1' }), T0)
    s.observe(obs({ strategy: 'none', timeframe: null }), T0)
    const bars = () => 3
    expect(s.silenced(T0 + 3 * MIN, bars)).toEqual([])
    expect(s.silenced(T0 + 3 * MIN + 1, bars).map((x) => x.strategy)).toEqual(['s'])
    expect(s.silenced(T0 + 60 * MIN, bars)).toEqual([])
    expect(s.silenced(T0 + 60 * MIN, () => 0)).toEqual([])
    s.observe(obs({ timeframe: '1' }), T0 + 61 * MIN)
    expect(s.list('k1').find((x) => x.strategy === 's')!.silentSince).toBeNull()
    expect(s.silenced(T0 + 65 * MIN, bars).map((x) => x.silences)).toEqual([2])
  })

  it('tracks at most STRATEGIES_PER_KEY pairs per key and counts the rest', () => {
    const s = statuses()
    for (let i = 0; i < STRATEGIES_PER_KEY + 5; i++) s.observe(obs({ strategy: `s${i}` }), T0)
    expect(s.list('k1')).toHaveLength(STRATEGIES_PER_KEY)
    expect(s.untracked).toBe(5)
    s.observe(obs({ keyId: 'k2' }), T0)
    expect(s.list('k2')).toHaveLength(1)
  })
})
