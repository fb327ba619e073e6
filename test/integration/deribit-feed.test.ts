import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Writable } from 'node:stream'
import { createLogger, silentLogger } from '../../engine/log.js'
import type { NormalizedRecord, OptionQuoteRecord } from '../../engine/records/types.js'
import { DeribitSource, type DeribitTuning } from '../../ingest/sources/deribit.js'
import { DeribitTestServer } from '../helpers/venues/deribit-server.js'
import { chain, type OptionSpec } from '../helpers/venues/deribit-fixtures.js'
import { drainSource } from '../helpers/venues/drain-source.js'
import { until } from '../helpers/until.js'

const NOW = Date.now()
const BTC = chain('BTC', NOW)
const ETH = chain('ETH', NOW)
const live = (c: OptionSpec[]): OptionSpec[] => c.filter((o) => o.expiryMs > NOW)
/** fast polls, reconnects and stale detection for the test */
const TUNING: Partial<DeribitTuning> = {
  pollEveryMs: 150,
  backoff: { baseMs: 20, maxMs: 100 },
  staleMs: 1_500,
  requestTimeoutMs: 1_000,
  rateLimitPauseMs: 300
}

let server: DeribitTestServer
let feed: ReturnType<typeof drainSource>
let source: DeribitSource

const quotes = (records: readonly NormalizedRecord[]): OptionQuoteRecord[] =>
  records.filter((r): r is OptionQuoteRecord => r.kind === 'option_quote')
const summaries = (): number => server.count('public/get_book_summary_by_currency')

beforeAll(async () => {
  server = await new DeribitTestServer({ heartbeatMs: 100 }).start()
  server.chains.set('BTC', BTC)
  server.chains.set('ETH', ETH)
  source = new DeribitSource({
    wsUrl: server.wsUrl,
    restUrl: server.restUrl,
    currencies: ['BTC', 'ETH'],
    symbols: [],
    log: silentLogger(),
    tuning: TUNING
  })
  feed = drainSource(source)
  await until('first quotes', () => quotes(feed.records).length >= live(BTC).length + live(ETH).length)
})

afterAll(async () => {
  await feed.stop()
  await server.stop()
})

describe('Deribit feed against a local protocol server', () => {
  it('discovers the live options over REST and turns on heartbeats on the socket', () => {
    expect(server.count('public/get_instruments')).toBe(2)
    expect(server.heartbeatsSet).toBe(1)
    expect(server.log[0]).toEqual({ method: 'public/set_heartbeat', params: { interval: 30 } })
    expect(source.status()).toMatchObject({
      name: 'deribit',
      connected: true,
      phase: 'live',
      markets: live(BTC).length + live(ETH).length,
      connections: 1
    })
  })

  it('polls each chain and quotes every unexpired option exactly as the venue sent it', async () => {
    const first = summaries()
    await until('another poll pass', () => summaries() >= first + 2)
    const q = quotes(feed.records)
    const names = new Set(q.map((r) => r.instrument))
    expect(names).toEqual(new Set([...live(BTC), ...live(ETH)].map((o) => o.name)))
    // the 08:00 UTC expiry is in every answer but never quoted
    expect([...BTC, ...ETH].filter((o) => o.expiryMs <= NOW)).toHaveLength(4)
    const o = live(ETH)[5]!
    expect(q.find((r) => r.instrument === o.name)).toMatchObject({
      exchange: 'deribit',
      underlying_price: o.underlying,
      mark_price: o.mark,
      mark_iv: o.iv,
      open_interest: o.oi,
      volume_24h: o.volume,
      bid: o.bid,
      ask: o.ask
    })
    expect(feed.chunks.map((c) => c.table)).toContain('option_quotes')
    expect(source.status()).toMatchObject({ parse_errors: 0, venue_errors: 0, unknown_messages: 0, rest_errors: 0 })
  })

  it('answers test_request with public/test, so the venue keeps the connection', async () => {
    const answered = server.testAnswers
    server.testRequest()
    await until('public/test', () => server.testAnswers === answered + 1)
    expect(server.closedForTest).toBe(0)
    expect(source.status().connected).toBe(true)
  })

  it('after a disconnect mid-stream it reconnects, turns heartbeats on again and resumes polling', async () => {
    const before = { conns: server.connections, beats: server.heartbeatsSet, reconnects: source.status().reconnects! }
    server.dropAll()
    await until('reconnected', () => server.connections === before.conns + 1 && source.status().connected)
    await until('heartbeats set again', () => server.heartbeatsSet === before.beats + 1)
    // new open interest after the reconnect reaches the records
    const changed = { ...BTC[4]!, oi: 999.5 }
    server.chains.set(
      'BTC',
      BTC.map((o) => (o.name === changed.name ? changed : o))
    )
    await until('new OI', () =>
      quotes(feed.records).some((r) => r.instrument === changed.name && r.open_interest === 999.5)
    )
    expect(source.status().reconnects).toBe(before.reconnects + 1)
  })

  it('counts malformed, unknown and venue error messages, skips them and keeps going', async () => {
    const s0 = source.status()
    server.sendRaw('{"jsonrpc":"2.0","method":"heartbeat"') // cut short: not JSON
    server.sendRaw('not json at all')
    server.sendRaw(JSON.stringify({ jsonrpc: '2.0', method: 'heartbeat', params: { type: 42 } }))
    server.sendRaw(
      JSON.stringify({
        jsonrpc: '2.0',
        method: 'subscription',
        params: {
          channel: 'deribit_price_index.btc_usd',
          data: { index_name: 'btc_usd', price: 97150.25, timestamp: 1 }
        }
      })
    )
    server.sendRaw(JSON.stringify({ jsonrpc: '2.0', id: 987654, result: [] })) // answers nothing we asked
    server.sendRaw(JSON.stringify({ jsonrpc: '2.0', error: { code: 11050, message: 'bad_request' }, testnet: false }))
    const polls = summaries()
    await until('polls after junk', () => summaries() >= polls + 2 && source.status().venue_errors! > s0.venue_errors!)
    const s1 = source.status()
    expect(s1.parse_errors! - s0.parse_errors!).toBe(3)
    expect(s1.unknown_messages! - s0.unknown_messages!).toBe(2)
    expect(s1.venue_errors! - s0.venue_errors!).toBe(1)
    expect(s1.connected).toBe(true)
  })

  it('a too_many_requests answer is a counted venue error: the session is closed and reopened, not a crash', async () => {
    const s0 = source.status()
    const conns = server.connections
    server.rateLimitNext = 1
    await until('rate limited', () => source.status().rate_limited === s0.rate_limited! + 1)
    await until('reopened', () => server.connections === conns + 1 && source.status().connected, 15_000)
    const s1 = source.status()
    expect(s1.venue_errors! - s0.venue_errors!).toBe(1)
    const polls = summaries()
    await until('polling again', () => summaries() >= polls + 2, 15_000)
  })

  it('reopens a connection whose heartbeats stop while it still answers pings (hung venue application)', async () => {
    const s0 = source.status()
    const conns = server.connections
    server.muted = true
    try {
      await until('stale detected', () => source.status().stale! > s0.stale!, 8_000)
      await until('reopened', () => server.connections > conns, 8_000)
    } finally {
      server.muted = false
    }
    await until('connected again', () => source.status().connected, 8_000)
  })

  it('reopens a connection that goes silent (stale feed)', async () => {
    const s0 = source.status()
    server.pauseAll()
    await until('stale detected', () => source.status().stale! > s0.stale!, 8_000)
    server.resumeAll()
    await until('connected again', () => source.status().connected, 8_000)
  })
})

