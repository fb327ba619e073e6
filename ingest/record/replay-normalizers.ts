/**
 * @module
 * The normalizer of each venue a recording may hold, as a replay makes them (one per venue per replay: it
 * keeps per-market state). Kept apart from the venue registry (sources/venues.ts), which also loads every
 * venue's live Source (sockets, REST clients, the `ws` package): ~35 ms of module loading that the replay
 * worker thread paid before its first line (about half its start-up). test/unit/replay-normalizers.test.ts
 * checks that every venue of the registry has one.
 */
import { BinanceNormalizer } from '../normalize/binance.js'
import { BybitNormalizer } from '../normalize/bybit.js'
import { DeribitNormalizer } from '../normalize/deribit.js'
import type { VenueNormalizer } from '../normalize/normalizer.js'
import { OkxNormalizer } from '../normalize/okx.js'

/** A fresh normalizer of one venue; `onGap` counts a trade gap or reconnect window found in the recording. */
export type ReplayNormalizerFactory = (onGap: () => void) => VenueNormalizer

const binanceReplayNormalizer: ReplayNormalizerFactory = (onGap) => new BinanceNormalizer(onGap)
// reconnect windows in the recording are counted; the pages the live feed fetched replay as answers
const bybitReplayNormalizer: ReplayNormalizerFactory = (onGap) =>
  new BybitNormalizer({ opened: onGap, served: () => {} })
const okxReplayNormalizer: ReplayNormalizerFactory = (onGap) => new OkxNormalizer({ opened: onGap, served: () => {} })
const deribitReplayNormalizer: ReplayNormalizerFactory = () => new DeribitNormalizer()

/** venue name (the registry's, sources/venues.ts) -> its factory */
export const REPLAY_NORMALIZERS: ReadonlyMap<string, ReplayNormalizerFactory> = new Map([
  ['binance', binanceReplayNormalizer],
  ['bybit', bybitReplayNormalizer],
  ['okx', okxReplayNormalizer],
  ['deribit', deribitReplayNormalizer]
])
