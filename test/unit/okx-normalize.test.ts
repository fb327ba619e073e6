import { describe, it, expect } from 'vitest'
import { FUNDING_SAMPLE_MS, RECENT_IDS } from '../../ingest/normalize/okx.js'
import { mulDecimal, usdtSwaps } from '../../ingest/normalize/okx-markets.js'
import { INSTRUMENTS, fundingRow, markPriceRow, tradeRow } from '../helpers/venues/okx-fixtures.js'
import { T, HOUR, setup, run, ws, type Row } from '../helpers/venues/okx-normalize.js'

describe('OKX market discovery', () => {
  it('keeps live USDT-settled linear swaps with coins per contract = ctVal x ctMult', () => {
    expect(usdtSwaps(INSTRUMENTS)).toEqual([
      { symbol: 'BTC-USDT-SWAP', base: 'BTC', quote: 'USDT', coinsPerContract: 0.01 },
      { symbol: 'ETH-USDT-SWAP', base: 'ETH', quote: 'USDT', coinsPerContract: 0.1 },
      { symbol: 'DOGE-USDT-SWAP', base: 'DOGE', quote: 'USDT', coinsPerContract: 1000 },
      { symbol: 'PEPE-USDT-SWAP', base: 'PEPE', quote: 'USDT', coinsPerContract: 10_000_000 }
    ])
    const doubled = { ...INSTRUMENTS, data: [{ ...INSTRUMENTS.data[0], ctMult: '2' }] }
    expect(usdtSwaps(doubled)?.[0]?.coinsPerContract).toBe(0.02)
    expect(usdtSwaps({ code: '50011', msg: 'Too Many Requests', data: [] })).toBeNull()
    expect(mulDecimal(0.12, 0.01)).toBe(0.0012)
  })
})

