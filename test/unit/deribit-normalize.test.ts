import { describe, it, expect } from 'vitest'
import type { NormalizedRecord, OptionQuoteRecord } from '../../engine/records/types.js'
import { validateRecord } from '../../engine/records/validate.js'
import { DeribitNormalizer } from '../../ingest/normalize/deribit.js'
import { matchesSymbols, optionInstruments } from '../../ingest/normalize/deribit-instruments.js'
import { rpcChannel } from '../../ingest/sources/deribit/rpc-socket.js'
import { EXPIRY_GRACE_MS, nextDiscoveryAt, pollRequests } from '../../ingest/sources/deribit/schedule.js'
import { snapshotMetrics } from '../../ingest/sources/deribit/snapshot-metrics.js'
import {
  LINEAR_ROWS,
  bookSummaryRow,
  chain,
  expiries,
  instrumentRow,
  rpcError,
  rpcResult
} from '../helpers/venues/deribit-fixtures.js'

/** 2026-11-22 10:00 UTC: the 22NOV26 options expired two hours ago */
const NOW = Date.UTC(2026, 10, 22, 10)
const BTC = chain('BTC', NOW)
const ETH = chain('ETH', NOW)
const SUMMARY_BTC = '/public/get_book_summary_by_currency?currency=BTC&kind=option'
const INSTRUMENTS_BTC = '/public/get_instruments?currency=BTC&kind=option&expired=false'

function run(n: DeribitNormalizer, channel: string, msg: unknown): { outcome: string; records: NormalizedRecord[] } {
  const records: NormalizedRecord[] = []
  const outcome = n.normalize(channel, msg, NOW, records)
  return { outcome, records }
}

const quotes = (records: NormalizedRecord[]): OptionQuoteRecord[] => records as OptionQuoteRecord[]

describe('Deribit fixtures', () => {
  it('have names of every form: one- and two-digit days, several expiries, calls and puts', () => {
    const x = expiries(NOW)
    expect(x).toEqual({
      oneDigit: Date.UTC(2026, 11, 1, 8),
      twoDigit: Date.UTC(2026, 10, 23, 8),
      far: Date.UTC(2027, 2, 2, 8),
      expired: Date.UTC(2026, 10, 22, 8)
    })
    const names = BTC.map((o) => o.name)
    expect(names).toContain('BTC-1DEC26-100000-C')
    expect(names).toContain('BTC-23NOV26-95000-P')
    expect(names).toContain('BTC-2MAR27-250000-C')
    expect(names).toContain('BTC-22NOV26-95000-P') // expired at 08:00
    expect(ETH.map((o) => o.name)).toContain('ETH-1DEC26-3200-P')
  })
})

