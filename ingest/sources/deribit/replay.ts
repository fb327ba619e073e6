/**
 * @module
 * The normalizer a replay of Deribit recordings runs (ingest/sources/venue-module.ts); its option quotes
 * carry no sequence, so no gap is counted.
 */
import { DeribitNormalizer } from '../../normalize/deribit.js'
import type { ReplayNormalizerFactory } from '../venue-module.js'

export const replayNormalizer: ReplayNormalizerFactory = () => new DeribitNormalizer()
