/**
 * The stream hub with kinds of its own (not the registry's): what the hub keeps for every kind (seq numbers,
 * snapshots, resume, idle retention, publishing, a failing tick) and that a kind fed by a source other
 * than the live records (here a SignalBus, as the signals channel's is) needs no hub change.
 */
import { describe, expect, it } from 'vitest'
import { ApiError } from '../../engine/errors.js'
import { LiveState } from '../../engine/live/live-state.js'
import type { Store } from '../../engine/store/store.js'
import { RETAIN_MS } from '../../engine/stream/channel-log.js'
import type { Channel, ChannelKind, KindRuntime, SpecBase } from '../../engine/stream/kinds/kind.js'
import { StreamHub, type Publisher } from '../../engine/stream/stream-hub.js'
import { SignalBus, type SignalEvent } from '../../engine/signals/signal-event.js'

const T0 = 1_800_000_000_000

interface EventsSpec extends SpecBase {
  readonly type: 'events'
  readonly symbol: string
}
const spec = (symbol: string): EventsSpec => ({ type: 'events', name: `events:${symbol}`, symbol })

/** A kind fed by a SignalBus: each event of a symbol is one update of that symbol's channel. */
function eventsKind(bus: SignalBus, log: string[] = []): ChannelKind<EventsSpec, { last: SignalEvent | null }> {
  return {
    type: 'events',
    parse: ({ parts }) => spec(parts[1]!),
    base: (s) => s.symbol,
    start(ctx) {
      bus.subscribe((e) => {
        const ch = ctx.channels.get(`events:${e.symbol}`)
        if (!ch) return
        ch.state.last = e
        ctx.publish(ch, e)
      })
      return {
        create: (s) => {
          if (s.symbol === 'NOPE') throw new ApiError('unknown_symbol', 'no NOPE')
          return { last: null }
        },
        added: (ch) => void log.push(`added ${ch.spec.name}`),
        removed: (ch) => void log.push(`removed ${ch.spec.name}`),
        snapshot: (ch) => ({ last: ch.state.last?.id ?? null })
      }
    }
  }
}

const signal = (id: string, symbol = 'BTC'): SignalEvent => ({
  id,
  event: 'HIGH',
  ts: T0,
  symbol,
  direction: 'long',
  confidence: 'HIGH',
  composite: 60,
  action: 'CONFIRM',
  source: 'engine'
})

function recorder(subscribers = (topic: string) => (topic.startsWith('j|') ? 2 : 0)) {
  const frames: { topic: string; msg: { channel: string; seq: number; data: unknown } }[] = []
  const pub: Publisher = {
    publish: (topic, frame) => void frames.push({ topic, msg: JSON.parse(frame as string) }),
    subscribers
  }
  return { pub, frames }
}

function hubWith(kinds: readonly ChannelKind[]) {
  let now = T0
  const hub = new StreamHub(new LiveState({} as Store), { now: () => now, kinds })
  const { pub, frames } = recorder()
  hub.attach(pub)
  return { hub, frames, at: (ms: number) => void (now = ms) }
}

