import { describe, it, expect, beforeAll } from 'vitest'
import { jsonBody, ingestRecords } from '../helpers/server.js'
import { createKey, sharedServer } from '../helpers/shared-server.js'
import { until } from '../helpers/until.js'

const srv = sharedServer()
let pro = ''
let free = ''
const HOUR = 3_600_000
const now = Date.now()

const post = (kind: string, rows: object[]): Promise<void> => ingestRecords(srv.base, kind, rows)
const confirmCall = (q: string, key = pro) => fetch(`${srv.base}/v1/confirm?${q}`, { headers: { 'x-api-key': key } })

beforeAll(async () => {
  pro = await createKey(srv.base, 'pro', 'p')
  free = await createKey(srv.base, 'free', 'f')
  const m = { exchange: 'binance', symbol: 'DOGEUSDT', base: 'DOGE' }
  await post('funding', [{ ...m, ts: now - 60_000, funding_rate: 0.0004, interval_hours: 8 }])
  await post('long_short', [{ ...m, ts: now - 60_000, long_short_ratio: 2.5 }])
  await post('trade', [
    { ...m, ts: now - 25 * HOUR, market: 'perp', quote: 'USDT', side: 'buy', price: 0.1, qty: 1000, trade_id: '1' },
    { ...m, ts: now - 60_000, market: 'perp', quote: 'USDT', side: 'buy', price: 0.11, qty: 1000, trade_id: '2' }
  ])
})

describe('GET /v1/confirm', () => {
  it('answers with both shapes from the live state, and reasons that carry the numbers', async () => {
    const res = await confirmCall('symbol=DOGE&direction=long&source=freqtrade')
    expect(res.status).toBe(200)
    const body = await jsonBody(res)
    for (const k of [
      'ts',
      'symbol',
      'direction',
      'composite',
      'confidence',
      'action',
      'size_mult',
      'deriv_score',
      'onchain_score',
      'whale_score',
      'reasons',
      'confirmation',
      'score',
      'smart_money',
      'derivatives',
      'as_of'
    ]) {
      expect(body, k).toHaveProperty(k)
    }
    expect(body).toMatchObject({ symbol: 'DOGE', direction: 'long', derivatives: { funding_rate: 0.0004 } })
    expect(body.smart_money.long_short_ratio).toBe(2.5)
    expect(body.deriv_score).toBeLessThan(0) // crowded longs: contrarian for a long
    expect(body.reasons.join(' ')).toMatch(/funding 0\.040% per 8h/)
    expect(body.reasons.join(' ')).toMatch(/long\/short ratio 2\.50/)
  })

  it('is antisymmetric: short = -long for the same market state', async () => {
    const long = await jsonBody(await confirmCall('symbol=DOGE&direction=long'))
    const short = await jsonBody(await confirmCall('symbol=DOGE&direction=short'))
    expect(short.composite).toBeCloseTo(-long.composite, 12)
    expect(short.deriv_score).toBeCloseTo(-long.deriv_score, 12)
    expect(short.score).toBeCloseTo(1 - long.score, 12)
  })

  it('reflects a newly posted record once the cached answer is ANSWER_REFRESH_MS old', async () => {
    const before = await jsonBody(await confirmCall('symbol=DOGE&direction=long'))
    await post('long_short', [
      { exchange: 'binance', symbol: 'DOGEUSDT', base: 'DOGE', ts: now, long_short_ratio: 0.5 }
    ])
    // the freshness rule (engine/live/confirm-answers.ts; the clocked cases: test/unit/confirm-answers.test.ts)
    let after = before
    await until('the answer reflects the new long/short ratio', async () => {
      after = await jsonBody(await confirmCall('symbol=DOGE&direction=long'))
      return after.smart_money.long_short_ratio === 0.5
    })
    expect(after.deriv_score).toBeGreaterThan(before.deriv_score) // shorts crowded now: better for a long
  })

  it('accepts CCXT-style pairs and uses the base', async () => {
    for (const s of ['DOGE/USDT', 'DOGE/USDT:USDT', 'doge']) {
      const body = await jsonBody(await confirmCall(`symbol=${encodeURIComponent(s)}&direction=short`))
      expect(body.symbol, s).toBe('DOGE')
    }
  })

  it('answers 400 for unknown symbols and bad directions, 403 outside the plan, 401 without a key', async () => {
    const unknown = await jsonBody(await confirmCall('symbol=NOPE&direction=long'))
    expect(unknown.error).toMatchObject({ code: 'unknown_symbol', param: 'symbol' })
    const dir = await confirmCall('symbol=DOGE&direction=up')
    expect(dir.status).toBe(400)
    expect((await jsonBody(dir)).error.message).toBe('direction must be one of long, short')
    expect((await confirmCall('symbol=DOGE')).status).toBe(400)
    const plan = await confirmCall('symbol=DOGE/USDT&direction=long', free)
    expect(plan.status).toBe(403)
    expect((await jsonBody(plan)).error.message).toContain('DOGE is not included in the free plan')
    expect((await fetch(`${srv.base}/v1/confirm?symbol=DOGE&direction=long`)).status).toBe(401)
  })
})
