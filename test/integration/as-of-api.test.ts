/**
 * `as_of` on /v1/confirm, /v1/derivatives/screener, /v1/whales/summary and /v1/onchain/metrics against a
 * real server and store: live answers recorded at two moments (the server quiet: no source runs, every
 * record arrives through admin ingest, which answers once the rows are written and applied) equal the
 * `as_of` answers of those moments asked after more live data and a late import with old event times
 * arrived. Bad input: future 400, malformed 400 naming the forms, beyond the plan's depth 403 naming it,
 * before the oldest data 200 with `before_data`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ingestRecords, jsonBody, startTestServer } from '../helpers/server.js'
import { createKey } from '../helpers/shared-server.js'

const HOUR = 3_600_000
const MIN = 60_000
let srv: Awaited<ReturnType<typeof startTestServer>>
let key = ''

const venues = [
  { exchange: 'binance', symbol: 'BTCUSDT', base: 'BTC' },
  { exchange: 'bybit', symbol: 'BTCUSDT', base: 'BTC' }
]

let tradeSeq = 0
let txSeq = 0
/** A deterministic feed over [fromMs, toMs): trades every 20 min, readings hourly; integer sums only. */
async function feed(fromMs: number, toMs: number, seed: number, stepMs = 20 * MIN): Promise<void> {
  const trades: object[] = []
  const funding: object[] = []
  const oi: object[] = []
  const lsr: object[] = []
  const onchain: object[] = []
  const whales: object[] = []
  let x = seed
  const next = (n: number): number => (x = (x * 1103515245 + 12345) % 2147483648) % n
  const start = Math.ceil(fromMs / stepMs) * stepMs
  for (let t = start; t < toMs; t += stepMs) {
    for (const m of venues) {
      trades.push({
        ...m,
        ts: t,
        market: 'perp',
        quote: 'USDT',
        side: 'buy',
        price: 60_000 + next(2000),
        qty: 1 + next(3),
        trade_id: `t${tradeSeq++}`
      })
      oi.push({ ...m, ts: t, oi_base: 1000 + next(100), oi_usd: (1000 + next(100)) * 60_000 })
      if (t % HOUR === 0) {
        funding.push({ ...m, ts: t, funding_rate: (next(100) - 40) / 100_000, interval_hours: 8 })
        lsr.push({ ...m, ts: t, long_short_ratio: 0.5 + next(100) / 100 })
      }
    }
    if (t % HOUR === 0) {
      onchain.push({ ts: t, asset: 'BTC', metric: 'exchange_netflow_usd', value: (next(200) - 100) * 100_000 })
      onchain.push({ ts: t, asset: 'BTC', metric: 'mvrv', value: 1 + next(200) / 100 })
      whales.push({
        ts: t,
        chain: 'ethereum',
        tx_hash: `0x${(txSeq++).toString(16)}`,
        log_index: 0,
        block_number: 1000 + txSeq,
        address: `0x${(1 + next(4)).toString(16).padStart(40, '0')}`,
        counterparty: `0x${'cd'.repeat(20)}`,
        event_type: next(2) === 0 ? 'transfer_in' : 'transfer_out',
        token: next(2) === 0 ? 'WBTC' : 'BTC',
        amount: 10,
        usd_value: (2 + next(30)) * 100_000
      })
    }
  }
  if (trades.length) await ingestRecords(srv.base, 'trade', trades)
  if (oi.length) await ingestRecords(srv.base, 'open_interest', oi)
  if (funding.length) await ingestRecords(srv.base, 'funding', funding)
  if (lsr.length) await ingestRecords(srv.base, 'long_short', lsr)
  if (onchain.length) await ingestRecords(srv.base, 'onchain_metric', onchain)
  if (whales.length) await ingestRecords(srv.base, 'whale_transfer', whales)
}

const get = (path: string) => fetch(`${srv.base}${path}`, { headers: { 'x-api-key': key } })

const PATHS = [
  '/v1/confirm?symbol=BTC&direction=long',
  '/v1/confirm?symbol=BTCUSDT&direction=short',
  '/v1/derivatives/screener',
  '/v1/derivatives/screener?symbol=BTC&sort=funding_rate&order=asc',
  '/v1/whales/summary',
  '/v1/onchain/metrics?asset=BTC&hours=48'
]

interface Recorded {
  readonly path: string
  /** the moment of the live answer, epoch ms */
  readonly at: number
  readonly body: Record<string, unknown>
}

/**
 * The live answer of `path` and its moment: the answer's own `as_of` where it carries one (confirm, whale
 * summary), else the clock read just before asking (the screener moves by whole hours: asked again when an
 * hour began meanwhile; the on-chain window holds no reading near its edge).
 */
