/**
 * Readiness and uncounted refusals, over a real socket: on a first start with
 * the demo market, data endpoints answer 503 warming_up until the backfill is written and the live state
 * rebuilt from it; liveness (/v1/health) answers 200 all along; nothing refused is counted.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { startTestServer, jsonBody, TEST_ADMIN_TOKEN } from '../helpers/server.js'
import { expectApiError } from '../helpers/api-error.js'

let srv: Awaited<ReturnType<typeof startTestServer>>
const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' }

async function createKey(plan: string): Promise<string> {
  const res = await fetch(`${srv.base}/v1/admin/keys`, {
    method: 'POST',
    headers: admin,
    body: JSON.stringify({ plan })
  })
  expect(res.status).toBe(201)
  return ((await jsonBody(res)) as { key: string }).key
}

async function callsToday(key: string): Promise<number> {
  const res = await fetch(`${srv.base}/v1/usage`, { headers: { 'x-api-key': key } })
  expect(res.status).toBe(200)
  return ((await jsonBody(res)) as { calls_today: number }).calls_today
}

beforeAll(async () => {
  // two days of demo history: the backfill takes far longer than the first requests below
  srv = await startTestServer({ SOURCES: 'sim', SIM_BACKFILL_DAYS: '2', SIM_SEED: '7' }, { waitReady: false })
})
afterAll(async () => {
  await srv?.stop()
})

describe('readiness on a first start', () => {
  it('answers 503 warming_up on data endpoints until the demo backfill is in the live state, uncounted', async () => {
    const key = await createKey('pro')
    const health = await jsonBody(await fetch(`${srv.base}/v1/health`))
    expect(health.ready).toBe(false)
    expect(health.waiting_for.join(' ')).toMatch(/sim: demo/)

    const ready = await fetch(`${srv.base}/v1/ready`)
    await expectApiError(ready, 503, 'warming_up')
    expect(ready.headers.get('retry-after')).toBe('5')

    const confirm = await fetch(`${srv.base}/v1/confirm?symbol=BTC&direction=long`, { headers: { 'x-api-key': key } })
    const err = await expectApiError(confirm, 503, 'warming_up')
    expect(err.message).toMatch(/starting/)
    expect(confirm.headers.get('retry-after')).toBe('5')
    const chain = await fetch(`${srv.base}/v1/options/chain?currency=BTC`)
    await expectApiError(chain, 503, 'warming_up')
    // the refused calls were not counted
    expect(await callsToday(key)).toBe(0)

    await srv.running.ready
    expect((await fetch(`${srv.base}/v1/ready`)).status).toBe(200)
    const after = await jsonBody(await fetch(`${srv.base}/v1/health`))
    expect(after.ready).toBe(true)
    expect(after.waiting_for).toEqual([])
    const ok = await fetch(`${srv.base}/v1/confirm?symbol=BTC&direction=long`, { headers: { 'x-api-key': key } })
    expect(ok.status).toBe(200)
    expect((await jsonBody(ok)).symbol).toBe('BTC')
    expect(await callsToday(key)).toBe(1)
  })
})

describe('quota counting (docs/access.md): refusals are not counted, a 400 is', () => {
  it('does not count a 403 for a symbol outside the plan, nor for a feature, nor a 401', async () => {
    await srv.running.ready
    const key = await createKey('free')
    const h = { 'x-api-key': key }
    // 403: DOGE is outside the free plan
    await expectApiError(
      await fetch(`${srv.base}/v1/confirm?symbol=DOGE&direction=long`, { headers: h }),
      403,
      'forbidden'
    )
    // 403: the screener is not a feature of the free plan
    await expectApiError(await fetch(`${srv.base}/v1/derivatives/screener`, { headers: h }), 403, 'forbidden')
    // 401 for a key that does not exist (nothing to count, and the real key is untouched)
    await expectApiError(
      await fetch(`${srv.base}/v1/confirm?symbol=BTC&direction=long`, { headers: { 'x-api-key': 'tw_free_nope' } }),
      401,
      'unauthorized'
    )
    expect(await callsToday(key)).toBe(0)
    // a 400 (bad direction) counts, as documented
    await expectApiError(
      await fetch(`${srv.base}/v1/confirm?symbol=BTC&direction=up`, { headers: h }),
      400,
      'invalid_parameter'
    )
    expect(await callsToday(key)).toBe(1)
    const ok = await fetch(`${srv.base}/v1/confirm?symbol=BTC&direction=long`, { headers: h })
    expect(ok.status).toBe(200)
    expect(ok.headers.get('ratelimit-remaining')).toBe('198')
    expect(await callsToday(key)).toBe(2)
  })

  it('does not count a 429: an exhausted quota stays at its limit', async () => {
    const key = await createKey('free')
    const h = { 'x-api-key': key }
    for (let i = 0; i < 200; i++) {
      const res = await fetch(`${srv.base}/v1/options/chain?currency=BTC`, { headers: h })
      expect(res.status).toBe(200)
      await res.arrayBuffer()
    }
    for (let i = 0; i < 3; i++) {
      await expectApiError(
        await fetch(`${srv.base}/v1/options/chain?currency=BTC`, { headers: h }),
        429,
        'quota_exceeded'
      )
    }
    expect(await callsToday(key)).toBe(200)
  })
})