describe('OKX raw message -> normalized record', () => {
  it('trades: contracts x contract value = coins, taker side as sent', () => {
    const n = setup()
    const btc = run(
      n,
      'ws',
      ws('trades', 'BTC-USDT-SWAP', [tradeRow('BTC-USDT-SWAP', '130639474', T, '97001.5', '12.5', 'sell')])
    )
    expect(btc).toMatchInlineSnapshot(`
      {
        "outcome": "ok",
        "records": [
          {
            "base": "BTC",
            "exchange": "okx",
            "kind": "trade",
            "market": "perp",
            "price": 97001.5,
            "qty": 0.125,
            "quote": "USDT",
            "side": "sell",
            "symbol": "BTC-USDT-SWAP",
            "trade_id": "130639474",
            "ts": 1732270000000,
          },
        ],
      }
    `)
    const eth = run(
      n,
      'ws',
      ws('trades', 'ETH-USDT-SWAP', [tradeRow('ETH-USDT-SWAP', '9001', T + 1, '3400.55', '3', 'buy')])
    )
    expect(eth.records[0]).toMatchObject({ qty: 0.3, price: 3400.55, side: 'buy', base: 'ETH' })
    const pepe = run(
      n,
      'ws',
      ws('trades', 'PEPE-USDT-SWAP', [tradeRow('PEPE-USDT-SWAP', '77', T + 2, '0.0000201', '2.5', 'buy')])
    )
    expect(pepe.records[0]).toMatchObject({ qty: 25_000_000, price: 0.0000201, base: 'PEPE' })
  })

  it('trades: an id seen again is a duplicate; a push with several trades maps each', () => {
    const n = setup()
    const rows = [
      tradeRow('DOGE-USDT-SWAP', '10', T, '0.38211', '4', 'buy'),
      tradeRow('DOGE-USDT-SWAP', '11', T + 5, '0.38212', '0.5', 'sell')
    ]
    expect(run(n, 'ws', ws('trades', 'DOGE-USDT-SWAP', rows)).records.map((r) => (r as { qty: number }).qty)).toEqual([
      4000, 500
    ])
    expect(run(n, 'ws', ws('trades', 'DOGE-USDT-SWAP', [rows[1]]))).toEqual({ outcome: 'duplicate', records: [] })
    expect(n.duplicates).toBe(1)
    // only the last RECENT_IDS ids are remembered
    for (let i = 0; i < RECENT_IDS; i++) {
      run(n, 'ws', ws('trades', 'DOGE-USDT-SWAP', [tradeRow('DOGE-USDT-SWAP', String(100 + i), T, '0.4', '1', 'buy')]))
    }
    expect(run(n, 'ws', ws('trades', 'DOGE-USDT-SWAP', [rows[0]])).outcome).toBe('ok')
  })

  it('funding-rate: fraction per interval, interval from fundingTime/nextFundingTime (1 h, 4 h, 8 h)', () => {
    const n = setup()
    run(n, 'ws', ws('mark-price', 'BTC-USDT-SWAP', [markPriceRow('BTC-USDT-SWAP', T)]))
    const next = Math.ceil(T / HOUR) * HOUR
    const btc = run(
      n,
      'ws',
      ws('funding-rate', 'BTC-USDT-SWAP', [fundingRow('BTC-USDT-SWAP', T, '0.0000604121295194', next, 8)])
    )
    expect(btc.records).toMatchInlineSnapshot(`
      [
        {
          "base": "BTC",
          "exchange": "okx",
          "funding_rate": 0.0000604121295194,
          "index_price": null,
          "interval_hours": 8,
          "kind": "funding",
          "mark_price": 97000.1,
          "next_funding_ts": 1732273200000,
          "symbol": "BTC-USDT-SWAP",
          "ts": 1732270000000,
        },
      ]
    `)
    const doge = run(
      n,
      'ws',
      ws('funding-rate', 'DOGE-USDT-SWAP', [fundingRow('DOGE-USDT-SWAP', T, '-0.0005', next, 1)])
    )
    expect(doge.records[0]).toMatchObject({ funding_rate: -0.0005, interval_hours: 1, mark_price: null })
    const pepe = run(
      n,
      'ws',
      ws('funding-rate', 'PEPE-USDT-SWAP', [fundingRow('PEPE-USDT-SWAP', T, '0.0001', next, 4)])
    )
    expect(pepe.records[0]).toMatchObject({ interval_hours: 4, base: 'PEPE' })
  })

  it('funding-rate: one record per market per minute, and at once when fundingTime moves', () => {
    const n = setup()
    const next = T + HOUR
    run(n, 'ws', ws('funding-rate', 'ETH-USDT-SWAP', [fundingRow('ETH-USDT-SWAP', T, '0.0001', next, 8)]))
    const soon = run(
      n,
      'ws',
      ws('funding-rate', 'ETH-USDT-SWAP', [fundingRow('ETH-USDT-SWAP', T + 30_000, '0.0002', next, 8)])
    )
    expect(soon).toEqual({ outcome: 'ok', records: [] })
    const later = run(
      n,
      'ws',
      ws('funding-rate', 'ETH-USDT-SWAP', [fundingRow('ETH-USDT-SWAP', T + FUNDING_SAMPLE_MS, '0.0003', next, 8)])
    )
    expect(later.records[0]).toMatchObject({ funding_rate: 0.0003 })
    const settled = run(
      n,
      'ws',
      ws('funding-rate', 'ETH-USDT-SWAP', [
        fundingRow('ETH-USDT-SWAP', T + FUNDING_SAMPLE_MS + 1, '0.00005', next + 8 * HOUR, 8)
      ])
    )
    expect(settled.records[0]).toMatchObject({ funding_rate: 0.00005, next_funding_ts: next + 8 * HOUR })
  })

  it('funding-rate without fundingRate (missing, "" or null) is skipped, not a parse error', () => {
    const n = setup()
    const next = T + HOUR
    const row = fundingRow('ETH-USDT-SWAP', T, '0.0001', next, 8) as Row
    const { fundingRate: _rate, ...noRate } = row
    for (const bare of [noRate, { ...row, fundingRate: '' }, { ...row, fundingRate: null }]) {
      expect(run(n, 'ws', ws('funding-rate', 'ETH-USDT-SWAP', [bare]))).toEqual({ outcome: 'unknown', records: [] })
    }
    // a rate that is present but not a number is still an error; a rate of 0 is a rate
    expect(run(n, 'ws', ws('funding-rate', 'ETH-USDT-SWAP', [{ ...row, fundingRate: 'abc' }])).outcome).toBe(
      'malformed'
    )
    const zero = run(n, 'ws', ws('funding-rate', 'ETH-USDT-SWAP', [{ ...row, fundingRate: '0' }]))
    expect(zero.records).toMatchObject([{ funding_rate: 0, next_funding_ts: next }])
  })

  it('funding-rate without fundingTime: a record without the next funding time, sampled per minute', () => {
    const n = setup()
    const { fundingTime: _t, ...row } = fundingRow('ETH-USDT-SWAP', T, '0.0001', T + HOUR, 8) as Row
    const first = run(n, 'ws', ws('funding-rate', 'ETH-USDT-SWAP', [row]))
    expect(first).toMatchObject({ outcome: 'ok', records: [{ funding_rate: 0.0001, next_funding_ts: null }] })
    const soon = run(n, 'ws', ws('funding-rate', 'ETH-USDT-SWAP', [{ ...row, ts: String(T + 1000) }]))
    expect(soon).toEqual({ outcome: 'ok', records: [] })
    const empty = { ...row, fundingTime: '', ts: String(T + FUNDING_SAMPLE_MS) }
    expect(run(n, 'ws', ws('funding-rate', 'ETH-USDT-SWAP', [empty])).records).toHaveLength(1)
  })

  it('mark-price without markPx (missing, "", null or "0") is skipped, not a parse error', () => {
    const n = setup()
    const row = markPriceRow('BTC-USDT-SWAP', T) as Row
    const { markPx: _px, ...noMark } = row
    for (const bare of [noMark, { ...row, markPx: '' }, { ...row, markPx: null }, { ...row, markPx: '0' }]) {
      expect(run(n, 'ws', ws('mark-price', 'BTC-USDT-SWAP', [bare]))).toEqual({ outcome: 'unknown', records: [] })
    }
    expect(run(n, 'ws', ws('mark-price', 'BTC-USDT-SWAP', [{ ...row, markPx: '-1' }])).outcome).toBe('malformed')
    // no mark was taken: funding has none
    const f = run(n, 'ws', ws('funding-rate', 'BTC-USDT-SWAP', [fundingRow('BTC-USDT-SWAP', T, '0.0001', T + HOUR, 8)]))
    expect(f.records).toMatchObject([{ mark_price: null }])
  })
})
