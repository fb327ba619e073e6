import { describe, expect, it } from 'vitest'
import { ChannelError, channelBase, parseChannel } from '../../engine/stream/channels.js'
import { ChannelLog, RETAIN_MAX, RETAIN_MS } from '../../engine/stream/channel-log.js'
import { parseClientMessage, ProtocolError, MAX_CLIENT_MESSAGE_BYTES } from '../../server/stream/protocol.js'

describe('channel names', () => {
  it('parse into canonical names', () => {
    expect(parseChannel('trades:btc')).toEqual({ type: 'trades', name: 'trades:BTC', base: 'BTC', exchange: null })
    expect(parseChannel('trades:Btc@OKX')).toMatchObject({ name: 'trades:BTC@okx', exchange: 'okx' })
    expect(parseChannel('candles:eth:1M')).toMatchObject({ name: 'candles:ETH:1M', timeframe: '1M' })
    expect(parseChannel('whales:all')).toMatchObject({ name: 'whales:all:medium', chain: null, min: 'medium' })
    expect(parseChannel('whales:BSC:critical')).toMatchObject({ name: 'whales:bsc:critical', chain: 'bsc' })
    expect(parseChannel('options:eth')).toMatchObject({ name: 'options:ETH', currency: 'ETH' })
    expect(parseChannel('screener').name).toBe('screener')
    expect(channelBase(parseChannel('confirm:sol'))).toBe('SOL')
    expect(channelBase(parseChannel('screener'))).toBeNull()
  })

  it('read symbols with the one resolver; the canonical name keeps the base, so topics do not split', () => {
    for (const s of ['BTC', 'btc', 'BTCUSDT', 'BTC/USDT', 'BTC/USDT:USDT', 'BTC-USDT-SWAP', 'btcusdc']) {
      expect(parseChannel(`trades:${s}`), s).toEqual({
        type: 'trades',
        name: 'trades:BTC',
        base: 'BTC',
        exchange: null
      })
      expect(parseChannel(`confirm:${s}`).name, s).toBe('confirm:BTC')
      expect(parseChannel(`funding:${s}`).name, s).toBe('funding:BTC')
      expect(parseChannel(`candles:${s}:1h`).name, s).toBe('candles:BTC:1h')
    }
    expect(parseChannel('trades:1000PEPEUSDT').name).toBe('trades:PEPE')
    expect(parseChannel('trades:BTCUSDT@okx').name).toBe('trades:BTC@okx')
  })

  it('read a TradingView prefix as the venue where the channel has one, and as the base alone elsewhere', () => {
    expect(parseChannel('trades:BINANCE:BTCUSDT.P')).toMatchObject({ name: 'trades:BTC@binance', exchange: 'binance' })
    expect(parseChannel('candles:BYBIT:SHIB1000USDT.P:1m')).toMatchObject({ name: 'candles:SHIB@bybit:1m' })
    expect(parseChannel('trades:OKX:BTCUSDT.P@okx').name).toBe('trades:BTC@okx')
    // confirm and funding cover every venue of a base, as GET /v1/confirm
    expect(parseChannel('confirm:BINANCE:BTCUSDT.P').name).toBe('confirm:BTC')
    expect(parseChannel('funding:OKX:ETHUSDT.P').name).toBe('funding:ETH')
  })

  it('read a name ending in a cross quote whole: the hub, which knows the markets, answers unknown_symbol', () => {
    expect(parseChannel('confirm:ETHBTC').name).toBe('confirm:ETHBTC')
    expect(parseChannel('trades:STETH').name).toBe('trades:STETH')
  })

  it.each([
    ['bogus', 'unknown_channel'],
    ['trades', 'invalid_channel'],
    ['trades:', 'invalid_channel'],
    ['trades:BTC:extra', 'invalid_channel'],
    ['trades:BT-C', 'invalid_channel'],
    ['trades:ETH/BTC', 'invalid_channel'],
    ['candles:ETH/BTC:1m', 'invalid_channel'],
    ['trades:COINBASE:BTCUSD', 'invalid_channel'],
    ['trades:BINANCE:BTCUSDT.P@okx', 'invalid_channel'],
    ['trades:FOO:BTCUSDT', 'invalid_channel'],
    ['trades:BTC@okx@bybit', 'invalid_channel'],
    ['confirm:BTC@okx', 'invalid_channel'],
    ['trades:BTC@kraken', 'invalid_channel'],
    ['candles:BTC:2m', 'invalid_channel'],
    ['funding:BTC@okx', 'invalid_channel'],
    ['options:SOL', 'invalid_channel'],
    ['whales:moon', 'invalid_channel'],
    ['whales:all:huge', 'invalid_channel'],
    ['screener:x', 'invalid_channel'],
    ['x'.repeat(65), 'invalid_channel']
  ])('%s is refused with %s', (name, code) => {
    expect(() => parseChannel(name)).toThrow(ChannelError)
    try {
      parseChannel(name)
    } catch (e) {
      expect((e as ChannelError).code).toBe(code)
      expect((e as ChannelError).message.length).toBeGreaterThan(10)
    }
  })

  it('name the accepted forms when a symbol quotes another currency', () => {
    expect(() => parseChannel('trades:ETH/BTC')).toThrow(
      /^trades:ETH\/BTC: symbol ETH\/BTC is quoted in BTC; .*ETH\/USDT:USDT/
    )
  })
})

