import { describe, it, expect } from 'vitest'
import { encodeTsv, escapeTsv } from '../../engine/records/tsv.js'
import { validateRecord } from '../../engine/records/validate.js'
import type { FundingRecord, TradeRecord } from '../../engine/records/types.js'

const trade: TradeRecord = {
  kind: 'trade',
  ts: 1700000000123,
  exchange: 'binance',
  market: 'perp',
  symbol: 'BTCUSDT',
  base: 'BTC',
  quote: 'USDT',
  side: 'buy',
  price: 37000.5,
  qty: 0.001,
  trade_id: 'a\tb\\c\nd'
}

describe('TSV encoder', () => {
  it('writes fields in table order and escapes tabs, newlines and backslashes', () => {
    expect(encodeTsv('trade', [trade])).toBe(
      '1700000000123\tbinance\tperp\tBTCUSDT\tBTC\tUSDT\tbuy\t37000.5\t0.001\ta\\tb\\\\c\\nd\n'
    )
  })

  it('writes absent optional fields as \\N and keeps present zeros', () => {
    const f: FundingRecord = {
      kind: 'funding',
      ts: 1,
      exchange: 'okx',
      symbol: 'BTC-USDT-SWAP',
      base: 'BTC',
      funding_rate: 0,
      interval_hours: 8,
      mark_price: 0
    }
    expect(encodeTsv('funding', [f])).toBe('1\tokx\tBTC-USDT-SWAP\tBTC\t0\t8\t\\N\t0\t\\N\n')
  })

  it('leaves plain strings untouched', () => {
    expect(escapeTsv('BTC-5JAN25-100000-C')).toBe('BTC-5JAN25-100000-C')
  })
})

describe('record validation', () => {
  const { kind: _k, ...plain } = trade
  void _k

  it('accepts a valid record with or without its kind', () => {
    expect(validateRecord('trade', plain)).toEqual({ ok: true, record: trade })
    expect(validateRecord('trade', trade).ok).toBe(true)
  })

  it.each([
    ['price', -1, 'must be >= 0'],
    ['price', 'x', 'must be a finite number'],
    ['ts', 1.5, 'must be integer epoch milliseconds between 1970 and 2100'],
    ['ts', 1700000000123000, 'must be integer epoch milliseconds between 1970 and 2100'],
    ['side', 'long', 'must be one of buy, sell'],
    ['symbol', '', 'must be a non-empty string'],
    ['trade_id', undefined, 'is required']
  ])('names the field at fault: %s = %s', (field, value, message) => {
    const bad = { ...plain, [field]: value }
    if (value === undefined) delete (bad as Record<string, unknown>)[field]
    expect(validateRecord('trade', bad)).toEqual({ ok: false, problem: { field, message } })
  })

  it('rejects unknown fields and a mismatched kind', () => {
    expect(validateRecord('trade', { ...plain, pricee: 1 })).toEqual({
      ok: false,
      problem: { field: 'pricee', message: 'is not a field of trade' }
    })
    expect(validateRecord('trade', { ...plain, kind: 'funding' })).toEqual({
      ok: false,
      problem: { field: 'kind', message: 'must be "trade"' }
    })
    expect(validateRecord('trade', [1, 2]).ok).toBe(false)
  })

  it('treats optional fields as optional and rejects NaN in them', () => {
    const f = { ts: 1, exchange: 'okx', symbol: 'S', base: 'B', funding_rate: -0.001, interval_hours: 1 }
    expect(validateRecord('funding', f).ok).toBe(true)
    expect(validateRecord('funding', { ...f, mark_price: Number.NaN })).toEqual({
      ok: false,
      problem: { field: 'mark_price', message: 'must be a finite number' }
    })
  })
})
