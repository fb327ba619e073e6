import { describe, expect, it } from 'vitest'
import { LiveState } from '../../engine/live/live-state.js'
import type { Store } from '../../engine/store/store.js'
import { StreamHub } from '../../engine/stream/stream-hub.js'
import { PLANS, type Plan } from '../../engine/access/plans.js'
import { StreamSession, type StreamSocket } from '../../server/stream/session.js'
import { newStreamCounters } from '../../server/stream/counters.js'

function session(plan: Plan) {
  const sent: unknown[] = []
  const topics = new Set<string>()
  const sock: StreamSocket = {
    send: (f) => (sent.push(JSON.parse(f as string)), true),
    subscribe: (t) => void topics.add(t),
    unsubscribe: (t) => void topics.delete(t),
    end: () => undefined
  }
  const live = new LiveState({} as Store) // nothing here reads the store
  live.apply([
    {
      kind: 'trade',
      ts: 1,
      exchange: 'binance',
      market: 'perp',
      symbol: 'BTCUSDT',
      base: 'BTC',
      quote: 'USDT',
      side: 'buy',
      price: 1,
      qty: 1,
      trade_id: '1'
    },
    {
      kind: 'trade',
      ts: 1,
      exchange: 'binance',
      market: 'perp',
      symbol: 'XRPUSDT',
      base: 'XRP',
      quote: 'USDT',
      side: 'buy',
      price: 1,
      qty: 1,
      trade_id: '2'
    }
  ])
  const counters = newStreamCounters()
  const s = new StreamSession(sock, new StreamHub(live), plan, 'json', counters)
  return { s, sent, topics, counters }
}

const op = (v: unknown) => new TextEncoder().encode(JSON.stringify(v))
const settle = () => new Promise((r) => setTimeout(r, 20))

describe('stream session', () => {
  it("refuses symbols outside the plan's list per channel and serves the rest", async () => {
    const plan: Plan = { ...PLANS.trader, symbols: ['BTC'] }
    const { s, sent, topics, counters } = session(plan)
    s.onMessage(op({ op: 'subscribe', id: 1, channels: ['trades:XRP', 'trades:BTC'] }), false)
    await settle()
    expect(sent[0]).toMatchObject({
      type: 'ack',
      channels: ['trades:BTC'],
      errors: [{ channel: 'trades:XRP', code: 'forbidden' }]
    })
    expect((sent[0] as { errors: { message: string }[] }).errors[0]!.message).toContain('XRP is not included')
    expect(sent[1]).toMatchObject({ type: 'snapshot', channel: 'trades:BTC', data: [] })
    expect([...topics]).toEqual(['j|trades:BTC'])
    expect(counters.subscriptions).toBe(1)
    s.close()
    expect(counters.subscriptions).toBe(0)
  })

  it('runs ops in order and refuses more than the pending limit', async () => {
    const { s, sent } = session(PLANS.pro)
    for (let i = 0; i < 20; i++) s.onMessage(op({ op: 'ping', id: i }), false)
    await settle()
    const pongs = sent.filter((f) => (f as { type: string }).type === 'pong').map((f) => (f as { id: number }).id)
    const refused = sent
      .filter((f) => (f as { code?: string }).code === 'too_many_pending')
      .map((f) => (f as { id: number }).id)
    expect(pongs).toEqual(Array.from({ length: 16 }, (_, i) => i))
    expect(refused).toEqual([16, 17, 18, 19])
  })

  // the session keeps one subscription in a field and moves to a map from the second (docs/benchmarks.md, "Stream memory per connection")
  it('tracks one, then several subscriptions, and releases every one on close', async () => {
    const { s, sent, topics, counters } = session(PLANS.pro)
    s.onMessage(op({ op: 'subscribe', channels: ['trades:BTC'] }), false)
    await settle()
    expect(s.subscriptions).toBe(1)
    s.onMessage(op({ op: 'subscribe', channels: ['trades:XRP', 'trades:BTC'] }), false)
    await settle()
    expect(s.subscriptions).toBe(2)
    expect(counters.subscriptions).toBe(2)
    expect([...topics].sort()).toEqual(['j|trades:BTC', 'j|trades:XRP'])
    s.onMessage(op({ op: 'unsubscribe', channels: ['trades:BTC'] }), false)
    s.onMessage(op({ op: 'unsubscribe', channels: ['trades:BTC'] }), false)
    await settle()
    expect(s.subscriptions).toBe(1)
    expect([...topics]).toEqual(['j|trades:XRP'])
    const acks = sent.filter((f) => (f as { type: string }).type === 'ack') as {
      channels: string[]
      errors: { code: string }[]
    }[]
    expect(acks.slice(-2).map((a) => [a.channels, a.errors.map((e) => e.code)])).toEqual([
      [['trades:BTC'], []],
      [[], ['not_subscribed']]
    ])
    s.close()
    expect(s.subscriptions).toBe(0)
    expect(counters.subscriptions).toBe(0)
  })

  it('keeps running ops in order after its queue went idle', async () => {
    const { s, sent } = session(PLANS.pro)
    s.onMessage(op({ op: 'ping', id: 1 }), false)
    await settle()
    s.onMessage(op({ op: 'ping', id: 2 }), false)
    s.onMessage(op({ op: 'ping', id: 3 }), false)
    await settle()
    expect(sent.map((f) => (f as { id: number }).id)).toEqual([1, 2, 3])
  })
})