describe('DERIBIT_SYMBOLS', () => {
  it('polls only the named instruments and expiries, one book summary request each', async () => {
    const srv = await new DeribitTestServer().start()
    srv.chains.set('BTC', BTC)
    srv.chains.set('ETH', ETH)
    const expiry = live(ETH)[0]!.name.split('-').slice(0, 2).join('-') // e.g. ETH-1DEC26
    const one = live(BTC)[20]!.name
    const only = new DeribitSource({
      wsUrl: srv.wsUrl,
      restUrl: srv.restUrl,
      currencies: ['BTC', 'ETH'],
      symbols: [one, expiry],
      log: silentLogger(),
      tuning: { ...TUNING, pollEveryMs: 60_000 }
    })
    const f = drainSource(only)
    try {
      const want = [
        one,
        ...live(ETH)
          .filter((o) => o.name.startsWith(`${expiry}-`))
          .map((o) => o.name)
      ]
      expect(want).toHaveLength(17)
      await until('quotes of the symbols', () => quotes(f.records).length === want.length)
      expect(
        quotes(f.records)
          .map((q) => q.instrument)
          .sort()
      ).toEqual([...want].sort())
      expect(srv.count('public/get_book_summary_by_currency')).toBe(0)
      expect(srv.count('public/get_book_summary_by_instrument')).toBe(want.length)
      expect(only.status().markets).toBe(want.length)
    } finally {
      await f.stop()
      await srv.stop()
    }
  })
})

describe('a pipeline that falls behind', () => {
  it('skips poll passes while the raw queue is backed up, instead of piling up chain answers', async () => {
    const srv = await new DeribitTestServer({ heartbeatMs: 5 }).start()
    srv.chains.set('BTC', BTC)
    const warnings: string[] = []
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        warnings.push(String((JSON.parse(String(chunk)) as { msg: string }).msg))
        done()
      }
    })
    const slow = new DeribitSource({
      wsUrl: srv.wsUrl,
      restUrl: srv.restUrl,
      currencies: ['BTC'],
      symbols: [],
      log: createLogger('warn', sink),
      tuning: { ...TUNING, pollEveryMs: 20 }
    })
    const abort = new AbortController()
    const items = slow.items(abort.signal)[Symbol.asyncIterator]()
    try {
      await items.next() // the first chunk; then nobody reads: the queue fills with heartbeats
      const skips = (): number => warnings.filter((w) => w.startsWith('deribit poll skipped')).length
      await until('a skipped pass', () => skips() >= 1)
      const polls = srv.count('public/get_book_summary_by_currency')
      await until('more skipped passes', () => skips() >= 4)
      expect(srv.count('public/get_book_summary_by_currency')).toBe(polls)
      expect(slow.status().dropped).toBe(0)
    } finally {
      abort.abort()
      await items.return?.()
      await srv.stop()
    }
  })
})
