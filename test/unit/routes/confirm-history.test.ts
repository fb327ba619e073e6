/**
 * `GET /v1/confirm/history` and `/v1/confirm/evaluation` in process, over a fake store holding one market's
 * hourly candles and a confirm series that answers by a rule of the step: paging by cursor (every step once),
 * each refusal with its message (before any answer is computed), the evaluation's numbers against a hand
 * computation, and the synthetic label. Over a real store and the real confirm series:
 * test/integration/confirm-history.test.ts.
 */
import { describe, expect, it } from 'vitest'
import { confirm, EMPTY_CONFIRM_INPUTS, type ConfirmResult, type Direction } from '../../../engine/confirm/confirm.js'
import { MarketDirectory } from '../../../engine/history/markets.js'
import { LiveState } from '../../../engine/live/live-state.js'
import type { Params, Store } from '../../../engine/store/store.js'
import type { Route } from '../../../server/http/types.js'
import { confirmHistoryRoutes } from '../../../server/routes/confirm-history.js'
import { FakeStore } from '../../helpers/fake-store.js'
import { jsonOf, routeApp } from '../../helpers/route-app.js'

const H = 3_600_000
const NOW = Date.UTC(2026, 0, 10, 12, 30)
const DAY0 = Date.UTC(2026, 0, 9)
/** hourly closes of BTCUSDT from DAY0 - 1h: 100, 101, 102, ... (one candle per hour up to now) */
const closeEnding = (endMs: number): number => 100 + (endMs - DAY0) / H

function candleStore(): FakeStore {
  return new FakeStore((sql: string, params: Params | undefined) => {
    if (sql.includes('SELECT DISTINCT base, exchange, symbol')) {
      return [{ base: 'BTC', exchange: 'binance', symbol: 'BTCUSDT' }]
    }
    if (sql.includes('FROM candles_1h')) {
      const from = Number(params!['from']) * 1000
      const to = Number(params!['to']) * 1000
      const rows = []
      for (let t = Math.max(from, DAY0 - H); t < to; t += H) {
        rows.push({ t, o: 0, h: 0, l: 0, c: closeEnding(t + H), vb: 1, vq: 1, n: 1 })
      }
      return rows
    }
    return []
  })
}

/** Answers CONFIRM/HIGH on even hours, SKIP otherwise; records the calls. */
function fakeSeries(calls: { steps: readonly number[]; knownBy: number | undefined }[]) {
  return async (_s: Store, base: string, d: Direction, steps: readonly number[], knownBy?: number) => {
    calls.push({ steps, knownBy })
    return steps.map((t): ConfirmResult => {
      const r = confirm(base, d, { ...EMPTY_CONFIRM_INPUTS, long_short_ratio: 1 }, t)
      return (t / H) % 2 === 0 ? { ...r, action: 'CONFIRM', confidence: 'HIGH' } : { ...r, action: 'SKIP' }
    })
  }
}

function setup(synthetic = false) {
  const store = candleStore()
  const live = new LiveState(store)
  live.apply([
    {
      kind: 'funding',
      ts: NOW - 60_000,
      exchange: 'binance',
      symbol: 'BTCUSDT',
      base: 'BTC',
      funding_rate: 0.0001,
      interval_hours: 8
    }
  ])
  const calls: { steps: readonly number[]; knownBy: number | undefined }[] = []
  const routes: Route[] = confirmHistoryRoutes(
    { live, store, markets: new MarketDirectory(store, () => NOW) },
    () => NOW,
    fakeSeries(calls)
  )
  return { api: routeApp(routes, { synthetic }), calls }
}

const iso = (ms: number) => new Date(ms).toISOString()

describe('GET /v1/confirm/history (in process)', () => {
  it('walks the range by cursor: every step once, in order, each answer stamped with its step', async () => {
    const { api, calls } = setup()
    const key = await api.key('pro')
    const seen: number[] = []
    let cursor: number | null = null
    let pages = 0
    do {
      const q: string = `symbol=BTCUSDT&direction=long&start=${iso(DAY0 + 1)}&end=${DAY0 + 7 * H}&limit=3${cursor === null ? '' : `&cursor=${cursor}`}`
      const res = await api.request(`/v1/confirm/history?${q}`, { key })
      expect(res.status).toBe(200)
      const body = jsonOf(res)
      expect(body).toMatchObject({ symbol: 'BTC', direction: 'long', interval: '1h', known_by: 'step' })
      expect(body.meta.rows).toBe(body.data.length)
      for (const row of body.data) {
        expect(row.as_of).toBe(iso(row.timestamp))
        seen.push(row.timestamp)
      }
      cursor = body.next_cursor
      pages++
    } while (cursor !== null)
    expect(pages).toBe(2)
    expect(seen).toEqual([1, 2, 3, 4, 5, 6].map((i) => DAY0 + i * H))
    expect(calls.every((c) => c.knownBy === undefined)).toBe(true)
  })

  it('passes a fixed known_by to every step', async () => {
    const { api, calls } = setup()
    const res = await api.request(
      `/v1/confirm/history?symbol=BTC&direction=short&start=${DAY0}&end=${DAY0 + 2 * H}&known_by=${iso(NOW - H)}`,
      { key: await api.key('pro') }
    )
    expect(jsonOf(res).known_by).toBe(iso(NOW - H))
    expect(calls).toEqual([{ steps: [DAY0, DAY0 + H], knownBy: NOW - H }])
  })

  it('refuses bad input with a message for a person, before computing any answer', async () => {
    const { api, calls } = setup()
    const key = await api.key('pro')
    const cases: [string, number, string, RegExp][] = [
      [`start=yesterday`, 400, 'start', /epoch milliseconds .* or ISO 8601 UTC/],
      [`start=${DAY0}&end=${DAY0}`, 400, 'end', /end .* must be after start/],
      [`start=${DAY0}&end=${NOW + H}`, 400, 'end', /in the future/],
      [`start=${NOW + H}`, 400, 'start', /in the future/],
      [`start=${DAY0}&cursor=${DAY0 + 1}`, 400, 'cursor', /next_cursor of a previous page/],
      [`start=${DAY0}&cursor=${DAY0 - H}`, 400, 'cursor', /inside the requested range/],
      [`start=${DAY0}&limit=1001`, 400, 'limit', /from 1 to 1000/],
      [`start=${DAY0}&interval=2h`, 400, 'interval', /one of 1m, 5m, 15m, 1h, 4h, 1d/],
      [`start=${DAY0}&known_by=${NOW + 1}`, 400, 'known_by', /in the future/]
    ]
    for (const [q, status, param, message] of cases) {
      const res = await api.request(`/v1/confirm/history?symbol=BTC&direction=long&${q}`, { key })
      expect(res.status, q).toBe(status)
      expect(jsonOf(res).error.param, q).toBe(param)
      expect(jsonOf(res).error.message, q).toMatch(message)
    }
    const deep = await api.request(`/v1/confirm/history?symbol=BTC&direction=long&start=${NOW - 40 * 86_400_000}`, {
      key: await api.key('free')
    })
    expect(deep.status).toBe(403)
    expect(jsonOf(deep).error.message).toMatch(/free plan reaches 30 days back; start .* is 40 days ago/)
    const outside = await api.request(`/v1/confirm/history?symbol=DOGE&direction=long&start=${DAY0}`, {
      key: await api.key('free')
    })
    expect(outside.status).toBe(400) // not a base the service holds
    expect(calls).toEqual([])
  })
})

