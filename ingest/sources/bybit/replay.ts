/**
 * @module
 * The normalizer a replay of Bybit recordings runs (ingest/sources/venue-module.ts): reconnect windows in
 * the recording are counted; the pages the live feed fetched replay as answers.
 */
import { BybitNormalizer } from '../../normalize/bybit.js'
import type { ReplayNormalizerFactory } from '../venue-module.js'

export const replayNormalizer: ReplayNormalizerFactory = (onGap) =>
  new BybitNormalizer({ opened: onGap, served: () => {} })
