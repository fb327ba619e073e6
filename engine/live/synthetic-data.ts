/**
 * @module
 * Whether the data a service holds is synthetic (the demo market). Decided once at start: the demo market
 * is a configured source, or it filled this data directory before (its checkpoint key `sim:<seed>` is in
 * `engine_state`). Rows carry no per-row origin, so a data directory that ever held demo data labels every
 * answer synthetic; start from an empty `DATA_DIR` to serve live data unlabelled (docs/synthetic.md).
 */
import type { Store } from '../store/store.js'

/** Response header on every data answer built while the service holds synthetic data. */
export const SYNTHETIC_HEADER = 'x-tidewatch-synthetic'

export async function holdsSyntheticData(store: Store, sources: readonly string[]): Promise<boolean> {
  if (sources.includes('sim')) return true
  const rows = await store.query<{ n: number }>("SELECT count() AS n FROM engine_state WHERE startsWith(key, 'sim:')")
  return Number(rows[0]?.n ?? 0) > 0
}
