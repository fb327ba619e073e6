/**
 * Binance delivery contracts (dated futures) on the all-market streams: they make no funding, no market and no
 * record, whatever their name, while the perpetual rows beside them still map.
 */
import { describe, it, expect } from 'vitest'
import type { NormalizedRecord } from '../../engine/records/types.js'
import { BinanceNormalizer, FUNDING_SAMPLE_MS } from '../../ingest/normalize/binance.js'
import {
  EXCHANGE_INFO,
  aggTradeEvent,
  forceOrderEvent,
  longShortBody,
  markPriceUpdate,
  openInterestBody
} from '../helpers/venues/binance-fixtures.js'
import { T, setup, run, ws } from '../helpers/venues/binance-normalize.js'

describe('Binance delivery contracts (dated futures on the all-market streams)', () => {
  // as captured from `!markPrice@arr`: a delivery contract has no funding ("0.00000000" or "") and T 0
  const dated = (s: string, r: string) => ({ ...markPriceUpdate(s, T, r, 0), p: '98510.20000000', T: 0 })

  it('mark price rows of delivery contracts make no funding and no market; the perpetual rows still map', () => {
    const { n } = setup()
    const arr = [
      markPriceUpdate('BTCUSDT', T, '0.00010000', T + 1_800_000),
      dated('BTCUSDT_250328', '0.00000000'),
      dated('ETHUSDT_250627', '')
    ]
    const { outcome, records } = run(n, 'ws', ws('!markPrice@arr@1s', arr))
    expect(outcome).toBe('ok')
    expect(records.map((r) => [r.kind, (r as { symbol: string }).symbol])).toEqual([['funding', 'BTCUSDT']])
    expect(n.marketMeta('BTCUSDT_250328')).toBeUndefined()
    expect(n.marketMeta('ETHUSDT_250627')).toBeUndefined()
    // only delivery rows, or one delivery contract's own stream: skipped (unknown), not malformed
    expect(run(n, 'ws', ws('!markPrice@arr@1s', [dated('BTCUSDT_250926', '0.00000000')]))).toEqual({
      outcome: 'unknown',
      records: []
    })
    expect(run(n, 'ws', ws('btcusdt_250328@markPrice', dated('BTCUSDT_250328', '0')))).toEqual({
      outcome: 'unknown',
      records: []
    })
  })

  it('no other message of a delivery contract makes a perpetual market or a record', () => {
    const { n } = setup()
    const s = 'BTCUSDT_250328'
    const cases: [string, unknown][] = [
      ['ws', ws('btcusdt_250328@aggTrade', aggTradeEvent(s, 9, T, '98500', '0.5', true))],
      ['ws', ws('!forceOrder@arr', forceOrderEvent(s, 'SELL', T, '98400', '0.2'))],
      [`/fapi/v1/openInterest?symbol=${s}`, openInterestBody(s, '1234.5', T)],
      [`/futures/data/globalLongShortAccountRatio?symbol=${s}`, longShortBody(s, '1.5', '0.6', '0.4', T)]
    ]
    for (const [channel, msg] of cases) expect(run(n, channel, msg)).toEqual({ outcome: 'unknown', records: [] })
    const text = JSON.stringify(ws('btcusdt_250328@aggTrade', aggTradeEvent(s, 10, T, '98500', '0.5', true)))
    const out: NormalizedRecord[] = []
    expect(n.normalizeText('ws', text, T, out)).toBe('unknown')
    expect(out).toEqual([])
    expect(n.marketMeta(s)).toBeUndefined()
  })

  it('a contract exchangeInfo lists as dated is skipped whatever its name, even when seen before the list', () => {
    const n = new BinanceNormalizer()
    const mark = { ...markPriceUpdate('BTCUSDTQ', T, '0.00000000', 0), T: 0 } // a hypothetical unsuffixed name
    expect(run(n, 'ws', ws('!markPrice@arr@1s', [mark])).records).toHaveLength(1) // not known yet: a perpetual
    const info = {
      symbols: [
        ...EXCHANGE_INFO.symbols,
        { ...EXCHANGE_INFO.symbols[0], symbol: 'BTCUSDTQ', contractType: 'NEXT_QUARTER' }
      ]
    }
    expect(run(n, '/fapi/v1/exchangeInfo', info).outcome).toBe('ok')
    expect(n.marketMeta('BTCUSDTQ')).toBeUndefined()
    const later = { ...mark, E: T + FUNDING_SAMPLE_MS }
    expect(run(n, 'ws', ws('!markPrice@arr@1s', [later]))).toEqual({ outcome: 'unknown', records: [] })
    expect(n.marketMeta('BTCUSDT')).toMatchObject({ base: 'BTC' })
  })
})