async function record(path: string): Promise<Recorded> {
  for (;;) {
    const before = Date.now()
    const res = await get(path)
    expect(res.status, path).toBe(200)
    const body = (await jsonBody(res)) as Record<string, unknown>
    const after = Date.now()
    if (typeof body['as_of'] === 'string') return { path, at: Date.parse(body['as_of']), body }
    if (Math.floor(before / HOUR) === Math.floor(after / HOUR)) return { path, at: before, body }
  }
}

const withAsOf = (path: string, at: number | string, extra = ''): string =>
  `${path}${path.includes('?') ? '&' : '?'}as_of=${at}${extra}`

beforeAll(async () => {
  srv = await startTestServer()
  key = await createKey(srv.base, 'pro', 'asof')
}, 120_000)
afterAll(async () => srv.stop())

describe('as_of answers', () => {
  it('equal the live answers recorded at each moment, after more data and a late import arrived', async () => {
    const t = Date.now()
    // 30 hours of history, then the first recording
    await feed(t - 30 * HOUR, t - 10 * MIN, 1)
    const first = []
    for (const p of PATHS) first.push(await record(p))
    // more live data (the newest minutes), then the second recording
    await feed(t - 10 * MIN, Date.now(), 2, MIN)
    const second = []
    for (const p of PATHS) second.push(await record(p))
    // a late import: event times of hours 20 to 2 ago, received now
    await feed(t - 20 * HOUR + 7 * MIN, t - 2 * HOUR, 3)
    // the live answers moved (the import is known now)
    const now = (await record(PATHS[0]!)).body
    expect(now['composite']).not.toBe(second[0]!.body['composite'])

    for (const r of [...first, ...second]) {
      const res = await get(withAsOf(r.path, r.at))
      expect(res.status, r.path).toBe(200)
      const body = (await jsonBody(res)) as Record<string, unknown>
      const pit = body['point_in_time'] as Record<string, unknown>
      expect(pit['as_of']).toBe(new Date(r.at).toISOString())
      expect(pit['known_by']).toBe(new Date(r.at).toISOString())
      expect(pit['before_data']).toBe(false)
      delete body['point_in_time']
      expect(body, `${r.path} as of ${new Date(r.at).toISOString()}`).toEqual(r.body)
    }
    // the recordings carry data (a comparison of empty answers would prove nothing)
    expect((first[2]!.body['rows'] as unknown[]).length).toBe(2)
    expect(first[0]!.body['derivatives']).not.toEqual({ funding_rate: null, oi_change_24h: null })
    expect((second[4]!.body['total_volume_24h'] as number) > 0).toBe(true)

    // known_by later than as_of: what is known now about that moment includes the import
    const late = await get(withAsOf(PATHS[0]!, second[0]!.at, `&known_by=${Date.now()}`))
    expect(late.status).toBe(200)
    expect((await jsonBody(late))['composite']).not.toBe(second[0]!.body['composite'])
  }, 240_000)

  it('leaves live answers without a point_in_time member', async () => {
    const res = await get('/v1/whales/summary')
    const body = await res.text()
    expect(body).not.toContain('point_in_time')
  })

  it('refuses bad moments with the documented codes and messages', async () => {
    const future = await get(withAsOf(PATHS[2]!, Date.now() + HOUR))
    expect(future.status).toBe(400)
    expect((await jsonBody(future)).error.message).toMatch(/in the future/)
    const malformed = await get(withAsOf(PATHS[0]!, 'yesterday'))
    expect(malformed.status).toBe(400)
    expect(JSON.stringify(await jsonBody(malformed))).toMatch(/epoch milliseconds.*ISO 8601/)
    const deep = await get(withAsOf(PATHS[5]!, '2020-01-01T00:00:00Z'))
    expect(deep.status).toBe(403)
    expect((await jsonBody(deep)).error.message).toMatch(/730 days/)
    const knownAlone = await get(`${PATHS[4]}?known_by=${Date.now() - HOUR}`)
    expect(knownAlone.status).toBe(400)
  })

  it('answers a moment before the oldest data with the empty answer and before_data', async () => {
    const at = Date.now() - 100 * HOUR
    for (const p of PATHS) {
      const res = await get(withAsOf(p, at))
      expect(res.status, p).toBe(200)
      const body = await jsonBody(res)
      expect(body.point_in_time.before_data, p).toBe(true)
      // nothing had been received by then
      expect(body.point_in_time.oldest_known, p).toBeNull()
      // known by now: the oldest data lies after the moment asked
      const now = await jsonBody(await get(withAsOf(p, at, `&known_by=${Date.now()}`)))
      expect(now.point_in_time.before_data, p).toBe(true)
      expect(Date.parse(now.point_in_time.oldest_known), p).toBeGreaterThan(at)
    }
    const confirm = await jsonBody(await get(withAsOf(PATHS[0]!, at)))
    expect(confirm.action).toBe('SKIP')
    const screener = await jsonBody(await get(withAsOf(PATHS[2]!, at)))
    expect(screener.rows).toEqual([])
  })
})