describe('Deribit raw message -> normalized record', () => {
  it('book summary row -> option_quote: exchange time, base-coin prices, IV in percent, OI and volume in coins', () => {
    const n = new DeribitNormalizer()
    const row = bookSummaryRow(
      BTC.find((o) => o.name === 'BTC-1DEC26-90000-C')!,
      NOW - 5
    )
    const { outcome, records } = run(n, SUMMARY_BTC, rpcResult([row], 17))
    expect(outcome).toBe('ok')
    expect(records).toMatchInlineSnapshot(`
      [
        {
          "ask": 0.0861,
          "bid": 0.0851,
          "exchange": "deribit",
          "instrument": "BTC-1DEC26-90000-C",
          "kind": "option_quote",
          "mark_iv": 50.29,
          "mark_price": 0.0856,
          "open_interest": 20,
          "ts": 1795341599995,
          "underlying_price": 97150.25,
          "volume_24h": 1,
        },
      ]
    `)
    expect(validateRecord('option_quote', records[0]).ok).toBe(true)
  })

  it('maps a whole chain answer, skipping the instruments that have expired', () => {
    const n = new DeribitNormalizer()
    const { outcome, records } = run(
      n,
      SUMMARY_BTC,
      rpcResult(
        BTC.map((o) => bookSummaryRow(o, NOW)),
        3
      )
    )
    expect(outcome).toBe('ok')
    const live = BTC.filter((o) => o.expiryMs > NOW)
    expect(live).toHaveLength(48)
    expect(quotes(records).map((q) => q.instrument)).toEqual(live.map((o) => o.name))
    expect(n.expiredRows).toBe(2)
    // every row of one answer keeps the answer's exchange timestamp
    expect(new Set(records.map((r) => r.ts))).toEqual(new Set([NOW]))
    const far = quotes(records).find((q) => q.instrument === 'BTC-2MAR27-40000-P')!
    expect(far).toMatchObject({
      underlying_price: 98_898.95,
      mark_price: 0.036,
      mark_iv: 77.16,
      bid: 0.0355,
      ask: 0.0365
    })
  })

  it('no bid, no IV and missing volume become null, null and 0', () => {
    const n = new DeribitNormalizer()
    const row = { ...bookSummaryRow(ETH[0]!, NOW), bid_price: null, ask_price: null, mark_iv: undefined, volume: null }
    const [q] = quotes(run(n, '/public/get_book_summary_by_instrument?instrument_name=x', rpcResult([row], 4)).records)
    expect(q).toMatchObject({ instrument: ETH[0]!.name, bid: null, ask: null, mark_iv: null, volume_24h: 0 })
  })

  it('bid, ask and IV that are "", null or 0 become null and an empty volume 0; a value that is not a number is malformed', () => {
    const n = new DeribitNormalizer()
    const base = bookSummaryRow(ETH[0]!, NOW)
    const path = '/public/get_book_summary_by_instrument?instrument_name=x'
    const absent = [
      { bid_price: '', ask_price: '', mark_iv: '', volume: '' },
      { bid_price: 0, ask_price: 0, mark_iv: 0, volume: 0 },
      { bid_price: null, ask_price: undefined, mark_iv: null, volume: undefined }
    ]
    for (const over of absent) {
      const { outcome, records } = run(n, path, rpcResult([{ ...base, ...over }], 4))
      expect(outcome, JSON.stringify(over)).toBe('ok')
      expect(records).toMatchObject([{ bid: null, ask: null, mark_iv: null, volume_24h: 0 }])
    }
    for (const over of [{ bid_price: 'abc' }, { ask_price: -0.01 }, { mark_iv: '77' }, { volume: 'many' }]) {
      expect(run(n, path, rpcResult([{ ...base, ...over }], 5)), JSON.stringify(over)).toEqual({
        outcome: 'malformed',
        records: []
      })
    }
  })

  it('linear USDC options (`d` decimal strikes) are converted from USDC to base coin', () => {
    const n = new DeribitNormalizer()
    const { outcome, records } = run(
      n,
      '/public/get_book_summary_by_currency?currency=USDC&kind=option',
      rpcResult(LINEAR_ROWS, 9)
    )
    expect(outcome).toBe('ok')
    const [xrp, sol] = quotes(records)
    expect(xrp).toMatchObject({ instrument: 'XRP_USDC-30JUN27-0d625-C', open_interest: 12_000, volume_24h: 1_500 })
    expect(xrp!.mark_price).toBeCloseTo(0.054 / 0.6, 12)
    expect(xrp!.bid).toBeCloseTo(0.051 / 0.6, 12)
    expect(sol).toMatchObject({ instrument: 'SOL_USDC-4DEC26-17d5-P', mark_price: 0.0005, bid: null, ask: 0.001 })
  })

  it('uses the instrument list for expiries and linear/inverse', () => {
    const n = new DeribitNormalizer()
    const listed = BTC.filter((o) => o.expiryMs > NOW)
    expect(run(n, INSTRUMENTS_BTC, rpcResult(listed.map((o, i) => instrumentRow(o, i)))).outcome).toBe('ok')
    expect(n.instrument('BTC-23NOV26-90000-C')).toEqual({
      name: 'BTC-23NOV26-90000-C',
      expiryMs: Date.UTC(2026, 10, 23, 8),
      linear: false
    })
    expect(optionInstruments(rpcResult([{ kind: 'future', instrument_name: 'BTC-PERPETUAL' }]))).toEqual([])
    expect(optionInstruments({ result: 'nope' })).toBeNull()
  })

  it('a bad row marks the answer malformed once and the good rows are kept', () => {
    const n = new DeribitNormalizer()
    const good = bookSummaryRow(BTC[0]!, NOW)
    const rows = [
      good,
      { ...good, instrument_name: 42 },
      { ...good, mark_price: 'x' },
      { ...good, creation_timestamp: 1.5 },
      { ...good, open_interest: -1 },
      { ...good, underlying_price: 0 },
      null,
      { ...good, instrument_name: 'BTC-PERPETUAL' } // not an option: skipped, not an error
    ]
    const { outcome, records } = run(n, SUMMARY_BTC, rpcResult(rows, 5))
    expect(outcome).toBe('malformed')
    expect(records).toHaveLength(1)
    expect(run(n, SUMMARY_BTC, rpcResult({ not: 'rows' }, 6)).outcome).toBe('malformed')
    expect(run(n, SUMMARY_BTC, { jsonrpc: '2.0', id: 7 }).outcome).toBe('malformed')
  })

  it('tells protocol chatter, venue errors and unknown messages apart', () => {
    const n = new DeribitNormalizer()
    const outcome = (channel: string, msg: unknown): string => run(n, channel, msg).outcome
    expect(outcome('ws', { jsonrpc: '2.0', method: 'heartbeat', params: { type: 'heartbeat' } })).toBe('control')
    expect(outcome('ws', { jsonrpc: '2.0', method: 'heartbeat', params: { type: 'test_request' } })).toBe('control')
    expect(outcome('ws', { jsonrpc: '2.0', method: 'heartbeat', params: { type: 'nap' } })).toBe('malformed')
    expect(outcome('/public/set_heartbeat?interval=30', rpcResult('ok', 1))).toBe('control')
    expect(outcome('/public/test', rpcResult({ version: '1.2.26' }, 2))).toBe('control')
    expect(outcome(SUMMARY_BTC, rpcError(10028, 'too_many_requests', 8))).toBe('error')
    expect(outcome('ws', rpcError(-32700, 'Parse error', null))).toBe('error')
    const ticker = {
      jsonrpc: '2.0',
      method: 'subscription',
      params: { channel: 'ticker.BTC-PERPETUAL.100ms', data: {} }
    }
    expect(outcome('ws', ticker)).toBe('unknown')
    expect(outcome('ws', rpcResult([], 99))).toBe('unknown') // an answer to no request of ours
    expect(outcome('/public/get_index_price?index_name=btc_usd', rpcResult({ index_price: 1 }, 3))).toBe('unknown')
    expect(outcome('ws', [1, 2])).toBe('malformed')
    expect(outcome('ws', { error: 'boom' })).toBe('malformed')
  })
})

