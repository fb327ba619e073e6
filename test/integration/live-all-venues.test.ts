/**
 * SOURCES=live through ONE real server pointed at the four local venue protocol servers at once (Binance
 * USD-M, Bybit v5 linear, OKX v5 swaps, Deribit options): the venues run side by side without stepping on
 * each other. Every expected value is computed here from what the test publishes and from the fixtures,
 * not with the production code:
 * - /v1/health lists the four sources, each connected, and the service is ok;
 * - the screener holds one row per (exchange, symbol) of the three perpetual venues (Binance and Bybit
 *   share the symbols BTCUSDT, ETHUSDT and 1000PEPEUSDT), each with its own venue's funding rate and
 *   interval, and for BTC its own open interest in USD;
 * - the options chain reflects the Deribit fixture;
 * - /v1/confirm takes its funding from the primary market of a base: Binance, else Bybit, else OKX.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { jsonBody, startTestServer } from '../helpers/server.js'
import { BinanceTestServer } from '../helpers/venues/binance-server.js'
import * as BN from '../helpers/venues/binance-fixtures.js'
import { BybitTestServer } from '../helpers/venues/bybit-server.js'
import * as BB from '../helpers/venues/bybit-fixtures.js'
import { OkxTestServer } from '../helpers/venues/okx-server.js'
import * as OK from '../helpers/venues/okx-fixtures.js'
import { DeribitTestServer } from '../helpers/venues/deribit-server.js'
import { chain, expiryCode, type OptionSpec } from '../helpers/venues/deribit-fixtures.js'

const NOW = Date.now()
const HOUR = 3_600_000
/** exchange time of every Deribit book summary row in this test */
const QUOTE_TS = NOW - 1_234
const CHAINS = { BTC: chain('BTC', NOW), ETH: chain('ETH', NOW) }

/** Funding rates each venue publishes in this test (strings, as the venues send them); distinct per venue. */
const BINANCE_FUNDING: Readonly<Record<(typeof BN.PERPS)[number], string>> = {
  BTCUSDT: '0.00010000',
  ETHUSDT: '0.00005000',
  SOLVUSDT: '-0.00050000',
  '1000PEPEUSDT': '0.00020000'
}
const BYBIT_FUNDING: Readonly<Record<(typeof BB.PERPS)[number], string>> = {
  BTCUSDT: '0.00012',
  ETHUSDT: '0.00007',
  ORDIUSDT: '0.005',
  '1000PEPEUSDT': '-0.0002'
}
const OKX_FUNDING: Readonly<Record<(typeof OK.SWAPS)[number], string>> = {
  'BTC-USDT-SWAP': '0.00008',
  'ETH-USDT-SWAP': '0.00006',
  'DOGE-USDT-SWAP': '-0.0003',
  'PEPE-USDT-SWAP': '0.00015'
}
/** Binance funding intervals: fundingInfo lists the markets off the 8 h default. */
const BINANCE_HOURS: Readonly<Record<string, number>> = Object.fromEntries(
  BN.PERPS.map((s) => [s, BN.FUNDING_INFO.find((f) => f.symbol === s)?.fundingIntervalHours ?? 8])
)
/** BTC open interest: Binance in contracts (USD = contracts x mark), Bybit and OKX with their USD value. */
const BINANCE_BTC_OI = '80000.5'
const BYBIT_BTC_OI_USD = '5044017325.01'
const OKX_BTC_OI_USD = '3039488326.79'

let binance: BinanceTestServer
let bybit: BybitTestServer
let okx: OkxTestServer
let deribit: DeribitTestServer
let srv: Awaited<ReturnType<typeof startTestServer>>
let key = ''

type Row = Record<string, unknown>
const get = async (p: string): Promise<Row & { rows: Row[] }> =>
  jsonBody(await fetch(`${srv.base}${p}`, { headers: { 'x-api-key': key } }))

/** Polls `read` every 25 ms until `ready` holds or `timeoutMs` passes; returns the last answer either way. */
async function pollUntil<T>(read: () => Promise<T>, ready: (v: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs
  let v = await read()
  while (!ready(v) && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 25))
    v = await read()
  }
  return v
}

