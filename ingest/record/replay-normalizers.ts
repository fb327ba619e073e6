/**
 * @module
 * The normalizer of each venue a recording may hold, as a replay makes them (one per venue per replay: it
 * keeps per-market state). The venue registry's `replayNormalizer`s (sources/venues.ts) are these
 * factories, kept here without the registry's imports: the registry also loads every venue's live Source
 * (sockets, REST clients, the `ws` package), ~35 ms of module loading that the replay worker thread paid
 * before its first line (about half its start-up). test/unit/replay-normalizers.test.ts checks that both
 * give the same venues and the same normalizer classes.
 */
import { BinanceNormalizer } from '../normalize/binance.js'
import { BybitNormalizer } from '../normalize/bybit.js'
import { DeribitNormalizer } from '../normalize/deribit.js'
import type { VenueNormalizer } from '../normalize/normalizer.js'
import { OkxNormalizer } from '../normalize/okx.js'

/** A fresh normalizer of one venue; `onGap` counts a trade gap or reconnect window found in the recording. */
export type ReplayNormalizerFactory = (onGap: () => void) => VenueNormalizer

export const binanceReplayNormalizer: ReplayNormalizerFactory = (onGap) => new BinanceNormalizer(onGap)
// reconnect windows in the recording are counted; the pages the live feed fetched replay as answers
export const bybitReplayNormalizer: ReplayNormalizerFactory = (onGap) =>
  new BybitNormalizer({ opened: onGap, served: () => {} })
export const okxReplayNormalizer: ReplayNormalizerFactory = (onGap) =>
  new OkxNormalizer({ opened: onGap, served: () => {} })
export const deribitReplayNormalizer: ReplayNormalizerFactory = () => new DeribitNormalizer()

/** venue name -> its factory (the venue registry, sources/venues.ts, uses the same factories) */
export const REPLAY_NORMALIZERS: ReadonlyMap<string, ReplayNormalizerFactory> = new Map([
  ['binance', binanceReplayNormalizer],
  ['bybit', bybitReplayNormalizer],
  ['okx', okxReplayNormalizer],
  ['deribit', deribitReplayNormalizer]
])
