/**
 * @module
 * The normalizer a replay of OKX recordings runs (ingest/sources/venue-module.ts): reconnect windows in the
 * recording are counted; the pages the live feed fetched replay as answers.
 */
import { OkxNormalizer } from '../../normalize/okx.js'
import type { ReplayNormalizerFactory } from '../venue-module.js'

export const replayNormalizer: ReplayNormalizerFactory = (onGap) =>
  new OkxNormalizer({ opened: onGap, served: () => {} })
