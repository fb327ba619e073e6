import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { silentLogger } from '../../engine/log.js'
import type { NormalizedRecord } from '../../engine/records/types.js'
import { recordingFiles } from '../../ingest/record/replay-reader.js'
import { DeribitSource } from '../../ingest/sources/deribit.js'
import { ReplaySource } from '../../ingest/sources/replay-source.js'
import { jsonBody, startTestServer } from '../helpers/server.js'
import { tmpDir } from '../helpers/tmp-dir.js'
import { DeribitTestServer } from '../helpers/venues/deribit-server.js'
import { chain } from '../helpers/venues/deribit-fixtures.js'
import { drainSource } from '../helpers/venues/drain-source.js'
import { until } from '../helpers/until.js'

const NOW = Date.now()
const rec = tmpDir()
let live: NormalizedRecord[] = []
let liveStatus: ReturnType<DeribitSource['status']>

/** Records a short session: two poll passes with changed open interest in between, junk and a venue error. */
beforeAll(async () => {
  const venue = await new DeribitTestServer({ heartbeatMs: 50 }).start()
  const btc = chain('BTC', NOW)
  venue.chains.set('BTC', btc)
  venue.chains.set('ETH', chain('ETH', NOW))
  const source = new DeribitSource({
    wsUrl: venue.wsUrl,
    restUrl: venue.restUrl,
    currencies: ['BTC', 'ETH'],
    symbols: [],
    log: silentLogger(),
    recordDir: rec.dir,
    tuning: { pollEveryMs: 100 }
  })
  const feed = drainSource(source)
  const polls = (): number => venue.count('public/get_book_summary_by_currency')
  await until('first pass', () => polls() >= 2)
  venue.chains.set(
    'BTC',
    btc.map((o) => ({ ...o, oi: o.oi + 1 }))
  )
  venue.sendRaw('{"jsonrpc":"2.0",') // not JSON
  venue.sendRaw(JSON.stringify({ jsonrpc: '2.0', method: 'subscription', params: { channel: 'x', data: {} } }))
  venue.sendRaw(JSON.stringify({ jsonrpc: '2.0', error: { code: 11050, message: 'bad_request' } }))
  venue.testRequest()
  await until('test answered', () => venue.testAnswers === 1)
  // three whole passes normalized (6 requests sent is not enough: the last answers may still be on the way)
  await until('more passes', () => polls() >= 6 && feed.records.length >= 3 * 96)
  await feed.stop()
  live = feed.records
  liveStatus = source.status()
  await venue.stop()
})

afterAll(() => rec.cleanup())

describe('Deribit record and replay', () => {
  it('a replay yields exactly the records of the live session, through the same normalizer', async () => {
    expect(recordingFiles(rec.dir).every((f) => f.includes('/deribit/'))).toBe(true)
    const source = new ReplaySource({ path: rec.dir, speed: 0, log: silentLogger() })
    const feed = drainSource(source)
    await feed.done
    expect(live.length).toBeGreaterThanOrEqual(3 * 96)
    expect(feed.records).toEqual(live)
    expect(source.status()).toMatchObject({
      phase: 'done',
      rows: live.length,
      parse_errors: liveStatus.parse_errors,
      unknown_messages: liveStatus.unknown_messages,
      venue_errors: liveStatus.venue_errors
    })
    expect(liveStatus).toMatchObject({ parse_errors: 1, unknown_messages: 1, venue_errors: 1 })
  })

  it('SOURCES=replay:<dir> through the real server serves the recorded chain', async () => {
    const srv = await startTestServer({
      SOURCES: `replay:${rec.dir}`,
      REPLAY_SPEED: 'max',
      INGEST_FLUSH_MS: '50',
      PUBLIC_RATE_PER_MIN: '1000'
    })
    try {
      await until('replay done', () => srv.running.ctx.sources[0]!.status().phase === 'done')
      const last = live.filter((r) => r.kind === 'option_quote' && r.instrument.startsWith('BTC-')).at(-1)!
      const body = await jsonBody(await fetch(`${srv.base}/v1/options/chain?currency=BTC`))
      expect(body.updated).toBe(Math.floor(last.ts / 1000))
      // the last pass carries the raised open interest: 48 live BTC options, each +1 coin
      const first = live.filter((r) => r.kind === 'option_quote' && r.instrument.startsWith('BTC-')).slice(0, 48)
      const firstCalls = first.filter((r) => r.kind === 'option_quote' && r.instrument.endsWith('-C'))
      const callOi = firstCalls.reduce((a, r) => a + (r.kind === 'option_quote' ? r.open_interest : 0), 0)
      expect(body.total_call_oi).toBe(callOi + 24)
    } finally {
      await srv.stop()
    }
  })
})