describe('channel log', () => {
  it('numbers updates from creation time x 1000 and replays from any retained seq', () => {
    const log = new ChannelLog(1_000)
    expect(log.seq).toBe(1_000_000)
    for (let i = 0; i < 5; i++) log.append(i, 2_000)
    expect(log.since(1_000_003, 2_000)!.map((r) => [r.seq, r.data])).toEqual([
      [1_000_003, 2],
      [1_000_004, 3],
      [1_000_005, 4]
    ])
    expect(log.since(1_000_006, 2_000)).toEqual([])
    expect(log.since(1_000_007, 2_000)).toBeNull() // from the future: another instance
    expect(log.since(999_999, 2_000)).toBeNull()
    expect(log.recent(2).map((r) => r.data)).toEqual([3, 4])
  })

  it('keeps at most RETAIN_MAX updates and none older than RETAIN_MS', () => {
    const log = new ChannelLog(0)
    for (let i = 0; i < RETAIN_MAX + 10; i++) log.append(i, 0)
    expect(log.since(1, 0)).toBeNull()
    expect(log.since(11, 0)).toHaveLength(RETAIN_MAX)
    log.append('late', RETAIN_MS + 1)
    expect(log.since(log.seq, RETAIN_MS + 1)!.map((r) => r.data)).toEqual(['late'])
    expect(log.since(log.seq - 1, RETAIN_MS + 1)).toBeNull()
  })
})

describe('client frames', () => {
  const text = (v: unknown) => new TextEncoder().encode(typeof v === 'string' ? v : JSON.stringify(v))
  it('parse subscribe with names and from_seq objects', () => {
    expect(
      parseClientMessage(text({ op: 'subscribe', id: 3, channels: ['a', { channel: 'b', from_seq: 9 }] }), false)
    ).toEqual({
      op: 'subscribe',
      id: 3,
      channels: [
        { name: 'a', fromSeq: null },
        { name: 'b', fromSeq: 9 }
      ]
    })
  })
  it.each([
    ['{', 'invalid_message'],
    ['[1]', 'invalid_message'],
    [{ op: 'x' }, 'unknown_op'],
    [{ op: 'subscribe' }, 'invalid_parameter'],
    [{ op: 'subscribe', channels: [] }, 'invalid_parameter'],
    [{ op: 'subscribe', channels: [{ channel: 'a', from_seq: -1 }] }, 'invalid_parameter'],
    [{ op: 'subscribe', channels: [1] }, 'invalid_parameter'],
    [{ op: 'subscribe', channels: Array(101).fill('a') }, 'invalid_parameter'],
    [{ op: 'ping', pad: 'x'.repeat(MAX_CLIENT_MESSAGE_BYTES) }, 'message_too_large']
  ])('%j answers %s', (frame, code) => {
    expect(() => parseClientMessage(text(frame), false)).toThrow(ProtocolError)
    try {
      parseClientMessage(text(frame), false)
    } catch (e) {
      expect((e as ProtocolError).code).toBe(code)
    }
  })
})
