/**
 * The hot read path's answers are pinned byte for byte (docs/benchmarks.md): a fixed
 * set of requests to `/v1/confirm` and `/v1/options/chain` (every caller kind: no key, limited key,
 * unlimited key, bad key, a plan without the feature; GET and HEAD; 400, 401, 403, 404, 405) against a real
 * server on a loopback port, with data loaded relative to now. Status, headers and body are compared with
 * test/fixtures/hot-reads/answers.json (`HOT_READS_RECORD=1` rewrites it).
 * What legitimately moves is masked: the Date header, RateLimit-Reset / Retry-After (seconds to UTC
 * midnight), timestamps in bodies and the expiry codes of the chain (they name days relative to today).
 * The public throttle's RateLimit-Remaining is a token bucket that refills one request every 60 ms at 1,000 a
 * minute, so it is masked in the comparison and checked on its own: the first public call leaves 999, a later
 * one at most 999 and at least one fewer per public call made since.
 */
import fs from 'node:fs'
import path from 'node:path'
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { startTestServer, ingestRecords } from '../helpers/server.js'
import { formatExpiryCode } from '../../engine/options/instrument.js'
import type { OptionQuoteRecord } from '../../engine/records/types.js'

const FIXTURE = path.join(import.meta.dirname, '..', 'fixtures', 'hot-reads', 'answers.json')
const HOUR = 3_600_000
const DAY = 86_400_000
const now = Date.now()
const at8 = (days: number): number => Math.floor(now / DAY) * DAY + days * DAY + 8 * HOUR

let srv: Awaited<ReturnType<typeof startTestServer>>
const keys: Record<string, string> = {}

function quotes(ts: number, spot: number): OptionQuoteRecord[] {
  const out: OptionQuoteRecord[] = []
  for (const exp of [at8(2), at8(9), at8(-1)]) {
    for (const k of [0.5, 0.8, 1, 1.2, 2].map((f) => Math.round(spot * f))) {
      for (const t of ['C', 'P']) {
        out.push({
          kind: 'option_quote',
          ts,
          exchange: 'deribit',
          instrument: `BTC-${formatExpiryCode(exp)}-${k}-${t}`,
          underlying_price: spot,
          mark_price: 0.01,
          open_interest: (1 + (k % 7)) * (t === 'C' ? 1 : 1.5),
          volume_24h: 3,
          mark_iv: 50
        })
      }
    }
  }
  return out
}

beforeAll(async () => {
  srv = await startTestServer({ PUBLIC_RATE_PER_MIN: '1000' })
  for (const plan of ['free', 'pro', 'enterprise'] as const)
    keys[plan] = (await srv.running.ctx.keys.create(plan, plan)).key
  const m = { exchange: 'binance', symbol: 'DOGEUSDT', base: 'DOGE' }
  await ingestRecords(srv.base, 'funding', [{ ...m, ts: now - 60_000, funding_rate: 0.0004, interval_hours: 8 }])
  await ingestRecords(srv.base, 'long_short', [{ ...m, ts: now - 60_000, long_short_ratio: 2.5 }])
  await ingestRecords(srv.base, 'trade', [
    { ...m, ts: now - 25 * HOUR, market: 'perp', quote: 'USDT', side: 'buy', price: 0.1, qty: 1000, trade_id: '1' },
    { ...m, ts: now - 60_000, market: 'perp', quote: 'USDT', side: 'buy', price: 0.11, qty: 1000, trade_id: '2' }
  ])
  await ingestRecords(srv.base, 'option_quote', quotes(now - 60_000, 100_000))
})
afterAll(async () => {
  await srv?.stop()
})

/** [method, path and query, key plan or a literal key, label] */
const REQUESTS: readonly (readonly [string, string, string | null])[] = [
  ['GET', '/v1/confirm?symbol=DOGE&direction=long', 'pro'],
  ['GET', '/v1/confirm?symbol=DOGE&direction=long', 'pro'],
  ['GET', '/v1/confirm?symbol=DOGEUSDT&direction=short', 'enterprise'],
  ['HEAD', '/v1/confirm?symbol=DOGE&direction=long', 'pro'],
  ['GET', '/v1/confirm?symbol=DOGE&direction=up', 'pro'],
  ['GET', '/v1/confirm?symbol=NOPE&direction=long', 'enterprise'],
  ['GET', '/v1/confirm?symbol=DOGE&direction=long', null],
  ['GET', '/v1/confirm?symbol=DOGE&direction=long', 'tw_live_0123456789_bad'],
  ['GET', '/v1/confirm?symbol=DOGE&direction=long', 'free'],
  ['POST', '/v1/confirm?symbol=DOGE&direction=long', 'pro'],
  ['GET', '/v1/options/chain?currency=BTC', null],
  ['GET', '/v1/options/chain?currency=BTC', null],
  ['GET', '/v1/options/chain?currency=BTC', 'pro'],
  ['GET', '/v1/options/chain?currency=BTC', 'enterprise'],
  ['GET', '/v1/options/chain', 'enterprise'],
  ['HEAD', '/v1/options/chain?currency=BTC', 'free'],
  ['GET', '/v1/options/chain?currency=ETH', 'free'],
  ['GET', '/v1/options/chain?currency=DOGE', 'pro'],
  ['GET', '/v1/options/chain?currency=BTC&x=1', 'pro'],
  ['GET', '/v1/options/chain?currency=BTC', 'tw_live_0123456789_bad'],
  ['GET', '/v1/options/chainz', 'pro']
]

