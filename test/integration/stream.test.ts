/**
 * The push stream over real WebSockets against the real server (uWS, chDB): upgrade checks, snapshot then
 * ordered updates, candles, resume with from_seq, msgpack, and the example client (examples/stream-client.ts).
 */
import { describe, expect, it } from 'vitest'
import { Packr } from 'msgpackr'
import { jsonBody } from '../helpers/server.js'
import { StreamClient, updatesOf } from '../helpers/stream-client.js'
import { until } from '../helpers/until.js'
import { ResilientStream, type StreamEvent } from '../../examples/stream-client.js'
import {
  srv,
  url,
  traderKey,
  enterpriseKey,
  MIN,
  createKey,
  trade,
  post,
  connect,
  subscribe,
  useStreamServer
} from '../helpers/stream-server.js'

useStreamServer()

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
