/**
 * SOURCES=deribit through the real server, pointed at the local Deribit protocol server: the options chain
 * API reflects the quotes that arrived through the adapter. The expected chain is computed here from the
 * fixture, straight from the service spec's definitions (not with the production code): totals over every
 * unexpired option, put/call ratios, OI by strike inside 0.5×..2× the underlying, and max pain per expiry
 * as the strike with the lowest payout to holders (ties to the lower strike).
 */
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { jsonBody, startTestServer } from '../helpers/server.js'
import { tmpDir } from '../helpers/tmp-dir.js'
import { DeribitTestServer } from '../helpers/venues/deribit-server.js'
import { chain, expiryCode, type OptionSpec } from '../helpers/venues/deribit-fixtures.js'
import { until } from '../helpers/until.js'

const NOW = Date.now()
/** exchange time of every book summary row the venue sends in this test */
const QUOTE_TS = NOW - 1_234
const CHAINS = { BTC: chain('BTC', NOW), ETH: chain('ETH', NOW) }

let venue: DeribitTestServer
let srv: Awaited<ReturnType<typeof startTestServer>>
const rec = tmpDir()

interface Expected {
  total_call_oi: number
  total_put_oi: number
  total_call_volume: number
  total_put_volume: number
  pcr_oi: number
  oi_by_strike: { strike: number; call_oi: number; put_oi: number }[]
  expiry_summary: Record<
    string,
    { call_oi: number; put_oi: number; pcr: number | null; max_pain: number; total_contracts: number }
  >
  max_pain: Record<string, { strike: number; total_pain_quote: number; quote_currency: 'USD' }>
}

const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0)

/** Payout to holders if the expiry settles at k: calls below k pay k − strike, puts above k pay strike − k. */
function payout(options: OptionSpec[], k: number): number {
  return sum(options.map((o) => (o.type === 'C' ? Math.max(0, k - o.strike) : Math.max(0, o.strike - k)) * o.oi))
}

function expectedChain(options: OptionSpec[], underlying: number): Expected {
  const live = options.filter((o) => o.expiryMs > Date.now())
  const calls = live.filter((o) => o.type === 'C')
  const puts = live.filter((o) => o.type === 'P')
  const strikes = [...new Set(live.map((o) => o.strike))].sort((a, b) => a - b)
  const oiAt = (list: OptionSpec[], k: number): number => sum(list.filter((o) => o.strike === k).map((o) => o.oi))
  const expected: Expected = {
    total_call_oi: sum(calls.map((o) => o.oi)),
    total_put_oi: sum(puts.map((o) => o.oi)),
    total_call_volume: sum(calls.map((o) => o.volume)),
    total_put_volume: sum(puts.map((o) => o.volume)),
    pcr_oi: sum(puts.map((o) => o.oi)) / sum(calls.map((o) => o.oi)),
    oi_by_strike: strikes
      .filter((k) => k >= 0.5 * underlying && k <= 2 * underlying)
      .map((k) => ({ strike: k, call_oi: oiAt(calls, k), put_oi: oiAt(puts, k) })),
    expiry_summary: {},
    max_pain: {}
  }
  for (const expiry of [...new Set(live.map((o) => o.expiryMs))].sort((a, b) => a - b)) {
    const of = live.filter((o) => o.expiryMs === expiry)
    const candidates = [...new Set(of.map((o) => o.strike))].sort((a, b) => a - b)
    let best = candidates[0]!
    for (const k of candidates) if (payout(of, k) < payout(of, best)) best = k
    const callOi = sum(of.filter((o) => o.type === 'C').map((o) => o.oi))
    const putOi = sum(of.filter((o) => o.type === 'P').map((o) => o.oi))
    const code = expiryCode(expiry)
    expected.expiry_summary[code] = {
      call_oi: callOi,
      put_oi: putOi,
      pcr: putOi / callOi,
      max_pain: best,
      total_contracts: Math.round(callOi + putOi)
    }
    expected.max_pain[code] = { strike: best, total_pain_quote: payout(of, best), quote_currency: 'USD' }
  }
  return expected
}

beforeAll(async () => {
  venue = await new DeribitTestServer().start()
  venue.chains.set('BTC', CHAINS.BTC)
  venue.chains.set('ETH', CHAINS.ETH)
  venue.creationTs = () => QUOTE_TS
  srv = await startTestServer({
    SOURCES: 'deribit',
    DERIBIT_WS_URL: venue.wsUrl,
    DERIBIT_REST_URL: venue.restUrl,
    RECORD_DIR: rec.dir,
    INGEST_FLUSH_MS: '50',
    PUBLIC_RATE_PER_MIN: '1000'
  })
})

afterAll(async () => {
  await srv.stop()
  await venue.stop()
  rec.cleanup()
})

async function chainOf(currency: string): Promise<Record<string, unknown>> {
  return jsonBody(await fetch(`${srv.base}/v1/options/chain?currency=${currency}`))
}