describe('stream hub', () => {
  it('numbers a kind’s updates from the creation time x 1000; a snapshot carries the last seq; resume replays', async () => {
    const bus = new SignalBus()
    const { hub, frames } = hubWith([eventsKind(bus) as ChannelKind])
    const ch = hub.acquire(spec('BTC'))
    expect(await hub.snapshot(ch)).toEqual({ seq: T0 * 1000, data: { last: null } })
    bus.publish(signal('a'))
    bus.publish(signal('b'))
    bus.publish(signal('x', 'ETH')) // no channel: nothing
    expect(frames.map((f) => [f.topic, f.msg.seq, (f.msg.data as SignalEvent).id])).toEqual([
      ['j|events:BTC', T0 * 1000 + 1, 'a'],
      ['j|events:BTC', T0 * 1000 + 2, 'b']
    ])
    expect(await hub.snapshot(ch)).toEqual({ seq: T0 * 1000 + 2, data: { last: 'b' } })
    expect(hub.resume(ch, T0 * 1000 + 2)!.map((u) => u.seq)).toEqual([T0 * 1000 + 2])
    expect(hub.resume(ch, T0 * 1000 + 3)).toEqual([])
    expect(hub.resume(ch, T0 * 1000 + 9)).toBeNull()
    // only encodings with subscribers are encoded; each subscriber counts
    expect(hub.stats()).toMatchObject({ channels: 1, updates: 2, messages: 4 })
  })

  it('keeps an idle channel RETAIN_MS for resume, then drops it; a re-created channel numbers from its own creation', async () => {
    const bus = new SignalBus()
    const log: string[] = []
    const { hub, at } = hubWith([eventsKind(bus, log) as ChannelKind])
    hub.acquire(spec('BTC'))
    hub.acquire(spec('BTC'))
    expect(log).toEqual(['added events:BTC'])
    hub.release('events:BTC')
    hub.release('events:BTC')
    at(T0 + RETAIN_MS)
    await hub.tick()
    expect(hub.stats().channels).toBe(1)
    at(T0 + RETAIN_MS + 1)
    await hub.tick()
    expect(hub.stats().channels).toBe(0)
    expect(log).toEqual(['added events:BTC', 'removed events:BTC'])
    const again = hub.acquire(spec('BTC'))
    expect(again.log.seq).toBe((T0 + RETAIN_MS + 1) * 1000)
  })

  it('creates nothing when the kind refuses the channel, and refuses two kinds of one type', () => {
    const log: string[] = []
    const { hub } = hubWith([eventsKind(new SignalBus(), log) as ChannelKind])
    expect(() => hub.acquire(spec('NOPE'))).toThrow(ApiError)
    expect(() => hub.acquire({ type: 'other', name: 'other' })).toThrow(/no channel kind 'other'/)
    expect(hub.stats().channels).toBe(0)
    expect(log).toEqual([])
    const twice = eventsKind(new SignalBus()) as ChannelKind
    expect(() => new StreamHub(new LiveState({} as Store), { kinds: [twice, twice] })).toThrow(
      "two channel kinds of type 'events'"
    )
  })

  it('a failing tick does not stop the later kinds nor retention; the pass rejects with the first failure', async () => {
    const ticked: string[] = []
    const kind = (type: string, tick: KindRuntime['tick']): ChannelKind => ({
      type,
      parse: () => ({ type, name: type }),
      base: () => null,
      start: (ctx) => ({
        create: () => null,
        snapshot: () => null,
        tick: async (now) => {
          await tick!(now)
          for (const ch of ctx.channels.values()) ctx.publish(ch, now)
        }
      })
    })
    const { hub, frames, at } = hubWith([
      kind('broken', () => {
        ticked.push('broken')
        throw new Error('store down')
      }),
      kind('fine', () => void ticked.push('fine'))
    ])
    hub.acquire({ type: 'fine', name: 'fine' })
    hub.acquire({ type: 'broken', name: 'broken' })
    hub.release('broken')
    at(T0 + RETAIN_MS + 1)
    await expect(hub.tick()).rejects.toThrow('store down')
    expect(ticked).toEqual(['broken', 'fine'])
    expect(frames.map((f) => f.msg.channel)).toEqual(['fine'])
    expect(hub.stats().channels).toBe(1) // the idle 'broken' channel expired all the same
  })

  it('takes the seq only once the kind says the channel is ready', async () => {
    let ready!: () => void
    let publish!: (data: unknown) => void
    const kind: ChannelKind = {
      type: 'slow',
      parse: () => ({ type: 'slow', name: 'slow' }),
      base: () => null,
      start(ctx) {
        return {
          create: () => null,
          added: (ch: Channel) => void (publish = (d) => ctx.publish(ch, d)),
          ready: () => new Promise<void>((r) => (ready = r)),
          snapshot: (ch: Channel) => ch.log.recent(1).map((u) => u.data)
        }
      }
    }
    const { hub } = hubWith([kind])
    const snap = hub.snapshot(hub.acquire({ type: 'slow', name: 'slow' }))
    publish('first')
    ready()
    expect(await snap).toEqual({ seq: T0 * 1000 + 1, data: ['first'] })
  })
})
