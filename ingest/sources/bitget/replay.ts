/**
 * @module
 * The normalizer a replay of Bitget recordings runs (ingest/sources/venue-module.ts): reconnect windows in
 * the recording are counted; the pages the live feed fetched replay as answers.
 */
import { BitgetNormalizer } from '../../normalize/bitget.js'
import type { ReplayNormalizerFactory } from '../venue-module.js'

export const replayNormalizer: ReplayNormalizerFactory = (onGap) =>
  new BitgetNormalizer({ opened: onGap, served: () => {} })