const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0)
const unexpired = (options: OptionSpec[]): OptionSpec[] => options.filter((o) => o.expiryMs > Date.now())

beforeAll(async () => {
  ;[binance, bybit, okx, deribit] = await Promise.all([
    new BinanceTestServer().start(),
    new BybitTestServer().start(),
    new OkxTestServer().start(),
    new DeribitTestServer().start()
  ])
  // REST state the adapters read on start (polls) or receive on subscribe (Bybit ticker snapshots)
  for (const s of BN.PERPS) {
    binance.openInterest.set(s, s === 'BTCUSDT' ? BINANCE_BTC_OI : '1000')
    binance.longShort.set(s, '1')
  }
  for (const s of BB.PERPS) {
    bybit.setTicker(s, {
      fundingRate: BYBIT_FUNDING[s],
      ...(s === 'BTCUSDT' && { openInterest: '52000.125', openInterestValue: BYBIT_BTC_OI_USD })
    })
    bybit.ratios.set(s, ['0.5', '0.5'])
  }
  for (const c of ['BTC', 'ETH', 'DOGE']) okx.longShort.set(c, '1')
  deribit.chains.set('BTC', CHAINS.BTC)
  deribit.chains.set('ETH', CHAINS.ETH)
  deribit.creationTs = () => QUOTE_TS

  srv = await startTestServer({
    SOURCES: 'live',
    BINANCE_WS_URL: binance.wsUrl,
    BINANCE_REST_URL: binance.restUrl,
    BYBIT_WS_URL: bybit.wsUrl,
    BYBIT_REST_URL: bybit.restUrl,
    OKX_WS_URL: okx.wsUrl,
    OKX_REST_URL: okx.restUrl,
    DERIBIT_WS_URL: deribit.wsUrl,
    DERIBIT_REST_URL: deribit.restUrl,
    INGEST_FLUSH_MS: '50'
  })
  key = (await srv.running.ctx.keys.create('trader', 'live-all')).key
  await Promise.all([
    binance.waitSubscribed(['!markPrice@arr@1s', ...BN.PERPS.map((s) => `${s.toLowerCase()}@aggTrade`)]),
    bybit.waitSubscribed(BB.PERPS.flatMap((s) => [`publicTrade.${s}`, `tickers.${s}`])),
    okx.waitSubscribed(OK.SWAPS.flatMap((s) => ['funding-rate', 'open-interest', 'mark-price'].map((c) => `${c}|${s}`)))
  ])

  // the streamed readings: Binance mark price + funding for all markets, OKX mark, funding and open interest
  const now = Date.now()
  binance.publish(
    '!markPrice@arr@1s',
    BN.PERPS.map((s) => BN.markPriceUpdate(s, now, BINANCE_FUNDING[s], now + HOUR))
  )
  const settle = Math.ceil(now / HOUR) * HOUR
  for (const s of OK.SWAPS) {
    okx.publish('mark-price', s, [OK.markPriceRow(s, now)])
    okx.publish('funding-rate', s, [OK.fundingRow(s, now, OKX_FUNDING[s], settle, OK.INTERVAL_HOURS[s]!)])
    okx.publish('open-interest', s, [
      s === 'BTC-USDT-SWAP'
        ? { ...(OK.openInterestRow(s, '3133489.89', now) as object), oiUsd: OKX_BTC_OI_USD }
        : OK.openInterestRow(s, '1000', now)
    ])
  }
})

afterAll(async () => {
  await srv?.stop()
  await Promise.all([binance?.stop(), bybit?.stop(), okx?.stop(), deribit?.stop()])
})

