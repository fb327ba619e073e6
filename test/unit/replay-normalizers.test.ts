/**
 * The replay's own table of normalizers (ingest/record/replay-normalizers.ts, kept apart from the venue
 * registry so the replay worker does not load the live sources) covers the registry: the same venue names,
 * each factory making a fresh normalizer (per-market state is per replay) of the venue's messages.
 */
import { describe, expect, it } from 'vitest'
import { BinanceNormalizer } from '../../ingest/normalize/binance.js'
import { BybitNormalizer } from '../../ingest/normalize/bybit.js'
import { DeribitNormalizer } from '../../ingest/normalize/deribit.js'
import { OkxNormalizer } from '../../ingest/normalize/okx.js'
import { REPLAY_NORMALIZERS } from '../../ingest/record/replay-normalizers.js'
import { VENUES } from '../../ingest/sources/venues.js'

const CLASSES: Record<string, unknown> = {
  binance: BinanceNormalizer,
  bybit: BybitNormalizer,
  okx: OkxNormalizer,
  deribit: DeribitNormalizer
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
})
