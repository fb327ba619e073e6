import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { startTestServer, ndjson, jsonBody, TEST_ADMIN_TOKEN } from '../helpers/server.js'
import { rawRequest } from '../helpers/raw-http.js'

let srv: Awaited<ReturnType<typeof startTestServer>>
const auth = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` }

beforeAll(async () => {
  srv = await startTestServer()
})
afterAll(async () => {
  await srv.stop()
})

const T0 = Date.UTC(2026, 10, 4, 12, 0, 0)
const trade = (i: number) => ({
  ts: T0 + i * 1000,
  exchange: 'bybit',
  market: 'perp',
  symbol: 'SOLUSDT',
  base: 'SOL',
  quote: 'USDT',
  side: i % 2 ? 'buy' : 'sell',
  price: 150 + i,
  qty: 2,
  trade_id: `t${i}`
})

async function count(sql: string): Promise<number> {
  const rows = await srv.running.ctx.store.query<{ n: number }>(sql)
  return rows[0]!.n
}

describe('GET /v1/health', () => {
  it('follows the runtime contract', async () => {
    const res = await fetch(`${srv.base}/v1/health`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('application/json')
    const body = await res.json()
    expect(body).toMatchObject({
      status: 'ok',
      version: '0.1.0',
      store: { kind: 'chdb' },
      sources: [],
      live: { whale_window_rows: 0, whale_window_dropped: 0 },
      ingest: { queued: 0, written: 0, failed: 0 }
    })
    // the V8 heap committed holds at least what is used; memory JS holds outside it is reported apart
    const proc = (body as { process: Record<string, number> }).process
    expect(proc['heap_total_mb']).toBeGreaterThanOrEqual(proc['heap_used_mb']!)
    expect(proc['external_mb']).toBeGreaterThan(0)
  })

  it("reports the embedded engine's memory as of the last store probe", async () => {
    await srv.running.ctx.storeProbe.probe()
    const body = await jsonBody(await fetch(`${srv.base}/v1/health`))
    const mem = body.store.engine_memory_mb as Record<string, number>
    // an engine that opened tables tracks memory; every cache is reported, in whole MB
    expect(mem['tracked']).toBeGreaterThan(0)
    for (const k of ['mark_cache', 'primary_index_cache', 'uncompressed_cache', 'query_condition_cache'])
      expect(Number.isInteger(mem[k])).toBe(true)
  })
})

describe('POST /v1/admin/ingest/{kind}', () => {
  it('writes every record and the views see them', async () => {
    const body = ndjson(Array.from({ length: 120 }, (_, i) => trade(i)))
    const res = await fetch(`${srv.base}/v1/admin/ingest/trade`, { method: 'POST', headers: auth, body })
    expect(res.status).toBe(201)
    expect(await jsonBody(res)).toEqual({ kind: 'trade', rows: 120, tables: [{ table: 'trades', rows: 120 }] })
    expect(await count("SELECT count() AS n FROM trades WHERE symbol = 'SOLUSDT'")).toBe(120)
    expect(await count("SELECT sum(trades) AS n FROM candles_1h WHERE symbol = 'SOLUSDT'")).toBe(120)
    const health = await jsonBody(await fetch(`${srv.base}/v1/health`))
    expect(health.ingest.written).toBeGreaterThanOrEqual(120)
  })

  it('is idempotent: the same body posted again adds nothing', async () => {
    const body = ndjson(Array.from({ length: 120 }, (_, i) => trade(i)))
    const res = await fetch(`${srv.base}/v1/admin/ingest/trade`, { method: 'POST', headers: auth, body })
    expect(res.status).toBe(201)
    expect(await count("SELECT count() AS n FROM trades WHERE symbol = 'SOLUSDT'")).toBe(120)
  })

  it('rejects the whole body when one line is bad, naming the line and field', async () => {
    const rows: object[] = Array.from({ length: 50 }, (_, i) => ({ ...trade(1000 + i), symbol: 'BADUSDT' }))
    rows[36] = { ...trade(2000), symbol: 'BADUSDT', price: -5 }
    const res = await fetch(`${srv.base}/v1/admin/ingest/trade`, { method: 'POST', headers: auth, body: ndjson(rows) })
    expect(res.status).toBe(400)
    expect(await jsonBody(res)).toEqual({
      error: {
        code: 'invalid_record',
        message: 'line 37, field price: must be >= 0; nothing was written',
        param: 'price',
        line: 37
      }
    })
    expect(await count("SELECT count() AS n FROM trades WHERE symbol = 'BADUSDT'")).toBe(0)
  })

  it('names a line that is not JSON', async () => {
    const body = ndjson([trade(1)]) + '{"ts": oops}\n'
    const res = await fetch(`${srv.base}/v1/admin/ingest/trade`, { method: 'POST', headers: auth, body })
    expect(res.status).toBe(400)
    expect((await jsonBody(res)).error).toMatchObject({ code: 'invalid_record', line: 2 })
  })

  it('derives options metrics rows from option quotes', async () => {
    const quotes = [
      ['C', 90000, 10],
      ['P', 90000, 5],
      ['C', 100000, 20],
      ['P', 80000, 30]
    ].map(([t, k, oi]) => ({
      ts: T0,
      exchange: 'deribit',
      instrument: `BTC-26DEC26-${k}-${t}`,
      underlying_price: 95000,
      mark_price: 0.05,
      open_interest: oi,
      volume_24h: 1
    }))
    const res = await fetch(`${srv.base}/v1/admin/ingest/option_quote`, {
      method: 'POST',
      headers: auth,
      body: ndjson(quotes)
    })
    expect(res.status).toBe(201)
    const rows = await srv.running.ctx.store.query<{ c: number; p: number; pcr: number; mp: number }>(
      "SELECT total_call_oi AS c, total_put_oi AS p, pcr_oi AS pcr, max_pain_nearest AS mp FROM options_metrics WHERE currency = 'BTC'"
    )
    expect(rows).toEqual([{ c: 30, p: 35, pcr: 35 / 30, mp: 90000 }])
  })

  it('answers 401 without the admin token, 404 for an unknown kind, 405 for GET', async () => {
    const body = ndjson([trade(1)])
    const noAuth = await fetch(`${srv.base}/v1/admin/ingest/trade`, { method: 'POST', body })
    expect(noAuth.status).toBe(401)
    expect(noAuth.headers.get('www-authenticate')).toContain('Bearer')
    const wrong = await fetch(`${srv.base}/v1/admin/ingest/trade`, {
      method: 'POST',
      headers: { authorization: 'Bearer nope-nope-nope-nope' },
      body
    })
    expect(wrong.status).toBe(401)
    const kind = await fetch(`${srv.base}/v1/admin/ingest/candle`, { method: 'POST', headers: auth, body })
    expect(kind.status).toBe(404)
    expect((await jsonBody(kind)).error.message).toContain('unknown record kind')
    const get = await fetch(`${srv.base}/v1/admin/ingest/trade`)
    expect(get.status).toBe(405)
  })

  it('answers 413 for a declared body over the limit without reading it', async () => {
    const { text: reply } = await rawRequest({
      port: srv.running.port,
      head: [
        'POST /v1/admin/ingest/trade HTTP/1.1',
        'Host: x',
        `Authorization: Bearer ${TEST_ADMIN_TOKEN}`,
        `Content-Length: ${300 * 1024 * 1024}`
      ],
      raw: 'xxxx'
    })
    expect(reply).toMatch(/^HTTP\/1\.1 413 /)
    expect(reply).toContain('"code":"payload_too_large"')
  })
})

describe('unknown routes', () => {
  it('answer 404 with the envelope', async () => {
    const res = await fetch(`${srv.base}/v2/whatever`)
    expect(res.status).toBe(404)
    expect((await jsonBody(res)).error.code).toBe('not_found')
  })
})
