/**
 * @module
 * The normalizer of each venue a recording may hold, as a replay makes them (one per venue per replay: it
 * keeps per-market state). The same factories as the venue registry's `replayNormalizer`
 * (sources/venues.ts), kept here without the registry's imports: the registry also loads every venue's live
 * Source (sockets, REST clients, the `ws` package), ~35 ms of module loading that the replay worker thread
 * paid before its first line (about half its start-up). test/unit/replay-normalizers.test.ts checks that
 * both give the same venues and the same normalizer classes.
 */
import { BinanceNormalizer } from '../normalize/binance.js'
import { BybitNormalizer } from '../normalize/bybit.js'
import { DeribitNormalizer } from '../normalize/deribit.js'
import type { VenueNormalizer } from '../normalize/normalizer.js'
import { OkxNormalizer } from '../normalize/okx.js'

/** venue name -> a fresh normalizer; `onGap` counts a trade gap or reconnect window found in the recording */
export const REPLAY_NORMALIZERS: ReadonlyMap<string, (onGap: () => void) => VenueNormalizer> = new Map<
  string,
  (onGap: () => void) => VenueNormalizer
>([
  ['binance', (onGap) => new BinanceNormalizer(onGap)],
  // reconnect windows in the recording are counted; the pages the live feed fetched replay as answers
  ['bybit', (onGap) => new BybitNormalizer({ opened: onGap, served: () => {} })],
  ['okx', (onGap) => new OkxNormalizer({ opened: onGap, served: () => {} })],
  ['deribit', () => new DeribitNormalizer()]
])
