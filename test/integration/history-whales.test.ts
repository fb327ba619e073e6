/**
 * The three endpoints against values recomputed here from the rows posted (no engine code in the
 * expectations; the rows: test/helpers/history-whales-data.ts): whale history, whale/price correlation and
 * snapshots, nulls for buckets without data, closed buckets only, and the 400s.
 */
import { Value } from '@sinclair/typebox/value'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PriceCorrelationResponse, SnapshotResponse, WhaleHistoryResponse } from '../../schemas/api/history-whales.js'
import { ingestRecords, jsonBody, startTestServer } from '../helpers/server.js'
import {
  MIN,
  HOUR,
  DAY,
  B,
  type Whale,
  LABELS,
  whales,
  whale,
  trades,
  funding,
  ois,
  market
} from '../helpers/history-whales-data.js'

let srv: Awaited<ReturnType<typeof startTestServer>>
let trader = ''
let free = ''
let enterprise = ''

beforeAll(async () => {
  srv = await startTestServer()
  trader = (await srv.running.ctx.keys.create('trader', 't')).key
  free = (await srv.running.ctx.keys.create('free', 'f')).key
  enterprise = (await srv.running.ctx.keys.create('enterprise', 'e')).key
  await ingestRecords(srv.base, 'whale_transfer', whales)
  await ingestRecords(
    srv.base,
    'trade',
    trades.map((t, i) => ({ ...t, ...market(t), market: 'perp', quote: 'USDT', side: 'buy', trade_id: `t${i}` }))
  )
  await ingestRecords(
    srv.base,
    'funding',
    funding.map((f) => ({ ...f, ...market(f) }))
  )
  await ingestRecords(
    srv.base,
    'open_interest',
    ois.map((o) => ({ ...o, ...market(o), oi_base: o.oi_usd / 100_000 }))
  )
})
afterAll(async () => {
  await srv.stop()
})

const get = (path: string, key = trader) => fetch(`${srv.base}${path}`, { headers: key ? { 'x-api-key': key } : {} })
async function ok(path: string, key = trader) {
  const before = Date.now()
  const res = await get(path, key)
  const body = await jsonBody(res)
  expect(res.status, JSON.stringify(body)).toBe(200)
  // closed buckets only: the range ends at the start of the bucket holding "now"
  const step = body.meta.timeframe === '1d' ? DAY : HOUR
  expect([Math.floor(before / step) * step, Math.floor(Date.now() / step) * step]).toContain(body.meta.end)
  return body
}

/** bucket starts of a served range */
const startsOf = (meta: { start: number; end: number }, step: number) =>
  Array.from({ length: (meta.end - meta.start) / step }, (_, i) => meta.start + i * step)
const within = (ts: number, t: number, step: number) => ts >= t && ts < t + step
const sum = (v: number[]) => v.reduce((a, b) => a + b, 0)
const isBtc = (w: Whale) => ['BTC', 'WBTC'].includes(w.token)
const label = (a: string) => (a.startsWith('0x') ? a.toLowerCase() : a)

function expectedWhale(t: number, step: number, metric: string) {
  const rows = whales.filter((w) => isBtc(w) && within(w.ts, t, step))
  if (rows.length === 0) return { value: null, whale_count: null, exchange_inflow: null, exchange_outflow: null }
  const usd = (type: string, exchange = false) =>
    sum(
      rows
        .filter((w) => w.event_type === type && (!exchange || LABELS.has(label(w.counterparty))))
        .map((w) => w.usd_value)
    )
  const values: Record<string, number> = {
    net_accumulation: usd('transfer_in') - usd('transfer_out'),
    inflow: usd('transfer_in'),
    outflow: usd('transfer_out'),
    volume: sum(rows.map((w) => w.usd_value)),
    event_count: rows.length
  }
  return {
    value: values[metric]!,
    whale_count: new Set(rows.map((w) => w.address)).size,
    exchange_inflow: usd('transfer_out', true),
    exchange_outflow: usd('transfer_in', true)
  }
}

