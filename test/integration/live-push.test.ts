/**
 * A venue's trade reaches a push-stream subscriber without waiting for the store: the real server reads the
 * local Binance protocol server with the insert batch's timer at its maximum (INGEST_FLUSH_MS=60000, longer
 * than this test may run), and each trade sent on the venue socket arrives as a `trades:` update while its
 * row still waits in the open batch. Sequence numbers run on without a gap.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestServer } from '../helpers/server.js'
import { StreamClient, updatesOf, type Frame } from '../helpers/stream-client.js'
import { until } from '../helpers/until.js'
import { BinanceTestServer } from '../helpers/venues/binance-server.js'
import * as BN from '../helpers/venues/binance-fixtures.js'

/** the insert batch's age limit, ms: the configured maximum, beyond the test's 60 s timeout */
const FLUSH_MS = '60000'
const CHANNEL = 'trades:BTC@binance'

let binance: BinanceTestServer
let srv: Awaited<ReturnType<typeof startTestServer>>
let client: StreamClient

/** Rows of the trades table accepted and not yet written. */
const tradesQueued = (): number => srv.running.ctx.pipeline.totals().tables['trades']?.queued ?? 0

beforeAll(async () => {
  binance = await new BinanceTestServer().start()
  for (const s of BN.PERPS) {
    binance.openInterest.set(s, '1000')
    binance.longShort.set(s, '1')
  }
  srv = await startTestServer({
    SOURCES: 'binance',
    BINANCE_WS_URL: binance.wsUrl,
    BINANCE_REST_URL: binance.restUrl,
    INGEST_FLUSH_MS: FLUSH_MS
  })
  await binance.waitSubscribed(['btcusdt@aggTrade'])
  const key = (await srv.running.ctx.keys.create('trader', 'live-push')).key
  client = await StreamClient.connect(`ws://127.0.0.1:${srv.running.port}/v1/stream?key=${key}`)
  await client.next((f) => f.type === 'welcome')
  // the market exists once its first trade reached the live state (a channel of an unknown base is refused)
  binance.trade('BTCUSDT', Date.now(), '50000.0', '0.5', false)
  let id = 0
  await until('BTC known to the push stream', async () => {
    const from = client.frames.length
    client.send({ op: 'subscribe', id: ++id, channels: [CHANNEL] })
    const ack = await client.next((f) => f.type === 'ack' && f.id === id, 10_000, from)
    return ack.channels.includes(CHANNEL)
  })
  await client.next((f) => f.type === 'snapshot' && f.channel === CHANNEL)
}, 60_000)

afterAll(async () => {
  client?.ws.terminate()
  await srv?.stop()
  await binance?.stop()
})

describe('venue to subscriber', () => {
  it('pushes each trade as it is normalized, while its row waits for the insert batch', async () => {
    let lastSeq: number | undefined
    for (let i = 1; i <= 3; i++) {
      const from = client.frames.length
      const id = binance.trade('BTCUSDT', Date.now(), `${50_000 + i}.0`, '0.25', i % 2 === 0)
      const update: Frame = await client.next(
        (f) => updatesOf(CHANNEL)(f) && f.data.some((t: Frame) => t.trade_id === String(id)),
        50_000,
        from
      )
      // no batch was sealed by its timer: the trade's row is still queued for the store
      expect(tradesQueued()).toBeGreaterThanOrEqual(1)
      expect(update.data.find((t: Frame) => t.trade_id === String(id))).toMatchObject({
        exchange: 'binance',
        symbol: 'BTCUSDT',
        price: 50_000 + i,
        qty: 0.25
      })
      if (lastSeq !== undefined) expect(update.seq).toBe(lastSeq + 1)
      lastSeq = update.seq
    }
  })
})