/** What the three perpetual fixtures list: exchange, symbol, base, funding rate and interval. */
const EXPECTED_ROWS = [
  ...BN.PERPS.map((s) => ({
    exchange: 'binance',
    symbol: s,
    base: s === '1000PEPEUSDT' ? 'PEPE' : s.replace(/USDT$/, ''),
    funding_rate: Number(BINANCE_FUNDING[s]),
    funding_interval_hours: BINANCE_HOURS[s]!
  })),
  ...BB.PERPS.map((s) => ({
    exchange: 'bybit',
    symbol: s,
    base: s === '1000PEPEUSDT' ? 'PEPE' : s.replace(/USDT$/, ''),
    funding_rate: Number(BYBIT_FUNDING[s]),
    funding_interval_hours: BB.FUNDING_HOURS[s]!
  })),
  ...OK.SWAPS.map((s) => ({
    exchange: 'okx',
    symbol: s,
    base: s.split('-')[0]!,
    funding_rate: Number(OKX_FUNDING[s]),
    funding_interval_hours: OK.INTERVAL_HOURS[s]!
  }))
]
const rowKey = (r: Row): string => `${r['exchange']}|${r['symbol']}`

/** The unfiltered screener once every published reading has arrived (each row's funding, the BTC OI). */
async function screenerRows(): Promise<Row[]> {
  const { rows } = await pollUntil(
    () => get('/v1/derivatives/screener'),
    ({ rows }) =>
      EXPECTED_ROWS.every((e) => rows.some((r) => rowKey(r) === rowKey(e) && r['funding_rate'] === e.funding_rate)) &&
      rows.filter((r) => r['base'] === 'BTC' && r['open_interest_usd'] !== null).length === 3
  )
  return rows
}

