/**
 * @module
 * Where each on-chain metric of an asset comes from (`source` per metric in GET /v1/onchain/metrics), so a
 * figure Tidewatch did not measure is never presented as measured:
 * - `chain:<chains>`: exchange_netflow_usd measured by the chain sources from the operator's nodes (there are
 *   confirmed chain events of the asset's tokens);
 * - `stored`: readings loaded through the admin ingest API or written by the demo market (then every answer
 *   is also labelled synthetic); Tidewatch does not compute MVRV, exchange reserves or active addresses
 *   from chain data, so those are always `stored`.
 */
import type { Store } from '../store/store.js'
import { tokensOf } from '../history/whale-assets.js'

export type MetricSource = `chain:${string}` | 'stored'

/** metrics the chain sources measure */
const MEASURED: ReadonlySet<string> = new Set(['exchange_netflow_usd'])

export async function metricSources(
  store: Store,
  asset: string,
  metrics: readonly string[]
): Promise<Record<string, MetricSource>> {
  const out: Record<string, MetricSource> = {}
  let chains: string[] | null = null
  for (const m of metrics) {
    if (!MEASURED.has(m)) {
      out[m] = 'stored'
      continue
    }
    chains ??= (
      await store.query<{ chain: string }>(
        `SELECT DISTINCT chain FROM chain_whale_events FINAL
         WHERE status = 'confirmed' AND upper(token) IN {tokens:Array(String)} ORDER BY chain`,
        { tokens: tokensOf(asset) }
      )
    ).map((r) => r.chain)
    out[m] = chains.length > 0 ? `chain:${chains.join('+')}` : 'stored'
  }
  return out
}
