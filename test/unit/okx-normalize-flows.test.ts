/**
 * The OKX normalizer's open interest, liquidations, long/short readings, and the control, error, unknown and
 * malformed messages it counts without records.
 */
import { describe, it, expect } from 'vitest'
import { OI_SAMPLE_MS } from '../../ingest/normalize/okx.js'
import {
  liquidationRow,
  longShortBody,
  markPriceRow,
  openInterestRow,
  push,
  tradeRow
} from '../helpers/venues/okx-fixtures.js'
import { T, setup, run, ws, type Row } from '../helpers/venues/okx-normalize.js'

describe('OKX raw message -> normalized record', () => {
  it('open-interest: oi contracts x ctVal = coins, USD from oiUsd, sampled per minute', () => {
    const n = setup()
    const first = run(
      n,
      'ws',
      ws('open-interest', 'BTC-USDT-SWAP', [openInterestRow('BTC-USDT-SWAP', '3133489.89', T)])
    )
    expect(first.records).toMatchInlineSnapshot(`
      [
        {
          "base": "BTC",
          "exchange": "okx",
          "kind": "open_interest",
          "oi_base": 31334.8989,
          "oi_usd": 3039488326.7898903,
          "symbol": "BTC-USDT-SWAP",
          "ts": 1732270000000,
        },
      ]
    `)
    const again = run(n, 'ws', ws('open-interest', 'BTC-USDT-SWAP', [openInterestRow('BTC-USDT-SWAP', '1', T + 3_000)]))
    expect(again.records).toEqual([])
    const next = run(
      n,
      'ws',
      ws('open-interest', 'BTC-USDT-SWAP', [openInterestRow('BTC-USDT-SWAP', '200', T + OI_SAMPLE_MS)])
    )
    expect(next.records[0]).toMatchObject({ oi_base: 2 })
    const pepe = run(n, 'ws', ws('open-interest', 'PEPE-USDT-SWAP', [openInterestRow('PEPE-USDT-SWAP', '1500.5', T)]))
    expect(pepe.records[0]).toMatchObject({ oi_base: 15_005_000_000 })
  })

  it('open-interest with oiUsd "" or "0" takes USD from the mark like a missing one; oiUsd "abc" is malformed', () => {
    const n = setup()
    run(n, 'ws', ws('mark-price', 'ETH-USDT-SWAP', [markPriceRow('ETH-USDT-SWAP', T)]))
    const row = openInterestRow('ETH-USDT-SWAP', '1000', T) as Row
    const mark = Number((markPriceRow('ETH-USDT-SWAP', T) as Row)['markPx'])
    ;['', '0', null].forEach((oiUsd, i) => {
      const at = String(T + i * OI_SAMPLE_MS)
      const { outcome, records } = run(n, 'ws', ws('open-interest', 'ETH-USDT-SWAP', [{ ...row, oiUsd, ts: at }]))
      expect(outcome).toBe('ok')
      expect(records).toMatchObject([{ oi_base: 100, oi_usd: 100 * mark }])
    })
    const bad = { ...row, oiUsd: 'abc', ts: String(T + 9 * OI_SAMPLE_MS) }
    expect(run(n, 'ws', ws('open-interest', 'ETH-USDT-SWAP', [bad]))).toEqual({ outcome: 'malformed', records: [] })
  })

  it('open-interest without oiUsd waits for the first mark price', () => {
    const n = setup()
    const waiting = run(
      n,
      'ws',
      ws('open-interest', 'ETH-USDT-SWAP', [openInterestRow('ETH-USDT-SWAP', '1000', T, false)])
    )
    expect(waiting.records).toEqual([])
    const marked = run(n, 'ws', ws('mark-price', 'ETH-USDT-SWAP', [markPriceRow('ETH-USDT-SWAP', T + 5)]))
    expect(marked.records).toEqual([
      {
        kind: 'open_interest',
        ts: T,
        exchange: 'okx',
        symbol: 'ETH-USDT-SWAP',
        base: 'ETH',
        oi_base: 100,
        oi_usd: 340055
      }
    ])
  })

  it('liquidation-orders: each detail row, sz in contracts -> coins; swaps not followed are skipped', () => {
    const n = setup()
    const msg = push({ channel: 'liquidation-orders', instType: 'SWAP' }, [
      liquidationRow('ETH-USDT-SWAP', [
        { side: 'sell', bkPx: '3390.1', sz: '20', ts: T },
        { side: 'buy', bkPx: '3420', sz: '5', ts: T + 9 }
      ]),
      liquidationRow('BTC-USD-SWAP', [{ side: 'buy', bkPx: '97500', sz: '300', ts: T }])
    ])
    const { outcome, records } = run(n, 'ws', msg)
    expect(outcome).toBe('ok')
    expect(records).toMatchInlineSnapshot(`
      [
        {
          "base": "ETH",
          "exchange": "okx",
          "kind": "liquidation",
          "price": 3390.1,
          "qty": 2,
          "side": "sell",
          "symbol": "ETH-USDT-SWAP",
          "ts": 1732270000000,
        },
        {
          "base": "ETH",
          "exchange": "okx",
          "kind": "liquidation",
          "price": 3420,
          "qty": 0.5,
          "side": "buy",
          "symbol": "ETH-USDT-SWAP",
          "ts": 1732270000009,
        },
      ]
    `)
  })

  it('long/short: [ts, ratio] rows oldest first, each reading once', () => {
    const n = setup()
    const path = '/api/v5/rubik/stat/contracts/long-short-account-ratio?ccy=BTC&period=5m'
    const first = run(
      n,
      path,
      longShortBody([
        [T + 300_000, '1.25'],
        [T, '1.2']
      ])
    )
    expect(first.records).toEqual([
      {
        kind: 'long_short',
        ts: T,
        exchange: 'okx',
        symbol: 'BTC-USDT-SWAP',
        base: 'BTC',
        long_short_ratio: 1.2,
        long_account: null,
        short_account: null
      },
      {
        kind: 'long_short',
        ts: T + 300_000,
        exchange: 'okx',
        symbol: 'BTC-USDT-SWAP',
        base: 'BTC',
        long_short_ratio: 1.25,
        long_account: null,
        short_account: null
      }
    ])
    const again = run(
      n,
      path,
      longShortBody([
        [T + 600_000, '1.3'],
        [T + 300_000, '1.25']
      ])
    )
    expect(again.records.map((r) => r.ts)).toEqual([T + 600_000])
  })

  it('control, errors, unknown and malformed messages', () => {
    const n = setup()
    const r = (channel: string, msg: unknown): string => run(n, channel, msg).outcome
    expect(
      r('ws', { event: 'subscribe', arg: { channel: 'trades', instId: 'BTC-USDT-SWAP' }, connId: 'a4d3ae55' })
    ).toBe('control')
    expect(r('ws', { event: 'channel-conn-count', channel: 'trades', connCount: '2', connId: 'a4d3ae55' })).toBe(
      'control'
    )
    expect(r('ws', { event: 'error', code: '60018', msg: "Wrong URL or channel:trades,instId:X doesn't exist." })).toBe(
      'error'
    )
    expect(r('ws', push({ channel: 'books5', instId: 'BTC-USDT-SWAP' }, [{ asks: [], bids: [] }]))).toBe('unknown')
    expect(r('ws', { hello: 'world' })).toBe('unknown')
    expect(
      r(
        'ws',
        ws('trades', 'BTC-USDT-SWAP', [
          { instId: 'BTC-USDT-SWAP', tradeId: '1', px: 'x', sz: '1', side: 'buy', ts: '1' }
        ])
      )
    ).toBe('malformed')
    expect(
      r('ws', ws('trades', 'BTC-USDT-SWAP', [{ ...tradeRow('BTC-USDT-SWAP', '2', T, '1', '1', 'buy'), side: 'up' }]))
    ).toBe('malformed')
    expect(r('ws', ws('funding-rate', 'BTC-USDT-SWAP', [{ instId: 'BTC-USDT-SWAP', fundingRate: 'n/a' }]))).toBe(
      'malformed'
    )
    expect(r('ws', ws('trades', 'XYZ-USDT-SWAP', [tradeRow('XYZ-USDT-SWAP', '3', T, '1', '1', 'buy')]))).toBe('unknown')
    expect(r('ws', [1, 2])).toBe('malformed')
    expect(
      r('/api/v5/rubik/stat/contracts/long-short-account-ratio?ccy=PEPE&period=5m', {
        code: '51000',
        msg: 'Parameter ccy error',
        data: []
      })
    ).toBe('error')
    expect(r('/api/v5/public/instruments?instType=SWAP', { data: [] })).toBe('malformed')
    expect(r('/api/v5/market/books', { code: '0', msg: '', data: [] })).toBe('unknown')
  })
})