describe('SOURCES=live: the four venues through one real server', () => {
  it('/v1/health lists binance, bybit, okx and deribit, each connected, and the service is ok', async () => {
    const names = ['binance', 'bybit', 'okx', 'deribit']
    const health = await pollUntil(
      async () => jsonBody(await fetch(`${srv.base}/v1/health`)),
      (h) => h.status === 'ok' && h.sources.length === 4 && h.sources.every((s: Row) => s['connected'] === true)
    )
    expect(health.status).toBe('ok')
    expect(health.sources.map((s: Row) => s['name'])).toEqual(names)
    const markets: Record<string, number> = {
      binance: BN.PERPS.length,
      bybit: BB.PERPS.length,
      okx: OK.SWAPS.length,
      deribit: unexpired(CHAINS.BTC).length + unexpired(CHAINS.ETH).length
    }
    for (const name of names) {
      expect(
        health.sources.find((s: Row) => s['name'] === name),
        name
      ).toMatchObject({
        synthetic: false,
        connected: true,
        phase: 'live',
        markets: markets[name],
        parse_errors: 0,
        unknown_messages: 0
      })
    }
  })

  it('the screener holds every perpetual market of the three venues, each with its own funding and OI', async () => {
    const wanted = new Set(EXPECTED_ROWS.map(rowKey))
    const rows = await screenerRows()
    // rows are keyed by (exchange, symbol): Binance's and Bybit's BTCUSDT are two rows, not one
    expect(rows).toHaveLength(BN.PERPS.length + BB.PERPS.length + OK.SWAPS.length)
    expect(new Set(rows.map(rowKey))).toEqual(wanted)
    for (const e of EXPECTED_ROWS) {
      const row = rows.find((r) => rowKey(r) === rowKey(e))
      expect(row, rowKey(e)).toMatchObject(e)
      expect(row!['funding_rate_annualized'], rowKey(e)).toBeCloseTo(
        (e.funding_rate * 8760) / e.funding_interval_hours,
        12
      )
    }
    const btc = Object.fromEntries(rows.filter((r) => r['base'] === 'BTC').map((r) => [r['exchange'], r]))
    expect(Object.keys(btc).sort()).toEqual(['binance', 'bybit', 'okx'])
    expect(btc['binance']).toMatchObject({
      symbol: 'BTCUSDT',
      funding_rate: 0.0001,
      funding_interval_hours: 8,
      open_interest_usd: Number(BINANCE_BTC_OI) * Number(BN.MARK['BTCUSDT'])
    })
    expect(btc['bybit']).toMatchObject({
      symbol: 'BTCUSDT',
      funding_rate: 0.00012,
      funding_interval_hours: 8,
      open_interest_usd: Number(BYBIT_BTC_OI_USD)
    })
    expect(btc['okx']).toMatchObject({
      symbol: 'BTC-USDT-SWAP',
      funding_rate: 0.00008,
      funding_interval_hours: 8,
      open_interest_usd: Number(OKX_BTC_OI_USD)
    })
    // the exchange filter still splits them
    for (const ex of ['binance', 'bybit', 'okx']) {
      const only = (await get(`/v1/derivatives/screener?exchange=${ex}`)).rows
      expect(only.map(rowKey).sort(), ex).toEqual(
        EXPECTED_ROWS.filter((e) => e.exchange === ex)
          .map(rowKey)
          .sort()
      )
    }
  })

  it('/v1/options/chain?currency=BTC reflects the Deribit fixture', async () => {
    const body = await pollUntil(
      () => get('/v1/options/chain?currency=BTC'),
      (b) => b['updated'] === Math.floor(QUOTE_TS / 1000)
    )
    const live = unexpired(CHAINS.BTC)
    const calls = live.filter((o) => o.type === 'C')
    const puts = live.filter((o) => o.type === 'P')
    const callOi = sum(calls.map((o) => o.oi))
    const putOi = sum(puts.map((o) => o.oi))
    const expiries = [...new Set(live.map((o) => o.expiryMs))]
    expect(body).toMatchObject({
      currency: 'BTC',
      updated: Math.floor(QUOTE_TS / 1000),
      total_call_oi: callOi,
      total_put_oi: putOi,
      total_call_volume: sum(calls.map((o) => o.volume)),
      total_put_volume: sum(puts.map((o) => o.volume)),
      pcr_oi: putOi / callOi
    })
    const summary = body['expiry_summary'] as Record<string, Row>
    expect(Object.keys(summary).sort()).toEqual(expiries.map(expiryCode).sort())
    for (const t of expiries) {
      const of = live.filter((o) => o.expiryMs === t)
      expect(summary[expiryCode(t)], expiryCode(t)).toMatchObject({
        call_oi: sum(of.filter((o) => o.type === 'C').map((o) => o.oi)),
        put_oi: sum(of.filter((o) => o.type === 'P').map((o) => o.oi))
      })
    }
  })

  it('/v1/confirm takes funding from the primary market: Binance first, else Bybit, else OKX', async () => {
    await screenerRows() // every venue's funding has arrived (else a later venue would stand in for Binance)
    const confirm = async (base: string): Promise<Row & { derivatives: Row }> =>
      jsonBody(await fetch(`${srv.base}/v1/confirm?symbol=${base}&direction=long`, { headers: { 'x-api-key': key } }))
    // BTC trades on all three venues: Binance's rate, not Bybit's or OKX's
    const btc = await confirm('BTC')
    expect(btc).toMatchObject({ symbol: 'BTC', derivatives: { funding_rate: Number(BINANCE_FUNDING.BTCUSDT) } })
    // PEPE too (Binance's 1000PEPEUSDT)
    expect((await confirm('PEPE')).derivatives['funding_rate']).toBe(Number(BINANCE_FUNDING['1000PEPEUSDT']))
    // bases a single venue lists: ORDI only on Bybit, DOGE only on OKX, SOLV only on Binance
    const onlyOn = (base: string): string[] =>
      [...new Set(EXPECTED_ROWS.filter((e) => e.base === base).map((e) => e.exchange))].sort()
    expect(onlyOn('ORDI')).toEqual(['bybit'])
    expect(onlyOn('DOGE')).toEqual(['okx'])
    expect(onlyOn('SOLV')).toEqual(['binance'])
    expect((await confirm('ORDI')).derivatives['funding_rate']).toBe(Number(BYBIT_FUNDING.ORDIUSDT))
    expect((await confirm('DOGE')).derivatives['funding_rate']).toBe(Number(OKX_FUNDING['DOGE-USDT-SWAP']))
    expect((await confirm('SOLV')).derivatives['funding_rate']).toBe(Number(BINANCE_FUNDING.SOLVUSDT))
  })
})
