/**
 * The push stream over real WebSockets against the real server (uWS, chDB): upgrade checks, snapshot then
 * ordered updates, candles, resume with from_seq, msgpack, limits, bad input, slow consumers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Packr } from 'msgpackr'
import { ingestRecords, jsonBody, startTestServer, TEST_ADMIN_TOKEN } from '../helpers/server.js'
import { StreamClient, updatesOf, type Frame } from '../helpers/stream-client.js'
import { until } from '../helpers/until.js'
import type { TradeRecord } from '../../engine/records/types.js'
import { ResilientStream, type StreamEvent } from '../../examples/stream-client.js'

let srv: Awaited<ReturnType<typeof startTestServer>>
let url: string
let traderKey: string
let enterpriseKey: string
const MIN = 60_000

async function createKey(plan: string): Promise<string> {
  const res = await fetch(`${srv.base}/v1/admin/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ plan })
  })
  expect(res.status).toBe(201)
  return (await jsonBody(res)).key
}

let tradeId = 0
function trade(ts: number, price: number, qty: number, exchange = 'binance', base = 'BTC'): TradeRecord {
  const symbol = exchange === 'okx' ? `${base}-USDT-SWAP` : `${base}USDT`
  return {
    kind: 'trade',
    ts,
    exchange,
    market: 'perp',
    symbol,
    base,
    quote: 'USDT',
    side: tradeId % 2 ? 'buy' : 'sell',
    price,
    qty,
    trade_id: String(++tradeId)
  }
}

const post = (rows: readonly TradeRecord[]) =>
  ingestRecords(
    srv.base,
    'trade',
    rows.map(({ kind: _k, ...r }) => r)
  )

async function connect(key = traderKey, query = ''): Promise<StreamClient> {
  const c = await StreamClient.connect(`${url}?key=${key}${query}`)
  await c.next((f) => f.type === 'welcome')
  return c
}

async function subscribe(c: StreamClient, channels: unknown[], id = 1): Promise<Frame> {
  const from = c.frames.length
  c.send({ op: 'subscribe', id, channels })
  return c.next((f) => f.type === 'ack' && f.id === id, 10_000, from)
}

beforeAll(async () => {
  srv = await startTestServer()
  url = `ws://127.0.0.1:${srv.running.port}/v1/stream`
  traderKey = await createKey('trader')
  enterpriseKey = await createKey('enterprise')
  const now = Date.now()
  // markets must exist before their channels can be subscribed
  await post([
    trade(now - 5 * MIN, 50_000, 1),
    trade(now - 5 * MIN, 50_010, 1, 'okx'),
    trade(now - 5 * MIN, 3_000, 2, 'binance', 'ETH')
  ])
}, 60_000)

afterAll(async () => {
  await srv?.stop()
})

describe('upgrade', () => {
  it('refuses a missing or invalid key with 401, a plan without streaming with 403, a bad encoding with 400', async () => {
    for (const target of [url, `${url}?key=tw_live_nope`]) {
      const refused = await StreamClient.connect(target).catch((e: { status: number; body: string }) => e)
      expect(refused).toMatchObject({ status: 401 })
      // the stream also takes the key in ?key= (browsers cannot set WebSocket headers), and its 401 says so
      expect(JSON.parse((refused as { body: string }).body).error).toEqual({
        code: 'unauthorized',
        message: 'a valid API key is required in the X-API-Key header or the ?key= query parameter'
      })
    }
    const free = await createKey('free')
    const refused = await StreamClient.connect(url, { 'x-api-key': free }).catch(
      (e: { status: number; body: string }) => e
    )
    expect(refused).toMatchObject({ status: 403 })
    expect(JSON.parse((refused as { body: string }).body).error.message).toContain('trader plan')
    await expect(StreamClient.connect(`${url}?key=${traderKey}&encoding=xml`)).rejects.toMatchObject({ status: 400 })
  })

  it('answers a plain HTTP request with 426 and accepts the key in the header', async () => {
    const res = await fetch(`${srv.base}/v1/stream`, { headers: { 'x-api-key': traderKey } })
    expect(res.status).toBe(426)
    expect((await jsonBody(res)).error.code).toBe('upgrade_required')
    const c = await StreamClient.connect(url, { 'x-api-key': traderKey })
    const welcome = await c.next((f) => f.type === 'welcome')
    expect(welcome).toMatchObject({ plan: 'trader', encoding: 'json', limits: { subscriptions: 50, connections: 5 } })
    c.close()
  })
})

describe('trades', () => {
  it('sends the ack, a snapshot, then every update in order with consecutive seq', async () => {
    const c = await connect()
    const ack = await subscribe(c, ['trades:btc'])
    expect(ack).toMatchObject({ op: 'subscribe', channels: ['trades:BTC'], errors: [] })
    const snap = await c.next((f) => f.type === 'snapshot' && f.channel === 'trades:BTC')
    expect(c.frames.indexOf(snap)).toBeGreaterThan(c.frames.indexOf(ack))
    const now = Date.now()
    const batches = [
      [trade(now, 50_100, 0.5), trade(now + 1, 50_101, 0.25, 'okx')],
      [trade(now + 2, 50_102, 1)],
      [trade(now + 3, 3_001, 1, 'binance', 'ETH'), trade(now + 4, 50_103, 2)]
    ]
    for (const b of batches) await post(b)
    const updates = await c.count(updatesOf('trades:BTC'), 3)
    expect(updates.map((u) => u.seq)).toEqual([snap.seq + 1, snap.seq + 2, snap.seq + 3])
    expect(updates.map((u) => u.data.map((t: { price: number }) => t.price))).toEqual([
      [50_100, 50_101],
      [50_102],
      [50_103]
    ])
    expect(updates[0].data[1]).toEqual({
      ts: now + 1,
      exchange: 'okx',
      symbol: 'BTC-USDT-SWAP',
      side: batches[0]![1]!.side,
      price: 50_101,
      qty: 0.25,
      trade_id: batches[0]![1]!.trade_id
    })
    // the venue-qualified channel sees only its venue; a new subscriber's snapshot has the recent trades
    const d = await connect()
    await subscribe(d, ['trades:BTC@okx', 'trades:BTC'])
    const [okxSnap, allSnap] = [
      await d.next((f) => f.type === 'snapshot' && f.channel === 'trades:BTC@okx'),
      await d.next((f) => f.type === 'snapshot' && f.channel === 'trades:BTC')
    ]
    expect(okxSnap.data).toEqual([])
    expect(allSnap.seq).toBe(snap.seq + 3)
    expect(allSnap.data.map((t: { price: number }) => t.price)).toEqual([50_100, 50_101, 50_102, 50_103])
    await post([trade(now + 5, 50_104, 1, 'okx'), trade(now + 6, 50_105, 1)])
    const okx = await d.next(updatesOf('trades:BTC@okx'))
    expect(okx.data.map((t: { price: number }) => t.price)).toEqual([50_104])
    c.close()
    d.close()
  })
})

describe('candles', () => {
  it('pushes the forming candle of each batch and the closed candle when the next bucket starts', async () => {
    const c = await connect()
    await subscribe(c, ['candles:ETH:1m'])
    const snap = await c.next((f) => f.type === 'snapshot' && f.channel === 'candles:ETH:1m')
    expect(snap.data.exchange).toBe('binance')
    const m0 = Math.floor(Date.now() / MIN) * MIN + MIN // a minute no earlier trade touched
    await post([trade(m0 + 1_000, 3_010, 1, 'binance', 'ETH'), trade(m0 + 2_000, 3_030, 2, 'binance', 'ETH')])
    await post([trade(m0 + 3_000, 3_005, 1, 'binance', 'ETH')])
    await post([trade(m0 + MIN + 500, 3_040, 1, 'binance', 'ETH')])
    // (the candle of earlier tests' ETH trades closes first: only candles from m0 on are looked at)
    const frames = await c.count((f) => updatesOf('candles:ETH:1m')(f) && f.data.timestamp >= m0, 4)
    const [f1, f2, closed, next] = frames
    expect(f1.data).toMatchObject({
      timestamp: m0,
      closed: false,
      open: 3_010,
      high: 3_030,
      low: 3_010,
      close: 3_030,
      trades: 2
    })
    expect(f2.data).toMatchObject({ timestamp: m0, closed: false, close: 3_005, low: 3_005, volume_base: 4 })
    expect(closed.data).toEqual({
      exchange: 'binance',
      closed: true,
      timestamp: m0,
      symbol: 'ETHUSDT',
      timeframe: '1m',
      open: 3_010,
      high: 3_030,
      low: 3_005,
      close: 3_005,
      volume_base: 4,
      volume_quote: 3_010 + 2 * 3_030 + 3_005,
      trades: 3
    })
    expect(next.data).toMatchObject({ timestamp: m0 + MIN, closed: false, open: 3_040, trades: 1 })
    const seqs = frames.map((f) => f.seq)
    expect(seqs).toEqual([0, 1, 2, 3].map((i) => seqs[0] + i))
    expect(seqs[0]).toBeGreaterThan(snap.seq)
    c.close()
  })
})

describe('resume', () => {
  it('replays missed updates from from_seq, and answers a fresh snapshot flagged reset when they are gone', async () => {
    const a = await connect()
    await subscribe(a, ['trades:ETH'])
    const snap = await a.next((f) => f.type === 'snapshot')
    a.close()
    const now = Date.now()
    await post([trade(now, 3_100, 1, 'binance', 'ETH')])
    await post([trade(now + 1, 3_101, 1, 'binance', 'ETH')])
    const b = await connect()
    const from = b.frames.length
    await subscribe(b, [{ channel: 'trades:ETH', from_seq: snap.seq + 1 }], 2)
    const replayed = await b.count(updatesOf('trades:ETH'), 2)
    expect(replayed.map((u) => u.seq)).toEqual([snap.seq + 1, snap.seq + 2])
    expect(replayed.map((u) => u.data[0].price)).toEqual([3_100, 3_101])
    expect(b.frames.slice(from).some((f) => f.type === 'snapshot')).toBe(false)
    // live updates continue the same numbering
    await post([trade(now + 2, 3_102, 1, 'binance', 'ETH')])
    const live = await b.next((f) => f.type === 'update' && f.seq === snap.seq + 3)
    expect(live.data[0].price).toBe(3_102)
    // a from_seq older than anything retained (or from another instance of the channel) gets a reset snapshot
    await subscribe(b, [{ channel: 'trades:ETH', from_seq: 5 }], 3)
    const reset = await b.next((f) => f.type === 'snapshot' && f.reset === true)
    expect(reset.seq).toBe(snap.seq + 3)
    b.close()
  })
})

describe('encodings', () => {
  it('msgpack frames decode to the same objects as the JSON frames', async () => {
    const j = await connect()
    const m = await connect(traderKey, '&encoding=msgpack')
    await subscribe(j, ['trades:BTC'])
    // a msgpack connection may send its ops as MessagePack too
    m.ws.send(new Packr({ useRecords: false }).pack({ op: 'subscribe', id: 1, channels: ['trades:BTC'] }))
    await m.next((f) => f.type === 'snapshot')
    await j.next((f) => f.type === 'snapshot')
    expect(m.raw.every((r) => Buffer.isBuffer(r))).toBe(true)
    expect(j.raw.every((r) => typeof r === 'string')).toBe(true)
    const now = Date.now()
    await post([trade(now, 50_200.125, 0.001), trade(now + 1, 50_201, 3, 'okx')])
    const [ju, mu] = [await j.next(updatesOf('trades:BTC')), await m.next(updatesOf('trades:BTC'))]
    expect(mu).toEqual(ju)
    expect(ju.data).toHaveLength(2)
    j.close()
    m.close()
  })
})

describe('bad input and limits', () => {
  it('answers bad frames, unknown channels and bad names with errors and keeps the connection', async () => {
    const c = await connect()
    c.ws.send('not json')
    expect(await c.next((f) => f.type === 'error')).toMatchObject({ code: 'invalid_message' })
    c.send({ op: 'dance', id: 7 })
    expect(await c.next((f) => f.type === 'error' && f.id === 7)).toMatchObject({ code: 'unknown_op' })
    c.send({ op: 'subscribe', id: 8, channels: 'trades:BTC' })
    expect(await c.next((f) => f.type === 'error' && f.id === 8)).toMatchObject({ code: 'invalid_parameter' })
    c.ws.send(JSON.stringify({ op: 'ping', pad: 'x'.repeat(20_000) }))
    expect(await c.next((f) => f.type === 'error' && f.code === 'message_too_large')).toBeTruthy()
    const ack = await subscribe(
      c,
      ['nope:BTC', 'candles:BTC:7m', 'trades:DOGE', 'whales:mars', 'options:SOL', 'trades:BTC@ftx', 'screener'],
      9
    )
    expect(ack.channels).toEqual(['screener'])
    expect(ack.errors.map((e: { channel: string; code: string }) => [e.channel, e.code])).toEqual([
      ['nope:BTC', 'unknown_channel'],
      ['candles:BTC:7m', 'invalid_channel'],
      ['trades:DOGE', 'unknown_symbol'],
      ['whales:mars', 'invalid_channel'],
      ['options:SOL', 'invalid_channel'],
      ['trades:BTC@ftx', 'invalid_channel']
    ])
    expect(ack.errors[1].message).toContain('1m, 5m')
    c.send({ op: 'unsubscribe', id: 10, channels: ['trades:BTC', 'screener'] })
    const unack = await c.next((f) => f.type === 'ack' && f.id === 10)
    expect(unack).toMatchObject({ channels: ['screener'], errors: [{ channel: 'trades:BTC', code: 'not_subscribed' }] })
    c.send({ op: 'ping', id: 'p' })
    expect(await c.next((f) => f.type === 'pong' && f.id === 'p')).toBeTruthy()
    // frames over the socket's hard cap close that connection only
    c.ws.send('x'.repeat(100_000))
    expect([1006, 1009]).toContain((await c.waitClosed()).code)
    expect((await fetch(`${srv.base}/v1/health`)).status).toBe(200)
  })

  it('caps subscriptions per connection and connections per key by the plan', async () => {
    const c = await connect()
    const names = [
      ...['all', 'ethereum', 'bsc', 'avalanche', 'polygon', 'arbitrum', 'base', 'optimism', 'solana'].flatMap((ch) =>
        ['low', 'medium', 'high', 'critical'].map((s) => `whales:${ch}:${s}`)
      ),
      ...['1m', '5m', '15m', '1h', '4h', '1d', '1w', '1M'].map((tf) => `candles:BTC:${tf}`),
      'options:BTC',
      'options:ETH',
      'screener',
      'trades:BTC',
      'trades:ETH',
      'funding:BTC',
      'funding:ETH'
    ]
    expect(names.length).toBe(51)
    const ack = await subscribe(c, names)
    expect(ack.channels).toHaveLength(50)
    expect(ack.errors).toEqual([
      {
        channel: 'funding:ETH',
        code: 'subscription_limit',
        message: 'the trader plan allows 50 subscriptions per connection'
      }
    ])
    c.close()
    const key = await createKey('trader')
    const open: StreamClient[] = []
    for (let i = 0; i < 5; i++) open.push(await connect(key))
    const extra = await StreamClient.connect(`${url}?key=${key}`)
    expect(await extra.next((f) => f.type === 'error')).toMatchObject({ code: 'connection_limit' })
    expect((await extra.waitClosed()).code).toBe(1008)
    open.pop()!.close()
    // a slot frees up once the server has seen the close (polled: no fixed sleep)
    let again: StreamClient | null = null
    await until('a slot after the close', async () => {
      const c = await StreamClient.connect(`${url}?key=${key}`)
      if ((await c.next(() => true)).type === 'welcome') again = c
      return again !== null
    })
    again!.close()
    for (const o of open) o.close()
  })
})

describe('slow consumers', () => {
  it('drops a consumer that stops reading while a fast one receives every update', async () => {
    const fast = await connect(enterpriseKey)
    const slowBefore = (await jsonBody(await fetch(`${srv.base}/v1/health`))).stream.slow_consumer_disconnects
    const slow = await connect(enterpriseKey)
    await subscribe(fast, ['trades:BTC'])
    await subscribe(slow, ['trades:BTC'])
    const snap = await fast.next((f) => f.type === 'snapshot')
    await slow.next((f) => f.type === 'snapshot')
    // the slow client stops reading from its socket: the kernel buffers fill, then uWS buffers
    ;(slow.ws as unknown as { _socket: { pause(): void } })._socket.pause()
    const live = srv.running.ctx.live
    const stream = srv.running.ctx.stream!
    const slowNow = () => stream.stats()['slow_consumer_disconnects']
    // ~100 KB updates, one per 20 ms, until the server gave up on the slow consumer: its sweep (every
    // 100 ms) sees it past the 1 MiB notice limit long before the 4 MiB hard cap would cut it off without
    // a notice (a tight loop of 200 updates could cross both between two sweeps: seen as 1006 in full runs)
    const now = Date.now()
    let batches = 0
    while (slowNow() === slowBefore) {
      expect(batches).toBeLessThan(2_000)
      const rows: TradeRecord[] = []
      for (let i = 0; i < 1_000; i++) rows.push(trade(now + batches, 50_000 + i, 1))
      live.apply(rows) // straight into the live state (more than loopback buffers hold, in time)
      batches++
      await new Promise((r) => setTimeout(r, 20))
    }
    // it tells the slow consumer and closes it, and cuts the socket off if the peer has not read its close
    // frame 2 s later: resume reading at once, so the client reads the notice and the close frame
    ;(slow.ws as unknown as { _socket: { resume(): void } })._socket.resume()
    const got = await fast.count(updatesOf('trades:BTC'), batches, 30_000)
    expect(got.map((u) => u.seq)).toEqual(Array.from({ length: batches }, (_, i) => snap.seq + 1 + i))
    const closed = await slow.waitClosed(15_000)
    expect(closed.code).toBe(4008)
    expect(slow.frames.some((f) => f.type === 'error' && f.code === 'slow_consumer')).toBe(true)
    const health = await jsonBody(await fetch(`${srv.base}/v1/health`))
    expect(health.stream.slow_consumer_disconnects).toBe(slowBefore + 1)
    fast.close()
  }, 60_000)
})

describe('health', () => {
  it('counts connections, subscriptions, messages and drops', async () => {
    const streamHealth = async () => (await jsonBody(await fetch(`${srv.base}/v1/health`))).stream
    const before = await streamHealth()
    const c = await connect()
    await subscribe(c, ['trades:BTC', 'screener'])
    await c.next((f) => f.type === 'snapshot' && f.channel === 'screener')
    const h = await streamHealth()
    expect(h.connections).toBe(before.connections + 1)
    expect(h.subscriptions).toBe(before.subscriptions + 2)
    expect(h.messages).toBeGreaterThanOrEqual(before.messages + c.frames.length)
    expect(h).toHaveProperty('dropped_frames')
    c.close()
    await until(
      'the closed connection no longer counted',
      async () => (await streamHealth()).connections === before.connections
    )
    expect((await streamHealth()).subscriptions).toBe(before.subscriptions)
  })
})

describe('derived channels', () => {
  it('funding: snapshot per venue, then each funding record with its annualized rate', async () => {
    const c = await connect()
    await subscribe(c, ['funding:BTC'])
    const snap = await c.next((f) => f.type === 'snapshot' && f.channel === 'funding:BTC')
    expect(snap.data.map((r: { exchange: string }) => r.exchange)).toEqual(['binance', 'okx'])
    const ts = Date.now()
    await ingestRecords(srv.base, 'funding', [
      { ts, exchange: 'okx', symbol: 'BTC-USDT-SWAP', base: 'BTC', funding_rate: 0.0002, interval_hours: 4 }
    ])
    const u = await c.next(updatesOf('funding:BTC'))
    expect(u.seq).toBe(snap.seq + 1)
    expect(u.data).toEqual([
      {
        ts,
        exchange: 'okx',
        symbol: 'BTC-USDT-SWAP',
        base: 'BTC',
        funding_rate: 0.0002,
        interval_hours: 4,
        funding_rate_annualized: (0.0002 * 8760) / 4,
        next_funding_ts: null,
        mark_price: null
      }
    ])
    c.close()
  })

  it('screener: every row in the snapshot, then the changed rows of each tick', async () => {
    const c = await connect()
    await subscribe(c, ['screener'])
    const snap = await c.next((f) => f.type === 'snapshot' && f.channel === 'screener')
    expect(snap.data.rows.length).toBeGreaterThanOrEqual(3)
    await ingestRecords(srv.base, 'open_interest', [
      { ts: Date.now(), exchange: 'okx', symbol: 'BTC-USDT-SWAP', base: 'BTC', oi_base: 10, oi_usd: 500_000 }
    ])
    const u = await c.next(
      (f) =>
        updatesOf('screener')(f) &&
        f.data.rows.some((r: { open_interest_usd: number }) => r.open_interest_usd === 500_000)
    )
    // only markets with new readings since the last tick (the funding test touched okx BTC just before)
    expect(u.data.rows.length).toBeLessThan(snap.data.rows.length)
    expect(u.data.rows).toContainEqual(
      expect.objectContaining({ exchange: 'okx', symbol: 'BTC-USDT-SWAP', open_interest_usd: 500_000 })
    )
    c.close()
  })

  it('options: the chain summary when a quote changes it', async () => {
    const c = await connect()
    await subscribe(c, ['options:btc'])
    const snap = await c.next((f) => f.type === 'snapshot' && f.channel === 'options:BTC')
    const chain = await jsonBody(
      await fetch(`${srv.base}/v1/options/chain?currency=BTC`, { headers: { 'x-api-key': traderKey } })
    )
    expect(snap.data).toEqual(chain)
    const exp = Math.floor(Date.now() / 86_400_000) * 86_400_000 + 3 * 86_400_000 + 8 * 3_600_000
    const d = new Date(exp)
    const code = `${d.getUTCDate()}${['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'][d.getUTCMonth()]}${String(d.getUTCFullYear()).slice(2)}`
    await ingestRecords(srv.base, 'option_quote', [
      {
        ts: Date.now(),
        exchange: 'deribit',
        instrument: `BTC-${code}-50000-C`,
        underlying_price: 50_000,
        mark_price: 0.02,
        open_interest: 12,
        volume_24h: 1,
        mark_iv: 55
      }
    ])
    const u = await c.next(updatesOf('options:BTC'))
    const after = await jsonBody(
      await fetch(`${srv.base}/v1/options/chain?currency=BTC`, { headers: { 'x-api-key': traderKey } })
    )
    expect(u.data).toEqual(after)
    c.close()
  })

  it('whales: new collapsed events at or above the channel significance only', async () => {
    const c = await connect()
    await subscribe(c, ['whales:all:high', 'whales:bsc'])
    await c.next((f) => f.type === 'snapshot' && f.channel === 'whales:all:high')
    await c.next((f) => f.type === 'snapshot' && f.channel === 'whales:bsc:medium')
    const ts = Date.now() - 1_000
    const row = (p: object) => ({
      ts,
      chain: 'ethereum',
      tx_hash: '0xabc',
      log_index: 0,
      block_number: 1,
      address: '0xwhale',
      counterparty: '0xother',
      event_type: 'transfer_out',
      token: 'USDC',
      amount: 3_000_000,
      usd_value: 3_000_000,
      ...p
    })
    await ingestRecords(srv.base, 'whale_transfer', [
      row({}),
      row({ chain: 'bsc', tx_hash: '0xdef', usd_value: 600_000, amount: 600_000 })
    ])
    const high = await c.next(updatesOf('whales:all:high'))
    expect(high.data.events.map((e: { id: string; significance: string }) => [e.id, e.significance])).toEqual([
      ['ethereum:0xabc:0:0xwhale', 'high']
    ])
    const bsc = await c.next(updatesOf('whales:bsc:medium'))
    expect(bsc.data.events).toEqual([
      expect.objectContaining({ chain: 'bsc', tx_hash: '0xdef', usd_value: 600_000, repeat_count: 1 })
    ])
    c.close()
  })

  it('confirm: both directions in the snapshot, an update when the verdict moves', async () => {
    const c = await connect()
    await subscribe(c, ['confirm:BTC'])
    const snap = await c.next((f) => f.type === 'snapshot' && f.channel === 'confirm:BTC')
    expect(snap.data.symbol).toBe('BTC')
    expect(snap.data.long).toMatchObject({ symbol: 'BTC', direction: 'long' })
    expect(snap.data.short.composite).toBe(snap.data.long.composite === 0 ? 0 : -snap.data.long.composite)
    // an extreme crowded-long funding moves the derivatives score
    await ingestRecords(srv.base, 'funding', [
      { ts: Date.now(), exchange: 'binance', symbol: 'BTCUSDT', base: 'BTC', funding_rate: 0.003, interval_hours: 8 }
    ])
    const u = await c.next(updatesOf('confirm:BTC'), 15_000)
    expect(u.seq).toBe(snap.seq + 1)
    expect(u.data.long.composite).not.toBe(snap.data.long.composite)
    expect(u.data.long.derivatives.funding_rate).toBe(0.003)
    c.close()
  })
})

describe('the example client (examples/stream-client.ts)', () => {
  it('detects the gap a dropped connection leaves and resumes with from_seq, missing nothing', async () => {
    const events: StreamEvent[] = []
    const gaps: string[] = []
    const client = new ResilientStream({
      url,
      key: enterpriseKey,
      channels: ['trades:SOL'],
      retryMs: 300,
      onEvent: (e) => events.push(e),
      onGap: (ch) => gaps.push(ch)
    })
    const now = Date.now()
    await post([trade(now, 150, 1, 'binance', 'SOL')])
    client.start()
    await until('the snapshot', () => events.some((e) => e.kind === 'snapshot'))
    await post([trade(now + 1, 151, 1, 'binance', 'SOL')])
    await until('the first update', () => events.length === 2)
    ;(client as unknown as { ws: { terminate(): void } }).ws.terminate()
    await post([trade(now + 2, 152, 1, 'binance', 'SOL')])
    await post([trade(now + 3, 153, 1, 'binance', 'SOL')])
    await until('the updates sent while down', () => events.length === 4)
    await post([trade(now + 4, 154, 1, 'binance', 'SOL')])
    await until('the update after the resume', () => events.length === 5)
    client.stop()
    const [snap, ...updates] = events
    expect(gaps).toEqual(['trades:SOL'])
    expect(events.filter((e) => e.kind === 'snapshot')).toHaveLength(1)
    expect(updates.map((u) => u.seq)).toEqual([1, 2, 3, 4].map((i) => snap!.seq + i))
    expect(updates.map((u) => (u.data as { price: number }[])[0]!.price)).toEqual([151, 152, 153, 154])
  })

  it('reports a refused upgrade with the server message and stops when retrying cannot help', async () => {
    const refusals: [number, string, boolean][] = []
    const client = new ResilientStream({
      url,
      key: 'tw_live_nope',
      channels: ['trades:BTC'],
      retryMs: 50,
      onEvent: () => undefined,
      onRefused: (...r) => refusals.push(r)
    })
    client.start()
    await until('the refusal', () => refusals.length > 0)
    // absence of a retry (due 50 ms after the refusal): a slow machine can only hide one, never invent one
    await new Promise((r) => setTimeout(r, 300))
    client.stop()
    expect(refusals).toEqual([[401, expect.stringContaining('?key='), false]])
  })

  it('reports a connection that fails (no server) and keeps retrying', async () => {
    const errors: string[] = []
    const closed = await import('node:net').then(
      (net) =>
        new Promise<number>((resolve) => {
          const s = net.createServer().listen(0, '127.0.0.1', () => {
            const port = (s.address() as { port: number }).port
            s.close(() => resolve(port))
          })
        })
    )
    const client = new ResilientStream({
      url: `ws://127.0.0.1:${closed}/v1/stream`,
      key: traderKey,
      channels: ['trades:BTC'],
      retryMs: 20,
      onEvent: () => undefined,
      onError: (err) => errors.push(err.message)
    })
    client.start()
    await until('two failed connections', () => errors.length >= 2)
    client.stop()
    expect(errors[0]).toContain('ECONNREFUSED')
  })
})
