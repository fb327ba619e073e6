/**
 * The registry's channel kinds through a hub over an in-memory live state: which records reach which
 * channel (trades per base and venue, candles of the watched market and timeframe, funding per base,
 * screener rows of changed markets), the shape of their snapshots and updates, and the unknown_symbol
 * answers with the nearest bases.
 */
import { describe, expect, it } from 'vitest'
import { ApiError } from '../../engine/errors.js'
import { LiveState } from '../../engine/live/live-state.js'
import type { FundingRecord, NormalizedRecord, TradeRecord } from '../../engine/records/types.js'
import type { Store } from '../../engine/store/store.js'
import { CLOSE_GRACE_MS } from '../../engine/stream/candle-book.js'
import { RETAIN_MS } from '../../engine/stream/channel-log.js'
import { parseChannel } from '../../engine/stream/channels.js'
import { CHANNEL_KINDS } from '../../engine/stream/kinds/registry.js'
import { SNAPSHOT_TRADES } from '../../engine/stream/kinds/trades.js'
import { StreamHub } from '../../engine/stream/stream-hub.js'

/** 2027-01-15T08:00:00Z, a minute boundary */
const T0 = 1_799_913_600_000
const MIN = 60_000

let tradeId = 0
function trade(ts: number, price: number, exchange = 'binance', base = 'BTC', market: 'perp' | 'spot' = 'perp') {
  const t: TradeRecord = {
    kind: 'trade',
    ts,
    exchange,
    market,
    symbol: exchange === 'okx' ? `${base}-USDT-SWAP` : `${base}USDT`,
    base,
    quote: 'USDT',
    side: 'buy',
    price,
    qty: 2,
    trade_id: String(++tradeId)
  }
  return t
}

const funding = (exchange: string, base: string, rate: number, interval: number): FundingRecord => ({
  kind: 'funding',
  ts: T0,
  exchange,
  symbol: exchange === 'okx' ? `${base}-USDT-SWAP` : `${base}USDT`,
  base,
  funding_rate: rate,
  interval_hours: interval
})

/** A hub over markets BTC (binance, okx) and ETH (binance); published updates in order, as [channel, data]. */
function setup() {
  let now = T0
  const live = new LiveState({} as Store) // nothing here reads the store
  live.apply([trade(T0 - 5 * MIN, 1), trade(T0 - 5 * MIN, 1, 'okx'), trade(T0 - 5 * MIN, 1, 'binance', 'ETH')])
  const hub = new StreamHub(live, { now: () => now })
  const updates: [string, unknown][] = []
  hub.attach({
    publish: (_topic, frame) => {
      const msg = JSON.parse(frame as string)
      updates.push([msg.channel, msg.data])
    },
    subscribers: (topic) => (topic.startsWith('j|') ? 1 : 0)
  })
  const open = (name: string) => hub.acquire(parseChannel(name))
  const apply = (records: NormalizedRecord[]) => {
    updates.length = 0
    live.apply(records)
    return updates
  }
  return { hub, live, updates, open, apply, at: (ms: number) => void (now = ms) }
}

const wire = (t: TradeRecord) => ({
  ts: t.ts,
  exchange: t.exchange,
  symbol: t.symbol,
  side: t.side,
  price: t.price,
  qty: t.qty,
  trade_id: t.trade_id
})

