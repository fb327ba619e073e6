/**
 * The replay's own table of normalizers (ingest/record/replay-normalizers.ts, kept apart from the venue
 * registry so the replay worker does not load the live sources) covers the registry: the same venue names,
 * each factory making a fresh normalizer (per-market state is per replay) of the venue's messages, with the
 * replay's gap counter wired in (an aggTrade id gap, a reconnect window).
 */
import { describe, expect, it } from 'vitest'
import { BinanceNormalizer } from '../../ingest/normalize/binance.js'
import { BitgetNormalizer } from '../../ingest/normalize/bitget.js'
import { BybitNormalizer } from '../../ingest/normalize/bybit.js'
import { DeribitNormalizer } from '../../ingest/normalize/deribit.js'
import { OkxNormalizer } from '../../ingest/normalize/okx.js'
import { REPLAY_NORMALIZERS } from '../../ingest/record/replay-normalizers.js'
import { VENUES } from '../../ingest/sources/venues.js'
import { WS_CHANNEL } from '../../ingest/normalize/normalizer.js'
import { RECONNECT_CHANNEL } from '../../ingest/normalize/trade-window.js'
import { push as bitgetPush, tradeRow as bitgetRow } from '../helpers/venues/bitget-fixtures.js'
import { tradeMessage as bybitTrade, tradeRow as bybitRow } from '../helpers/venues/bybit-fixtures.js'
import { INSTRUMENTS as OKX_INSTRUMENTS, push as okxPush, tradeRow as okxRow } from '../helpers/venues/okx-fixtures.js'

const CLASSES: Record<string, unknown> = {
  binance: BinanceNormalizer,
  bybit: BybitNormalizer,
  okx: OkxNormalizer,
  deribit: DeribitNormalizer,
  bitget: BitgetNormalizer
}

describe('replay normalizers', () => {
  it('name the venues of the registry, in its order', () => {
    expect([...REPLAY_NORMALIZERS.keys()]).toEqual(VENUES.map((v) => v.name))
  })

  it.each(VENUES.map((v) => [v.name] as const))('%s: a fresh normalizer of its venue on each call', (name) => {
    const make = REPLAY_NORMALIZERS.get(name)!
    const a = make(() => {})
    expect(a).toBeInstanceOf(CLASSES[name] as new (...args: never[]) => unknown)
    expect(a.venue).toBe(name)
    expect(make(() => {})).not.toBe(a)
  })

  /** messages that make a gap (an aggTrade id skipped) or open a reconnect window, per venue that has them */
  const GAP: Record<string, [string, unknown][]> = {
    binance: [1, 5].map((a) => [
      WS_CHANNEL,
      {
        stream: 'btcusdt@aggTrade',
        data: { e: 'aggTrade', E: 1, a, s: 'BTCUSDT', p: '1', q: '1', f: a, l: a, T: 1, m: true }
      }
    ]),
    bybit: [
      [WS_CHANNEL, bybitTrade('BTCUSDT', 1_000, [bybitRow('BTCUSDT', 1_000, 'Buy', '1', '100', 't-1')])],
      [RECONNECT_CHANNEL, { symbols: ['BTCUSDT'] }]
    ],
    okx: [
      ['/api/v5/public/instruments?instType=SWAP', OKX_INSTRUMENTS],
      [
        WS_CHANNEL,
        okxPush({ channel: 'trades', instId: 'BTC-USDT-SWAP' }, [
          okxRow('BTC-USDT-SWAP', '1', 1_000, '100', '1', 'buy')
        ])
      ],
      [RECONNECT_CHANNEL, { symbols: ['BTC-USDT-SWAP'] }]
    ],
    bitget: [
      [WS_CHANNEL, bitgetPush('publicTrade', 'BTCUSDT', [bitgetRow('t-1', 1_000, 'buy', '1', '100')], 1_000)],
      [RECONNECT_CHANNEL, { symbols: ['BTCUSDT'] }]
    ]
  }

  it.each(Object.keys(GAP))('%s: the factory wires onGap to the normalizer', (name) => {
    let gaps = 0
    const n = REPLAY_NORMALIZERS.get(name)!(() => gaps++)
    for (const [channel, msg] of GAP[name]!) n.normalize(channel, msg, 0, [])
    expect(gaps).toBe(1)
  })
})
