/**
 * @module
 * Options metrics history from the live Deribit feed: the per-snapshot rows behind `/v1/options/history`
 * (`options_metrics`, `options_expiry_metrics`), derived with the same code as the demo market and admin
 * ingest (ingest/derive/options-metrics.ts), which takes one snapshot per (currency, ts). A Deribit chain
 * snapshot is one book summary answer, whose rows the normalizer stamps with one snapshot time
 * (ingest/normalize/deribit.ts); an answer is normalized whole into one pump batch, so each snapshot reaches
 * the derivation whole. Only whole-chain polls give snapshots worth a history: with DERIBIT_SYMBOLS the
 * quotes are a partial chain and no metrics are derived.
 */
import type { OptionQuoteRecord, NormalizedRecord } from '../../../engine/records/types.js'
import { deriveOptionsMetrics } from '../../derive/options-metrics.js'
import type { EncodedChunk } from '../../encoded-chunk.js'

/** Metrics chunks of the chain snapshots among `records` (empty without option quotes). */
export function snapshotMetrics(records: readonly NormalizedRecord[]): EncodedChunk[] {
  const quotes: OptionQuoteRecord[] = []
  for (const r of records) if (r.kind === 'option_quote') quotes.push(r)
  return quotes.length === 0 ? [] : deriveOptionsMetrics(quotes, false)
}