describe('Deribit chain snapshots -> options metrics', () => {
  it('one metrics row per currency per batch, at the newest quote time, even when row times differ', () => {
    const n = new DeribitNormalizer()
    const rows = BTC.map((o, i) => bookSummaryRow(o, NOW + (i % 3)))
    const records: NormalizedRecord[] = []
    n.normalize(SUMMARY_BTC, rpcResult(rows, 1), NOW, records)
    n.normalize(
      '/public/get_book_summary_by_currency?currency=ETH&kind=option',
      rpcResult(
        ETH.map((o) => bookSummaryRow(o, NOW)),
        2
      ),
      NOW,
      records
    )
    const chunks = snapshotMetrics(records)
    const metrics = chunks.find((c) => c.table === 'options_metrics')!
    expect(metrics.rows).toBe(2)
    const lines = new TextDecoder().decode(metrics.data).trim().split('\n')
    expect(lines.map((l) => l.split('\t').slice(0, 2))).toEqual([
      [String(NOW + 2), 'BTC'],
      [String(NOW), 'ETH']
    ])
    expect(chunks.find((c) => c.table === 'options_expiry_metrics')!.rows).toBe(6)
    expect(snapshotMetrics([])).toEqual([])
  })
})

describe('Deribit requests and schedule', () => {
  it('names each request channel after its method and params', () => {
    expect(rpcChannel('public/get_book_summary_by_currency', { currency: 'ETH', kind: 'option' })).toBe(
      '/public/get_book_summary_by_currency?currency=ETH&kind=option'
    )
    expect(rpcChannel('public/test', {})).toBe('/public/test')
  })

  it('rediscovers hourly and just after each 08:00 UTC expiry', () => {
    const hour = 3_600_000
    expect(nextDiscoveryAt(Date.UTC(2026, 10, 22, 10), hour)).toBe(Date.UTC(2026, 10, 22, 11))
    expect(nextDiscoveryAt(Date.UTC(2026, 10, 22, 7, 30), hour)).toBe(Date.UTC(2026, 10, 22, 8) + EXPIRY_GRACE_MS)
    expect(nextDiscoveryAt(Date.UTC(2026, 10, 22, 8, 0, 30), hour)).toBe(Date.UTC(2026, 10, 22, 8) + EXPIRY_GRACE_MS)
    expect(nextDiscoveryAt(Date.UTC(2026, 10, 22, 23, 30), hour)).toBe(Date.UTC(2026, 10, 23, 0, 30))
  })

  it('polls per currency, or per unexpired instrument when DERIBIT_SYMBOLS restricts the feed', () => {
    const metas = BTC.map((o) => ({ name: o.name, expiryMs: o.expiryMs, linear: false }))
    expect(pollRequests(['BTC', 'ETH'], metas, false, NOW)).toEqual([
      { method: 'public/get_book_summary_by_currency', params: { currency: 'BTC', kind: 'option' } },
      { method: 'public/get_book_summary_by_currency', params: { currency: 'ETH', kind: 'option' } }
    ])
    const picked = metas.filter((m) => matchesSymbols(m.name, ['BTC-22NOV26', 'BTC-1DEC26-100000-C']))
    expect(picked.map((m) => m.name)).toEqual(['BTC-1DEC26-100000-C', 'BTC-22NOV26-95000-C', 'BTC-22NOV26-95000-P'])
    expect(pollRequests(['BTC'], picked, true, NOW)).toEqual([
      { method: 'public/get_book_summary_by_instrument', params: { instrument_name: 'BTC-1DEC26-100000-C' } }
    ])
  })
})

