/**
 * `GET /v1/confirm/history` and `/v1/confirm/evaluation` over a real server and chDB store: three days of a
 * market (hourly trades on a seeded random walk, funding and long/short in regimes that crowd longs, then
 * shorts), received now. The evaluation is recomputed independently here, from the stored candles (the
 * candle history) and the confirm history's answers, and must equal the endpoint's numbers; without a fixed
 * `known_by` every step answers what it knew then (nothing), and that evaluation is recomputed the same way.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ingestRecords, jsonBody, startTestServer, TEST_ADMIN_TOKEN } from '../helpers/server.js'
import { mulberry32 } from '../helpers/mulberry32.js'
import { until } from '../helpers/until.js'

const H = 3_600_000
const SEED = 20260101
const HORIZONS: [string, number][] = [
  ['1h', H],
  ['4h', 4 * H],
  ['24h', 24 * H]
]
/** the range evaluated: 48 hourly steps starting 60 hours ago, so the 24h horizon of the last steps is beyond the data */
const HOUR_NOW = Math.floor(Date.now() / H) * H
const START = HOUR_NOW - 60 * H
const END = START + 48 * H

let srv: Awaited<ReturnType<typeof startTestServer>>
let key = ''
/** receive-time bound after every record was stored */
let knownBy = 0

const get = async (path: string) => {
  const res = await fetch(`${srv.base}${path}`, { headers: { 'x-api-key': key } })
  const body = await jsonBody(res)
  expect(res.status, JSON.stringify(body)).toBe(200)
  return body
}