describe('SOURCES=deribit through the real server', () => {
  it.each(['BTC', 'ETH'] as const)(
    '/v1/options/chain?currency=%s reflects the quotes that arrived through the adapter',
    async (currency) => {
      let body: Record<string, unknown> = {}
      for (let i = 0; i < 400 && body['updated'] !== Math.floor(QUOTE_TS / 1000); i++) {
        body = await chainOf(currency)
        await new Promise((r) => setTimeout(r, 25))
      }
      const options = CHAINS[currency]
      const underlying = body['underlying_price'] as number
      // the newest quote's underlying: the index or one expiry's future
      expect(new Set(options.map((o) => o.underlying))).toContain(underlying)
      const want = expectedChain(options, underlying)
      expect(body).toMatchObject({
        currency,
        updated: Math.floor(QUOTE_TS / 1000),
        total_call_oi: want.total_call_oi,
        total_put_oi: want.total_put_oi,
        total_call_volume: want.total_call_volume,
        total_put_volume: want.total_put_volume,
        pcr_oi: want.pcr_oi,
        oi_by_strike: want.oi_by_strike,
        expiry_summary: want.expiry_summary,
        max_pain: want.max_pain
      })
      // the expired instruments (in the venue's answer) are not part of the chain; the far strikes are outside the band
      const expired = expiryCode(options.find((o) => o.expiryMs <= NOW)!.expiryMs)
      expect(Object.keys(body['expiry_summary'] as object)).not.toContain(expired)
      expect(Object.keys(body['expiry_summary'] as object)).toHaveLength(3)
      expect(want.oi_by_strike).toHaveLength(6)
      // the fixture is shaped so every expiry has its own max-pain strike
      expect(new Set(Object.values(want.max_pain).map((m) => m.strike)).size).toBe(3)
    }
  )

  it('each chain poll is a snapshot of /v1/options/history (pcr_oi, total_oi, max_pain of the nearest expiry)', async () => {
    const { key } = await srv.running.ctx.keys.create('pro', 'deribit-history')
    const history = async (metric: string): Promise<{ ts: number; value: number | null }[]> =>
      (
        await jsonBody(
          await fetch(`${srv.base}/v1/options/history?currency=BTC&metric=${metric}&hours=1`, {
            headers: { 'x-api-key': key }
          })
        )
      ).points
    let points: { ts: number; value: number | null }[] = []
    for (let i = 0; i < 400 && points.length === 0; i++) {
      points = await history('pcr_oi')
      if (points.length === 0) await new Promise((r) => setTimeout(r, 25))
    }
    const want = expectedChain(CHAINS.BTC, 1) // the band does not matter here
    const nearest = Object.keys(want.max_pain)[0]!
    // every poll pass is one snapshot at the same (fixed) quote time
    expect(points[0]).toEqual({ ts: Math.floor(QUOTE_TS / 1000), value: want.pcr_oi })
    expect((await history('total_oi'))[0]!.value).toBe(want.total_call_oi + want.total_put_oi)
    expect((await history('max_pain'))[0]!.value).toBe(want.max_pain[nearest]!.strike)
  })

  it('stores the quotes of every unexpired option', async () => {
    const live = [...CHAINS.BTC, ...CHAINS.ETH].filter((o) => o.expiryMs > NOW).length
    await until(
      'quotes written',
      () => (srv.running.ctx.pipeline.totals().tables['option_quotes']?.written ?? 0) >= live
    )
    const [row] = await srv.running.ctx.store.query<{ n: number; i: number }>(
      "SELECT count() AS n, uniqExact(instrument) AS i FROM option_quotes WHERE exchange = 'deribit'"
    )
    expect(Number(row!.i)).toBe(live)
    expect(Number(row!.n) % live).toBe(0) // whole poll passes
  })

  it('/v1/health reports the deribit source with its counters', async () => {
    const health = await jsonBody(await fetch(`${srv.base}/v1/health`))
    const d = health.sources.find((s: { name: string }) => s.name === 'deribit')
    expect(d).toMatchObject({
      synthetic: false,
      connected: true,
      phase: 'live',
      markets: 96,
      connections: 1,
      reconnects: 0,
      stale: 0,
      parse_errors: 0,
      unknown_messages: 0,
      venue_errors: 0,
      dropped: 0,
      gaps_found: 0,
      gaps_filled: 0,
      gaps_unfilled: 0,
      rest_errors: 0,
      rate_limited: 0
    })
    expect(d.messages).toBeGreaterThanOrEqual(5) // 2 instrument lists, heartbeat answer, 2 book summaries
    expect(d.rows).toBeGreaterThanOrEqual(96)
    // the receive time of a message of this server run (the server started at most a minute ago), not a stale stamp
    expect(d.last_message_ts).toBeGreaterThan(Date.now() - 60_000)
    expect(d.last_message_ts).toBeLessThanOrEqual(Date.now())
    expect(d.last_event_ts).toBe(QUOTE_TS)
    expect(health.status).toBe('ok')
  })

  it('RECORD_DIR holds the raw answers in an hourly gzip file', async () => {
    await until('recording file', () => fs.existsSync(path.join(rec.dir, 'deribit')))
    await until('recording file', () => fs.readdirSync(path.join(rec.dir, 'deribit')).length > 0)
    const files = fs.readdirSync(path.join(rec.dir, 'deribit'))
    // one file per UTC hour of the session: this hour's (and the previous one's if the hour turned)
    const hour = (ms: number): string => `deribit-${new Date(ms).toISOString().slice(0, 13)}.ndjson.gz`
    expect(files.length).toBeGreaterThanOrEqual(1)
    expect(files.length).toBeLessThanOrEqual(2)
    for (const f of files) expect([hour(Date.now()), hour(Date.now() - 3_600_000)]).toContain(f)
    expect(fs.statSync(path.join(rec.dir, 'deribit', files[0]!)).size).toBeGreaterThan(0)
  })
})