describe('GET /v1/historical/whales', () => {
  it('serves each closed hour of the lookback, recomputed from the posted rows, nulls where there are none', async () => {
    for (const metric of ['net_accumulation', 'inflow', 'outflow', 'volume', 'event_count']) {
      const body = await ok(`/v1/historical/whales?asset=btc&interval=1h&lookback=48h&metric=${metric}`)
      expect(Value.Check(WhaleHistoryResponse, body)).toBe(true)
      expect(body.meta).toMatchObject({ base: 'BTC', timeframe: '1h', source: 'whale_flows_1h, whale_transfers' })
      expect(body.meta.end - body.meta.start).toBeGreaterThanOrEqual(47 * HOUR)
      const starts = startsOf(body.meta, HOUR)
      expect(body.data.map((r: { timestamp: number }) => r.timestamp)).toEqual(starts)
      for (const [i, t] of starts.entries()) {
        expect(body.data[i], `${metric} ${new Date(t).toISOString()}`).toEqual({
          timestamp: t,
          asset: 'BTC',
          metric,
          ...expectedWhale(t, HOUR, metric)
        })
      }
      expect(body.next_cursor).toBeNull()
    }
  })

  it('tells an empty bucket (null, in gaps) from a real zero (swaps only: 0)', async () => {
    const body = await ok('/v1/historical/whales?asset=BTC&interval=1h&lookback=48h')
    const at = (k: number) => body.data.find((r: { timestamp: number }) => r.timestamp === B(k))
    expect(at(3)).toMatchObject({ value: 0, whale_count: 1, exchange_inflow: 0, exchange_outflow: 0 })
    expect(at(7)).toMatchObject({ value: null, whale_count: null, exchange_inflow: null, exchange_outflow: null })
    expect(body.gaps).toContainEqual({ start: B(7), end: B(7) + HOUR })
    // the upper-case EVM address and the Solana hot wallet count as exchanges
    expect(at(4).exchange_inflow + at(4).exchange_outflow).toBeGreaterThan(0)
    expect(at(8).exchange_outflow).toBeGreaterThanOrEqual(1_500_000)
    // every null bucket is in a gap, no bucket with data is
    for (const r of body.data) {
      const inGap = body.gaps.some((g: { start: number; end: number }) => r.timestamp >= g.start && r.timestamp < g.end)
      expect(inGap).toBe(r.value === null)
    }
  })

  it('serves closed days from the daily aggregates', async () => {
    const body = await ok('/v1/historical/whales?asset=BTC&interval=1d&lookback=3d&metric=volume')
    expect(body.meta.source).toBe('whale_flows_1d, whale_transfers')
    const starts = startsOf(body.meta, DAY)
    expect(starts.length).toBeGreaterThanOrEqual(2)
    expect(body.data).toEqual(
      starts.map((t) => ({ timestamp: t, asset: 'BTC', metric: 'volume', ...expectedWhale(t, DAY, 'volume') }))
    )
  })
})

/** Independent Pearson (one-pass textbook formula); null below 3 pairs or with a constant side. */
function pearson(xs: number[], ys: number[]): number | null {
  const k = xs.length
  if (k < 3 || new Set(xs).size === 1 || new Set(ys).size === 1) return null
  const sx = sum(xs)
  const sy = sum(ys)
  const sxy = sum(xs.map((x, i) => x * ys[i]!))
  const sxx = sum(xs.map((x) => x * x))
  const syy = sum(ys.map((y) => y * y))
  return (k * sxy - sx * sy) / Math.sqrt((k * sxx - sx * sx) * (k * syy - sy * sy))
}