beforeAll(async () => {
  console.log(`confirm-history seed ${SEED}`)
  srv = await startTestServer()
  const rand = mulberry32(SEED)
  const m = { exchange: 'binance', symbol: 'BTCUSDT', base: 'BTC' } as const
  const trades = []
  const funding = []
  const ratios = []
  let price = 60_000
  for (let t = START - 24 * H, i = 0; t < HOUR_NOW; t += H, i++) {
    price *= 1 + (rand() - 0.5) * 0.02
    // one hour without trades: a step whose entry or exit candle is missing
    if (t !== START + 10 * H) {
      trades.push({
        ...m,
        market: 'perp',
        quote: 'USDT',
        ts: t + 60_000,
        side: 'buy',
        price,
        qty: 1,
        trade_id: `t${i}`
      })
    }
    // twelve-hour regimes: longs crowded (high funding, many longs), then shorts crowded
    const crowdedLongs = Math.floor(i / 12) % 2 === 0
    funding.push({
      ...m,
      ts: t + 120_000,
      funding_rate: (crowdedLongs ? 1 : -1) * (0.0005 + rand() * 0.0015),
      interval_hours: 8
    })
    ratios.push({ ...m, ts: t + 120_000, long_short_ratio: crowdedLongs ? 2 + rand() * 2 : 0.25 + rand() * 0.25 })
  }
  await ingestRecords(srv.base, 'trade', trades)
  await ingestRecords(srv.base, 'funding', funding)
  await ingestRecords(srv.base, 'long_short', ratios)
  const created = await fetch(`${srv.base}/v1/admin/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
    body: JSON.stringify({ plan: 'pro', name: 'confirm-history' })
  })
  key = (await jsonBody(created)).key
  await until('the candles stored', async () => (await candles()).size === trades.length, 60_000)
  knownBy = Date.now()
}, 120_000)

afterAll(async () => {
  await srv?.stop()
})

/** Closes of the stored hourly candles keyed by candle end, from the candle history. */
async function candles(): Promise<Map<number, number>> {
  const body = await get(
    `/v1/historical/ohlcv?symbol=BTC&timeframe=1h&start_time=${START - 24 * H}&end_time=${HOUR_NOW}&limit=10000`
  )
  return new Map(body.data.map((c: { timestamp: number; close: number }) => [c.timestamp + H, c.close]))
}

interface Stats {
  n: number
  mean: number | null
  median: number | null
  hit_rate: number | null
  ci95: [number, number] | null
  beyond_data: number
  no_price: number
}

/** The evaluation recomputed from the confirm history's answers and the candles (independent of engine/). */
function recompute(
  answers: { timestamp: number; action: string; confidence: string }[],
  closes: Map<number, number>,
  direction: string
) {
  const dataEnd = Math.max(...closes.keys())
  const stats = (steps: typeof answers): Record<string, Stats> => {
    const out: Record<string, Stats> = {}
    for (const [name, ms] of HORIZONS) {
      const r: number[] = []
      let beyond = 0
      let noPrice = 0
      for (const a of steps) {
        if (a.timestamp + ms > dataEnd) beyond++
        else if (!closes.has(a.timestamp) || !closes.has(a.timestamp + ms)) noPrice++
        else {
          const x = closes.get(a.timestamp + ms)! / closes.get(a.timestamp)! - 1
          r.push(direction === 'short' ? -x : x)
        }
      }
      const n = r.length
      const mean = n ? r.reduce((s, x) => s + x, 0) / n : null
      const sorted = [...r].sort((a, b) => a - b)
      const median = n === 0 ? null : n % 2 ? sorted[(n - 1) / 2]! : (sorted[n / 2 - 1]! + sorted[n / 2]!) / 2
      const sd = n > 1 ? Math.sqrt(r.reduce((s, x) => s + (x - mean!) ** 2, 0) / (n - 1)) : 0
      out[name] = {
        n,
        mean,
        median,
        hit_rate: n ? r.filter((x) => x > 0).length / n : null,
        ci95: n > 1 ? [mean! - (1.96 * sd) / Math.sqrt(n), mean! + (1.96 * sd) / Math.sqrt(n)] : null,
        beyond_data: beyond,
        no_price: noPrice
      }
    }
    return out
  }
  const groups = []
  for (const action of ['CONFIRM', 'REDUCE', 'SKIP']) {
    for (const confidence of ['HIGH', 'MEDIUM']) {
      const steps = answers.filter((a) => a.action === action && a.confidence === confidence)
      groups.push({ action, confidence, answers: steps.length, horizons: stats(steps) })
    }
  }
  return {
    groups,
    baseline: { action: 'ALWAYS_CONFIRM', confidence: null, answers: answers.length, horizons: stats(answers) }
  }
}

/** Equal to 1e-12 where numbers, exactly elsewhere (the interval's 1.96 is rounded here, 1.959964 there). */
function expectClose(got: unknown, want: unknown, path: string): void {
  if (typeof want === 'number') {
    expect(typeof got, path).toBe('number')
    expect(got as number, path).toBeCloseTo(want, path.includes('ci95') ? 5 : 12)
  } else if (want !== null && typeof want === 'object') {
    expect(Object.keys(got as object).sort(), path).toEqual(Object.keys(want).sort())
    for (const [k, v] of Object.entries(want)) expectClose((got as Record<string, unknown>)[k], v, `${path}.${k}`)
  } else expect(got, path).toEqual(want)
}

describe('GET /v1/confirm/evaluation against an independent recomputation', () => {
  for (const [label, direction, fixed] of [
    ['known_by fixed after the data arrived, long', 'long', true],
    ['known_by fixed, short', 'short', true],
    ['each step its own known_by (nothing was received by then)', 'long', false]
  ] as const) {
    it(
      label,
      async () => {
        const kb = fixed ? `&known_by=${knownBy}` : ''
        const range = `start=${new Date(START).toISOString()}&end=${END}&interval=1h`
        const history = await get(`/v1/confirm/history?symbol=BTC&direction=${direction}&${range}${kb}`)
        expect(history.data).toHaveLength(48)
        expect(history.next_cursor).toBeNull()
        const evaluation = await get(
          `/v1/confirm/evaluation?symbol=BTC&direction=${direction}&${range}&horizons=1h,4h,24h${kb}`
        )
        expect(evaluation).toMatchObject({
          direction,
          steps: 48,
          price_timeframe: '1h',
          known_by: fixed ? new Date(knownBy).toISOString() : 'step',
          markets: [{ base: 'BTC', exchange: 'binance', symbol: 'BTCUSDT' }]
        })
        const want = recompute(history.data, await candles(), direction)
        expectClose({ groups: evaluation.groups, baseline: evaluation.baseline }, want, 'evaluation')
        // what the data must exercise for the comparison to mean something
        const b = evaluation.baseline.horizons
        expect(b['24h'].beyond_data).toBeGreaterThan(0)
        expect(b['1h'].no_price).toBe(2) // the hour without trades is the exit of one step and the entry of the next
        const used = evaluation.groups.filter((g: { answers: number }) => g.answers > 0)
        if (fixed) expect(used.length).toBeGreaterThanOrEqual(2)
        else expect(used.map((g: { action: string }) => g.action)).toEqual(['SKIP'])
      },
      120_000
    )
  }

  it('without symbol evaluates the plan bases by volume (here the one market) with the same numbers', async () => {
    const q = `start=${START}&end=${END}&known_by=${knownBy}`
    const one = await get(`/v1/confirm/evaluation?symbol=BTC&${q}`)
    const all = await get(`/v1/confirm/evaluation?${q}`)
    expect(all.markets).toEqual(one.markets)
    expect(all.groups).toEqual(one.groups)
    expect(all.baseline).toEqual(one.baseline)
  }, 120_000)
})

describe('GET /v1/confirm/history', () => {
  it('answers each step from what was known: nothing by the step itself, the regimes with a later known_by', async () => {
    const step = START + 30 * H
    const q = `symbol=BTC&direction=long&start=${step}&end=${step + H}`
    const then = (await get(`/v1/confirm/history?${q}`)).data[0]
    expect(then).toMatchObject({ timestamp: step, action: 'SKIP', size_mult: 0, as_of: new Date(step).toISOString() })
    expect(then.derivatives.funding_rate).toBeNull()
    const later = (await get(`/v1/confirm/history?${q}&known_by=${knownBy}`)).data[0]
    expect(later.timestamp).toBe(step)
    expect(later.derivatives.funding_rate).not.toBeNull()
  }, 60_000)
})
