/**
 * The per-base change marks behind the confirmation answers' cache (engine/live/base-changes.ts): a record
 * changes the mark of the base whose confirmation it feeds, and only that one.
 */
import { describe, expect, it } from 'vitest'
import { BaseChanges } from '../../engine/live/base-changes.js'
import type { OnchainMetricRecord, OptionQuoteRecord, TradeRecord } from '../../engine/records/types.js'
import { whaleRow } from '../helpers/whale-row.js'

const trade = (base: string): TradeRecord => ({
  kind: 'trade',
  ts: 1,
  exchange: 'binance',
  market: 'perp',
  symbol: `${base}USDT`,
  base,
  quote: 'USDT',
  price: 1,
  qty: 1,
  side: 'buy',
  trade_id: '1'
})

const quote: OptionQuoteRecord = {
  kind: 'option_quote',
  ts: 1,
  exchange: 'deribit',
  instrument: 'BTC-5JAN25-100000-C',
  underlying_price: 1,
  mark_price: 1,
  open_interest: 1,
  volume_24h: 1
}

const metric: OnchainMetricRecord = { kind: 'onchain_metric', ts: 1, asset: 'SOL', metric: 'mvrv', value: 2 }

describe('base change marks', () => {
  it('change for the fed base only: trades, on-chain metrics, whale transfers of a wrapped token', () => {
    const c = new BaseChanges()
    const marks = (): number[] => ['BTC', 'ETH', 'SOL'].map((b) => c.of(b))
    const m0 = marks()
    c.applied([trade('BTC')])
    const m1 = marks()
    expect([m1[0] !== m0[0], m1[1] === m0[1], m1[2] === m0[2]]).toEqual([true, true, true])
    c.applied([whaleRow({ token: 'WETH' })])
    const m2 = marks()
    expect([m2[0] === m1[0], m2[1] !== m1[1], m2[2] === m1[2]]).toEqual([true, true, true])
    c.applied([metric])
    const m3 = marks()
    expect([m3[0] === m2[0], m3[1] === m2[1], m3[2] !== m2[2]]).toEqual([true, true, true])
    c.applied([quote]) // option quotes feed no confirmation input
    expect(marks()).toEqual(m3)
    c.all()
    const m4 = marks()
    expect(m4.every((m, i) => m !== m3[i])).toBe(true)
  })
})