describe('GET /v1/historical/whales/price-correlation', () => {
  it('correlates net flow at t with the binance return at t + lag, for lags 0 to 24', async () => {
    const body = await ok('/v1/historical/whales/price-correlation?asset=BTC&lookback=48h')
    expect(Value.Check(PriceCorrelationResponse, body)).toBe(true)
    expect(body.meta).toMatchObject({ symbol: 'BTCUSDT', exchange: 'binance', base: 'BTC', timeframe: '1h', rows: 25 })
    const starts = startsOf(body.meta, HOUR)
    const flow = starts.map((t) => expectedWhale(t, HOUR, 'net_accumulation').value)
    const close = starts.map((t) => {
      const last = trades
        .filter((x) => x.exchange === 'binance' && within(x.ts, t, HOUR))
        .sort((a, b) => a.ts - b.ts)
        .pop()
      return last ? last.price : null
    })
    const ret = close.map((c, i) => (i > 0 && c !== null && close[i - 1] != null ? c / close[i - 1]! - 1 : null))
    expect(body.data.map((l: { lag: number }) => l.lag)).toEqual(Array.from({ length: 25 }, (_, i) => i))
    let some = 0
    for (const l of body.data) {
      const xs: number[] = []
      const ys: number[] = []
      flow.forEach((f, t) => {
        const r = ret[t + l.lag]
        if (f !== null && r !== null && r !== undefined) {
          xs.push(f)
          ys.push(r)
        }
      })
      expect(l.samples, `lag ${l.lag}`).toBe(xs.length)
      const want = pearson(xs, ys)
      if (want === null) expect(l.correlation).toBeNull()
      else {
        expect(l.correlation, `lag ${l.lag}`).toBeCloseTo(want, 9)
        some++
      }
    }
    expect(some).toBeGreaterThan(10)
    expect(body.meta.flow_buckets).toBe(flow.filter((f) => f !== null).length)
    expect(body.meta.price_buckets).toBe(close.filter((c) => c !== null).length)
  })
})

