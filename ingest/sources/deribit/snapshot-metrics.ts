/**
 * @module
 * Options metrics history from the live Deribit feed: the per-snapshot rows behind `/v1/options/history`
 * (`options_metrics`, `options_expiry_metrics`), derived with the same code as the demo market and admin
 * ingest (ingest/derive/options-metrics.ts), which takes one snapshot per (currency, ts). A Deribit chain
 * snapshot is one book summary answer: its rows carry their own `creation_timestamp`, which need not all be
 * equal, so the quotes of one currency in one pump batch (one answer: polls are 30 s apart, batches 250 ms)
 * are summarized together at the newest of their times. Only whole-chain polls give snapshots: with
 * DERIBIT_SYMBOLS the quotes are a partial chain and no metrics are derived.
 */
import type { OptionQuoteRecord, NormalizedRecord } from '../../../engine/records/types.js'
import { deriveOptionsMetrics } from '../../derive/options-metrics.js'
import type { EncodedChunk } from '../../encoded-chunk.js'

/** Metrics chunks of the chain snapshots among `records` (empty without option quotes). */
export function snapshotMetrics(records: readonly NormalizedRecord[]): EncodedChunk[] {
  const byCurrency = new Map<string, OptionQuoteRecord[]>()
  for (const r of records) {
    if (r.kind !== 'option_quote') continue
    const currency = r.instrument.slice(0, r.instrument.indexOf('-'))
    let list = byCurrency.get(currency)
    if (list === undefined) byCurrency.set(currency, (list = []))
    list.push(r)
  }
  if (byCurrency.size === 0) return []
  const stamped: OptionQuoteRecord[] = []
  for (const quotes of byCurrency.values()) {
    let ts = 0
    for (const q of quotes) if (q.ts > ts) ts = q.ts
    for (const q of quotes) stamped.push(q.ts === ts ? q : { ...q, ts })
  }
  return deriveOptionsMetrics(stamped, false)
}