describe('GET /v1/confirm/evaluation (in process)', () => {
  it('groups the answers and measures the forward returns from the stored closes', async () => {
    const { api } = setup()
    // steps DAY0 .. DAY0+3h; closes rise by 1 each hour from 100 at DAY0
    const res = await api.request(
      `/v1/confirm/evaluation?symbol=BTC&start=${DAY0}&end=${DAY0 + 4 * H}&horizons=1h,36h`,
      { key: await api.key('pro') }
    )
    expect(res.status).toBe(200)
    const body = jsonOf(res)
    expect(body).toMatchObject({
      direction: 'long',
      interval: '1h',
      horizons: ['1h', '36h'],
      steps: 4,
      price_timeframe: '1h',
      markets: [{ base: 'BTC', exchange: 'binance', symbol: 'BTCUSDT' }]
    })
    const ret = (t: number, h: number) => closeEnding(t + h) / closeEnding(t) - 1
    const confirmHigh = body.groups.find(
      (g: { action: string; confidence: string }) => g.action === 'CONFIRM' && g.confidence === 'HIGH'
    )
    expect(confirmHigh.answers).toBe(2) // DAY0 and DAY0+2h (even hours)
    expect(confirmHigh.horizons['1h'].mean).toBeCloseTo((ret(DAY0, H) + ret(DAY0 + 2 * H, H)) / 2, 14)
    expect(confirmHigh.horizons['1h'].hit_rate).toBe(1)
    // the newest closed candle ends at 12:00 on the 10th, DAY0 + 36h: only the first step has a 36h return;
    // the later ones reach beyond the data and are left out, counted
    expect(body.baseline.answers).toBe(4)
    expect(body.baseline.horizons['36h']).toMatchObject({ n: 1, beyond_data: 3, no_price: 0 })
    expect(body.baseline.horizons['36h'].mean).toBeCloseTo(ret(DAY0, 36 * H), 14)
    expect(body.baseline.horizons['1h'].n).toBe(4)
    // reproducible: the same request, the same bytes
    const again = await api.request(
      `/v1/confirm/evaluation?symbol=BTC&start=${DAY0}&end=${DAY0 + 4 * H}&horizons=1h,36h`,
      { key: await api.key('pro') }
    )
    expect(again.body).toEqual(res.body)
  })

  it('refuses a range of too many steps, a bad horizon, and labels a demo answer synthetic', async () => {
    const { api, calls } = setup(true)
    const key = await api.key('pro')
    const long = await api.request(`/v1/confirm/evaluation?symbol=BTC&start=${DAY0}&end=${NOW}&interval=1m`, { key })
    expect(long.status).toBe(400)
    expect(jsonOf(long).error.message).toMatch(
      /at most 2,160 steps per market .* shorten the range or widen the interval/
    )
    const week = await api.request(`/v1/confirm/evaluation?symbol=BTC&start=${DAY0}&horizons=1w`, { key })
    expect(week.status).toBe(400)
    expect(jsonOf(week).error.param).toBe('horizons')
    expect(calls).toEqual([])
    const ok = await api.request(`/v1/confirm/evaluation?symbol=BTC&start=${DAY0}&end=${DAY0 + H}`, { key })
    expect(ok.status).toBe(200)
    expect(jsonOf(ok).synthetic).toBe(true)
    // without end, the range stops at the longest one taken (2,160 steps), short of now
    const clipped = await api.request(`/v1/confirm/evaluation?symbol=BTC&start=${DAY0}&interval=1m`, { key })
    expect(clipped.status).toBe(200)
    const steps = calls.at(-1)!.steps
    expect(steps).toHaveLength(2_160)
    expect(steps.at(-1)).toBe(DAY0 + 2_159 * 60_000)
  })
})