describe('GET /v1/historical/snapshots', () => {
  function expected(t: number, only?: string) {
    const mine = <T extends { exchange: string; ts: number }>(rows: T[]) =>
      rows.filter((r) => within(r.ts, t, HOUR) && (only === undefined || r.exchange === only))
    const byMarket = <T extends { exchange: string }>(rows: T[]) =>
      [...new Set(rows.map((r) => r.exchange))].map((ex) => rows.filter((r) => r.exchange === ex))
    const tr = mine(trades)
    const priceEx = only ?? 'binance'
    const last = tr
      .filter((x) => x.exchange === priceEx)
      .sort((a, b) => a.ts - b.ts)
      .pop()
    const oiNow = byMarket(mine(ois)).map((rows) => rows.sort((a, b) => a.ts - b.ts).at(-1)!.oi_usd)
    const rates = byMarket(mine(funding)).map(
      (rows) => (sum(rows.map((f) => f.funding_rate)) / rows.length) * (8 / rows[0]!.interval_hours)
    )
    return {
      timestamp: t,
      price: last ? last.price : null,
      volume: tr.length ? sum(tr.map((x) => x.price * x.qty)) : null,
      oi: oiNow.length ? sum(oiNow) : null,
      funding_rate: rates.length ? sum(rates) / rates.length : null,
      whale_net_flow: expectedWhale(t, HOUR, 'net_accumulation').value
    }
  }

  function expectRecords(data: Record<string, number | null>[], starts: number[], only?: string) {
    expect(data.map((r) => r['timestamp'])).toEqual(starts)
    for (const [i, t] of starts.entries()) {
      const want = expected(t, only)
      for (const [k, v] of Object.entries(data[i]!)) {
        const w = want[k as keyof typeof want]
        if (w === null) expect(v, `${k} ${new Date(t).toISOString()}`).toBeNull()
        else expect(v, `${k} ${new Date(t).toISOString()}`).toBeCloseTo(w, 6)
      }
    }
  }

  it('aligns all five metrics of an asset per bucket: price of binance, sums and means over markets', async () => {
    const body = await ok('/v1/historical/snapshots?interval=1h&lookback=48h') // symbol defaults to BTC
    expect(Value.Check(SnapshotResponse, body)).toBe(true)
    expect(body.meta).toMatchObject({ base: 'BTC', symbol: null, exchange: null, price_market: 'binance:BTCUSDT' })
    expect(body.meta.markets).toEqual(['binance:BTCUSDT', 'okx:BTC-USDT-SWAP'])
    const starts = startsOf(body.meta, HOUR)
    expect(Object.keys(body.data[0]).sort()).toEqual([
      'funding_rate',
      'oi',
      'price',
      'timestamp',
      'volume',
      'whale_net_flow'
    ])
    expectRecords(body.data, starts)
    // bucket 5: no binance trade (price null) but okx traded (volume set); bucket 4: OI from okx alone
    const at = (k: number) => body.data.find((r: { timestamp: number }) => r.timestamp === B(k))
    expect(at(10).price).toBeNull()
    expect(at(10).volume).toBeGreaterThan(0)
    expect(at(5).volume).toBeNull()
    expect(at(4).oi).toBe(5e8 * 4)
    // gaps: exactly the buckets with a null metric
    for (const r of body.data) {
      const inGap = body.gaps.some((g: { start: number; end: number }) => r.timestamp >= g.start && r.timestamp < g.end)
      expect(inGap).toBe(Object.values(r).some((v) => v === null))
    }
  })

  it('uses one market alone for a market symbol, and returns only the requested metrics', async () => {
    const body = await ok(
      '/v1/historical/snapshots?symbol=BTC-USDT-SWAP&interval=1h&lookback=48h&metrics=price,volume,oi,funding_rate'
    )
    expect(body.meta).toMatchObject({ symbol: 'BTC-USDT-SWAP', exchange: 'okx', price_market: 'okx:BTC-USDT-SWAP' })
    expect(body.meta.markets).toEqual(['okx:BTC-USDT-SWAP'])
    expectRecords(body.data, startsOf(body.meta, HOUR), 'okx')
    const one = await ok('/v1/historical/snapshots?symbol=btc&metrics=whale_net_flow&interval=1d&lookback=3d')
    expect(one.meta.source).toBe('whale_flows_1d')
    for (const r of one.data) {
      expect(Object.keys(r).sort()).toEqual(['timestamp', 'whale_net_flow'])
      expect(r.whale_net_flow).toEqual(expectedWhale(r.timestamp, DAY, 'net_accumulation').value)
    }
  })
})