describe('snapshot time of a poll (engine/options/chain-at.ts)', () => {
  it('stamps every row of a whole-chain answer with its newest creation time', () => {
    const n = new DeribitNormalizer()
    const rows = BTC.map((o, i) => bookSummaryRow(o, NOW - (i % 5)))
    const { records } = run(n, SUMMARY_BTC, rpcResult(rows, 1))
    expect(records.length).toBeGreaterThan(40)
    expect(new Set(records.map((r) => r.ts))).toEqual(new Set([NOW]))
  })

  it('stamps the rows of a DERIBIT_SYMBOLS pass with the pass mark, and each row its own time without one', () => {
    const n = new DeribitNormalizer()
    const path = (name: string): string => `/public/get_book_summary_by_instrument?instrument_name=${name}`
    const [a, b] = [BTC[0]!, BTC[1]!]
    expect(run(n, path(a.name), rpcResult([bookSummaryRow(a, NOW + 7)], 1)).records[0]!.ts).toBe(NOW + 7)
    expect(run(n, '/tidewatch/poll_pass', { result: NOW - 100 }).outcome).toBe('control')
    expect(run(n, path(a.name), rpcResult([bookSummaryRow(a, NOW + 3)], 2)).records[0]!.ts).toBe(NOW - 100)
    expect(run(n, path(b.name), rpcResult([bookSummaryRow(b, NOW + 9)], 3)).records[0]!.ts).toBe(NOW - 100)
    expect(run(n, '/tidewatch/poll_pass', { result: 'soon' }).outcome).toBe('malformed')
  })
})
