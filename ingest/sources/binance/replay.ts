/**
 * @module
 * The normalizer a replay of Binance recordings runs (ingest/sources/venue-module.ts); aggTrade id gaps count.
 */
import { BinanceNormalizer } from '../../normalize/binance.js'
import type { ReplayNormalizerFactory } from '../venue-module.js'

export const replayNormalizer: ReplayNormalizerFactory = (onGap) => new BinanceNormalizer(onGap)