describe('parameters', () => {
  it('answers 400 with a message naming the parameter for every bad value', async () => {
    const cases: [string, string, string][] = [
      ['/v1/historical/whales?asset=BTC&interval=30m', 'interval', 'whole hours, days, weeks or months'],
      ['/v1/historical/whales?asset=BTC&interval=1y', 'interval', 'whole hours'],
      ['/v1/historical/whales?asset=BTC&interval=soon', 'interval', 'count and a unit'],
      ['/v1/historical/whales?asset=BTC&lookback=3y', 'lookback', 'at most 24 months'],
      ['/v1/historical/whales?asset=BTC&interval=1d&lookback=5h', 'lookback', 'shorter than one interval'],
      ['/v1/historical/whales?asset=BTC&metric=profit', 'metric', 'metric must be one of net_accumulation'],
      ['/v1/historical/whales?asset=B$C', 'asset', 'asset must match'],
      ['/v1/historical/whales?interval=1d', 'asset', 'asset is required'],
      ['/v1/historical/whales?asset=NOPE', 'asset', 'assets with whale history: BTC, ETH, USDT'],
      ['/v1/historical/whales?asset=BTC&hours=5', 'hours', "unknown parameter 'hours'"],
      ['/v1/historical/whales/price-correlation?asset=USDT', 'asset', 'no price history for USDT'],
      ['/v1/historical/whales/price-correlation?asset=BTC&interval=15m', 'interval', 'whole hours'],
      ['/v1/historical/snapshots?metrics=price,profit', 'metrics', 'comma-separated list of whale_net_flow'],
      ['/v1/historical/snapshots?symbol=NOPE', 'symbol', 'no history for NOPE'],
      ['/v1/historical/snapshots?interval=2y', 'interval', 'whole hours']
    ]
    for (const [path, param, message] of cases) {
      const res = await get(path)
      const body = await jsonBody(res)
      expect(res.status, path).toBe(400)
      expect(body.error.param, path).toBe(param)
      expect(body.error.message, path).toContain(message)
    }
  })

  it('holds each plan to its history depth and the response to 10,000 buckets', async () => {
    const deep = await jsonBody(await get('/v1/historical/whales?asset=BTC&lookback=45d', free))
    expect(deep.error.message).toBe('the free plan reaches 30 days back; the range starts 45 days ago')
    const many = await get('/v1/historical/snapshots?interval=1h&lookback=500d', enterprise)
    expect(many.status).toBe(400)
    expect((await jsonBody(many)).error.message).toContain('more than 10000 buckets')
    // a stablecoin's whale flow alone needs no market
    const usdt = await ok('/v1/historical/snapshots?symbol=USDT&metrics=whale_net_flow&interval=1h&lookback=48h')
    expect(usdt.data.some((r: { whale_net_flow: number | null }) => r.whale_net_flow !== null)).toBe(true)
    expect((await get('/v1/historical/whales?asset=USDT', free)).status).toBe(403)
    expect((await get('/v1/historical/snapshots', '')).status).toBe(401)
  })
})

describe('beyond the raw retention', () => {
  it('keeps the flows but nulls the exchange fields of a bucket whose raw rows are gone', async () => {
    // bucket 2 has three BTC rows; dropping one raw row is what the 90-day TTL does to old buckets
    const gone = whales.find((w) => isBtc(w) && within(w.ts, B(2), HOUR))!
    await srv.running.ctx.store.command(`DELETE FROM whale_transfers WHERE tx_hash = {h:String}`, { h: gone.tx_hash })
    const body = await ok('/v1/historical/whales?asset=BTC&interval=1h&lookback=48h')
    const at = (k: number) => body.data.find((r: { timestamp: number }) => r.timestamp === B(k))
    expect(at(2)).toMatchObject({
      ...expectedWhale(B(2), HOUR, 'net_accumulation'),
      exchange_inflow: null,
      exchange_outflow: null
    })
    expect(at(2).value).not.toBeNull()
    expect(at(4)).toMatchObject(expectedWhale(B(4), HOUR, 'net_accumulation'))
  })
})

describe('assets that get whale history later', () => {
  it('an asset refused for lack of whale flows is served as soon as its first transfer is stored', async () => {
    // the server remembers the tokens it has seen (no query per request); a miss must re-read the table
    expect((await ok('/v1/historical/whales?asset=BTC&interval=1h&lookback=48h')).data.length).toBeGreaterThan(0)
    const before = await get('/v1/historical/whales?asset=LINK&interval=1h&lookback=48h')
    expect(before.status).toBe(400)
    expect((await jsonBody(before)).error.message).toContain('no whale flow history for LINK')
    await ingestRecords(srv.base, 'whale_transfer', [
      { ...whale({ ts: B(1) + 5 * MIN, token: 'LINK', usd_value: 2_000_000 }) }
    ])
    const after = await ok('/v1/historical/whales?asset=LINK&interval=1h&lookback=48h')
    const bucket = after.data.find((r: { timestamp: number }) => r.timestamp === B(1))
    expect(bucket).toMatchObject({ asset: 'LINK', value: 2_000_000, whale_count: 1 })
  })
})