describe('channel kinds', () => {
  it('registry: one kind per type, each reading the names of its type', () => {
    const types = CHANNEL_KINDS.map((k) => k.type)
    expect(new Set(types).size).toBe(types.length)
    for (const k of CHANNEL_KINDS) {
      // a name of the type is the kind's to read: its spec, or invalid_channel, never unknown_channel
      for (const name of [k.type, `${k.type.toUpperCase()}:BTC`, `${k.type}:BTC:1m`]) {
        try {
          expect(parseChannel(name).type).toBe(k.type)
        } catch (err) {
          expect(err).toMatchObject({ code: 'invalid_channel' })
        }
      }
    }
  })

  it('trades: perp trades of the base to the all-venue channel, each venue’s own to its channel', () => {
    const { open, apply } = setup()
    open('trades:BTC')
    open('trades:BTC@okx')
    const a = trade(T0, 100)
    const b = trade(T0 + 1, 101, 'okx')
    const out = apply([
      a,
      trade(T0, 5, 'binance', 'ETH'),
      b,
      trade(T0, 99, 'binance', 'BTC', 'spot'),
      funding('okx', 'BTC', 0.0001, 8)
    ])
    expect(out).toEqual([
      ['trades:BTC', [wire(a), wire(b)]],
      ['trades:BTC@okx', [wire(b)]]
    ])
    // a binance trade has no venue channel here: the all-venue channel only
    const c = trade(T0 + 2, 102)
    expect(apply([c])).toEqual([['trades:BTC', [wire(c)]]])
  })

  it('trades: the snapshot is the newest SNAPSHOT_TRADES retained trades, oldest first', async () => {
    const { hub, open, apply } = setup()
    const ch = open('trades:BTC@binance')
    const sent: TradeRecord[] = []
    for (let batch = 0; batch < 3; batch++) {
      const rows = Array.from({ length: 40 }, (_, i) => trade(T0 + batch * 40 + i, 100 + i))
      sent.push(...rows)
      apply(rows)
    }
    const snap = await hub.snapshot(ch)
    expect(snap.seq).toBe(ch.log.seq)
    expect(snap.data).toEqual(sent.slice(-SNAPSHOT_TRADES).map(wire))
  })

  it('candles: the default venue’s forming candle per batch, the closed one on the next bucket or after the grace', async () => {
    const { hub, open, apply, at, updates } = setup()
    const ch = open('candles:BTC:1m') // binance before okx
    open('candles:BTC@okx:5m')
    const out = apply([trade(T0 + 1_000, 100), trade(T0 + 2_000, 110), trade(T0 + 3_000, 90, 'binance', 'ETH')])
    expect(out).toEqual([
      [
        'candles:BTC:1m',
        {
          exchange: 'binance',
          closed: false,
          timestamp: T0,
          symbol: 'BTCUSDT',
          timeframe: '1m',
          open: 100,
          high: 110,
          low: 100,
          close: 110,
          volume_base: 4,
          volume_quote: 420,
          trades: 2
        }
      ]
    ])
    const next = apply([trade(T0 + MIN + 1, 120)])
    expect(
      next.map(([c, d]) => [
        c,
        (d as { closed: boolean; timestamp: number }).closed,
        (d as { timestamp: number }).timestamp
      ])
    ).toEqual([
      ['candles:BTC:1m', true, T0],
      ['candles:BTC:1m', false, T0 + MIN]
    ])
    expect((await hub.snapshot(ch)).data).toMatchObject({
      exchange: 'binance',
      forming: { timestamp: T0 + MIN, close: 120 },
      last_closed: { timestamp: T0, close: 110 }
    })
    updates.length = 0
    at(T0 + 2 * MIN + CLOSE_GRACE_MS)
    await hub.tick()
    expect(updates.map(([c, d]) => [c, (d as { closed: boolean }).closed])).toEqual([['candles:BTC:1m', true]])
  })

  it('candles: a tick closes each timeframe by time once its end plus the grace has passed, not before', async () => {
    const { hub, open, apply, at, updates } = setup()
    open('candles:BTC:1m')
    open('candles:BTC:5m')
    apply([trade(T0 + 1_000, 100)])
    updates.length = 0
    const closed = () => updates.filter(([, d]) => (d as { closed: boolean }).closed).map(([c]) => c)
    const tickAt = async (ms: number) => {
      at(ms)
      await hub.tick()
    }
    await tickAt(T0 + MIN + CLOSE_GRACE_MS - 1)
    expect(closed()).toEqual([])
    await tickAt(T0 + MIN + CLOSE_GRACE_MS)
    expect(closed()).toEqual(['candles:BTC:1m'])
    await tickAt(T0 + 5 * MIN + CLOSE_GRACE_MS - 1)
    expect(closed()).toEqual(['candles:BTC:1m'])
    await tickAt(T0 + 5 * MIN + CLOSE_GRACE_MS)
    expect(closed()).toEqual(['candles:BTC:1m', 'candles:BTC:5m'])
    // a trade after the closes forms new candles, closed by time in turn
    apply([trade(T0 + 6 * MIN, 101)])
    updates.length = 0
    await tickAt(T0 + 7 * MIN + CLOSE_GRACE_MS)
    expect(closed()).toEqual(['candles:BTC:1m'])
  })

  it('candles: channels of one market at several timeframes route apart; a dropped one gets nothing more', async () => {
    const { hub, open, apply, at } = setup()
    open('candles:BTC:1m')
    open('candles:BTC:5m')
    open('candles:BTC@okx:1m')
    const names = (out: [string, unknown][]) => out.map(([c]) => c).sort()
    expect(names(apply([trade(T0 + 1_000, 100)]))).toEqual(['candles:BTC:1m', 'candles:BTC:5m'])
    expect(names(apply([trade(T0 + 2_000, 100, 'okx')]))).toEqual(['candles:BTC@okx:1m'])
    // released and past the retention: the 5m channel is dropped, the 1m one of the same market stays
    hub.release('candles:BTC:5m')
    at(T0 + RETAIN_MS + 10_000)
    await hub.tick()
    expect(names(apply([trade(T0 + RETAIN_MS + 11_000, 101)]))).toEqual(['candles:BTC:1m'])
    hub.release('candles:BTC:1m')
    at(T0 + 2 * RETAIN_MS + 20_000)
    await hub.tick()
    expect(names(apply([trade(T0 + 2 * RETAIN_MS + 21_000, 102)]))).toEqual([])
    expect(names(apply([trade(T0 + 2 * RETAIN_MS + 22_000, 102, 'okx')]))).toEqual(['candles:BTC@okx:1m'])
  })

  it('funding: each batch’s readings of a base in one update, with the annualized rate', async () => {
    const { hub, open, apply } = setup()
    const ch = open('funding:BTC')
    const out = apply([
      funding('binance', 'BTC', 0.0001, 8),
      funding('binance', 'ETH', 0.0002, 8),
      funding('okx', 'BTC', 0.0002, 0)
    ])
    expect(out).toEqual([
      [
        'funding:BTC',
        [
          {
            ts: T0,
            exchange: 'binance',
            symbol: 'BTCUSDT',
            base: 'BTC',
            funding_rate: 0.0001,
            interval_hours: 8,
            funding_rate_annualized: (0.0001 * 8760) / 8,
            next_funding_ts: null,
            mark_price: null
          },
          expect.objectContaining({ exchange: 'okx', funding_rate_annualized: null })
        ]
      ]
    ])
    const snap = (await hub.snapshot(ch)).data as { exchange: string; funding_rate: number }[]
    expect(snap.map((r) => [r.exchange, r.funding_rate])).toEqual([
      ['binance', 0.0001],
      ['okx', 0.0002]
    ])
  })

  it('screener: nothing on records; at the tick, the rows of the markets that changed', async () => {
    const { hub, open, apply, updates } = setup()
    const ch = open('screener')
    expect(((await hub.snapshot(ch)).data as { rows: unknown[] }).rows).toHaveLength(3)
    expect(apply([trade(T0, 100, 'okx'), funding('okx', 'BTC', 0.0001, 8)])).toEqual([])
    await hub.tick()
    expect(updates).toHaveLength(1)
    const [channel, data] = updates[0]!
    expect(channel).toBe('screener')
    expect((data as { rows: { exchange: string; base: string }[] }).rows.map((r) => [r.exchange, r.base])).toEqual([
      ['okx', 'BTC']
    ])
    updates.length = 0
    await hub.tick()
    expect(updates).toEqual([])
  })

  it.each([
    ['trades:BTCX', 'no perpetual market for BTCX (Binance, Bybit, OKX or Bitget); did you mean BTC?'],
    ['candles:BTCX:1m', 'no perpetual market for BTCX (Binance, Bybit, OKX or Bitget); did you mean BTC?'],
    // suggestions come from the venue named: ETH has no OKX market
    ['trades:ETH@okx', 'no perpetual market for ETH on okx (Binance, Bybit, OKX or Bitget)'],
    ['trades:ETC@okx', 'no perpetual market for ETC on okx (Binance, Bybit, OKX or Bitget); did you mean BTC?'],
    ['trades:ETC', 'no perpetual market for ETC (Binance, Bybit, OKX or Bitget); did you mean BTC, ETH?'],
    ['funding:ETHH', 'no perpetual market for ETHH on Binance, Bybit, OKX or Bitget; did you mean ETH?'],
    ['confirm:DOGE', 'no perpetual market for DOGE on Binance, Bybit, OKX or Bitget']
  ])('%s answers unknown_symbol: %s', (name, message) => {
    const { hub, open } = setup()
    expect(() => open(name)).toThrow(ApiError)
    try {
      open(name)
    } catch (err) {
      expect(err).toMatchObject({ code: 'unknown_symbol', message })
    }
    expect(hub.stats().channels).toBe(0)
  })
})