/** Masks what legitimately moves between runs (see the module comment). */
function mask(text: string): string {
  let out = text
  for (const d of [2, 9, -1]) out = out.split(formatExpiryCode(at8(d))).join(`<EXPIRY${d}>`)
  for (const d of [2, 9, -1]) out = out.split(String(at8(d))).join(`<EXPIRY_MS${d}>`)
  return out
    .replace(/"(ts|as_of|updated|updated_at|generated_at|now)":\s*("[^"]*"|-?[\d.e+]+)/g, '"$1":"<time>"')
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<iso>')
    .replace(/\b1[7-9]\d{11}\b/g, '<epoch_ms>')
    .replace(/"days_to_expiry":\s*[\d.e+-]+/g, '"days_to_expiry":"<n>"')
}

interface Answer {
  readonly request: string
  readonly status: number
  readonly headers: Record<string, string>
  readonly body: string
  readonly body_bytes: number
}

/**
 * Bytes the masks add to a path's body (masked minus sent), from its last GET: a length is recorded as the
 * masked body's, so an expiry code one character longer on another day (5DEC26, 28NOV26) moves no length.
 * A HEAD takes the shift of the GET of its path before it.
 */
const maskShift = new Map<string, number>()

/** RateLimit-Remaining of each answer to a call without a key, in order */
const publicRemaining: number[] = []

async function answer(method: string, p: string, who: string | null): Promise<Answer> {
  const key = who === null ? undefined : (keys[who] ?? who)
  const res = await fetch(`${srv.base}${p}`, { method, headers: key ? { 'x-api-key': key } : {} })
  const buf = Buffer.from(await res.arrayBuffer())
  const body = mask(buf.toString('utf8'))
  if (method === 'GET') maskShift.set(`${res.status} ${p}`, Buffer.byteLength(body) - buf.length)
  const shift = maskShift.get(`${res.status} ${p}`) ?? 0
  const sent = Number(res.headers.get('content-length') ?? buf.length)
  // the length a GET declares is the length it sent
  if (method === 'GET') expect(sent, `${method} ${p}`).toBe(buf.length)
  const headers: Record<string, string> = {}
  res.headers.forEach((v, k) => {
    if (k === 'date') return
    if (k === 'content-length') headers[k] = String(sent + shift)
    else if (k === 'ratelimit-remaining' && who === null) {
      publicRemaining.push(Number(v))
      headers[k] = '<remaining>'
    } else headers[k] = k === 'ratelimit-reset' || k === 'retry-after' ? '<seconds>' : mask(v)
  })
  return {
    request: `${method} ${p} ${who === null ? 'no key' : keys[who] ? who : 'bad key'}`,
    status: res.status,
    headers,
    body,
    body_bytes: sent + shift
  }
}

describe('hot read answers', () => {
  it('are the bytes and headers recorded before the hot path changed', async () => {
    const got: Answer[] = []
    for (const [method, p, who] of REQUESTS) got.push(await answer(method, p, who))
    if (process.env['HOT_READS_RECORD'] === '1') fs.writeFileSync(FIXTURE, JSON.stringify(got, null, 1) + '\n')
    const want = JSON.parse(fs.readFileSync(FIXTURE, 'utf8')) as Answer[]
    expect(got.length).toBe(want.length)
    for (let i = 0; i < want.length; i++) expect(got[i], want[i]!.request).toEqual(want[i])
    // the public bucket starts full; each later call takes one and refills may give some back, never past full
    expect(publicRemaining.length).toBe(2)
    expect(publicRemaining[0]).toBe(999)
    expect(publicRemaining[1]).toBeGreaterThanOrEqual(998)
    expect(publicRemaining[1]).toBeLessThanOrEqual(999)
  })
})
