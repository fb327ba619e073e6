/**
 * The `signals:` channel kind through a hub fed by a SignalBus: names (per base through the resolver, and
 * `all`), one update per event on the base's channel and on `signals:all`, a key's own forwarded alerts
 * never pushed, snapshots of the newest events, unknown_symbol for a base without a perpetual market.
 */
import { describe, expect, it } from 'vitest'
import { ApiError } from '../../engine/errors.js'
import { LiveState } from '../../engine/live/live-state.js'
import type { TradeRecord } from '../../engine/records/types.js'
import { SignalBus, type SignalEvent } from '../../engine/signals/signal-event.js'
import type { Store } from '../../engine/store/store.js'
import { ChannelError, parseChannel } from '../../engine/stream/channels.js'
import { SNAPSHOT_SIGNALS, signalWire } from '../../engine/stream/kinds/signals.js'
import { StreamHub } from '../../engine/stream/stream-hub.js'

const T0 = 1_799_913_600_000

const trade = (base: string): TradeRecord => ({
  kind: 'trade',
  ts: T0,
  exchange: 'binance',
  market: 'perp',
  symbol: `${base}USDT`,
  base,
  quote: 'USDT',
  side: 'buy',
  price: 1,
  qty: 1,
  trade_id: base
})

let n = 0
const signal = (symbol: string, o: Partial<SignalEvent> = {}): SignalEvent => ({
  id: `${symbol}-long-HIGH-${T0 + ++n}`,
  event: 'HIGH',
  ts: T0 + n,
  symbol,
  direction: 'long',
  confidence: 'HIGH',
  composite: 0.55,
  action: 'CONFIRM',
  source: 'engine',
  ...o
})

function setup() {
  const live = new LiveState({} as Store)
  live.apply([trade('BTC'), trade('ETH')])
  const bus = new SignalBus()
  const hub = new StreamHub(live, { now: () => T0, sources: { signals: bus } })
  const updates: [string, unknown][] = []
  hub.attach({
    publish: (_topic, frame) => {
      const msg = JSON.parse(frame as string)
      updates.push([msg.channel, msg.data])
    },
    subscribers: (topic) => (topic.startsWith('j|') ? 1 : 0)
  })
  return { hub, bus, updates, open: (name: string) => hub.acquire(parseChannel(name)) }
}

describe('signals: channels', () => {
  it('reads signals:<symbol> through the resolver and signals:all; refuses venues and other forms', () => {
    expect(parseChannel('signals:btc')).toEqual({ type: 'signals', name: 'signals:BTC', base: 'BTC' })
    expect(parseChannel('signals:BINANCE:BTCUSDT.P').name).toBe('signals:BTC')
    expect(parseChannel('SIGNALS:ALL')).toEqual({ type: 'signals', name: 'signals:all', base: null })
    for (const bad of ['signals', 'signals:', 'signals:BTC@okx', 'signals:ETH/BTC']) {
      expect(() => parseChannel(bad), bad).toThrow(ChannelError)
    }
  })

  it('pushes each event once on its base channel and on signals:all; never a key’s own alert', () => {
    const { bus, updates, open } = setup()
    open('signals:BTC')
    open('signals:all')
    const btc = signal('BTC')
    bus.publish(btc)
    bus.publish(signal('ETH'))
    bus.publish(signal('BTC', { source: 'alert:tradingview', key_id: 'k1' }))
    expect(updates).toEqual([
      ['signals:BTC', [signalWire(btc)]],
      ['signals:all', [signalWire(btc)]],
      ['signals:all', [expect.objectContaining({ symbol: 'ETH' })]]
    ])
    expect(signalWire(btc)).toEqual({
      id: btc.id,
      event: 'HIGH',
      ts: btc.ts,
      symbol: 'BTC',
      direction: 'long',
      confidence: 'HIGH',
      composite: 0.55,
      action: 'CONFIRM',
      source: 'engine'
    })
  })

  it('snapshots the newest events of the base (or of all), oldest first, at most SNAPSHOT_SIGNALS', async () => {
    const { hub, bus, open } = setup()
    const sent = Array.from({ length: SNAPSHOT_SIGNALS + 5 }, (_, i) => signal(i % 2 ? 'ETH' : 'BTC'))
    for (const e of sent) bus.publish(e) // published before anyone subscribed: kept for the snapshot
    const all = await hub.snapshot(open('signals:all'))
    expect(all.data).toEqual(sent.slice(-SNAPSHOT_SIGNALS).map(signalWire))
    const eth = await hub.snapshot(open('signals:ETH'))
    expect(eth.data).toEqual(sent.filter((e) => e.symbol === 'ETH').map(signalWire))
  })

  it('answers unknown_symbol for a base without a perpetual market; stays quiet without a bus', () => {
    const { open } = setup()
    expect(() => open('signals:BTCX')).toThrow(ApiError)
    const live = new LiveState({} as Store)
    live.apply([trade('BTC')])
    const quiet = new StreamHub(live, { now: () => T0 })
    expect(() => quiet.acquire(parseChannel('signals:BTC'))).not.toThrow()
  })
})
