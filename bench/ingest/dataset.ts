/**
 * @module
 * The benchmark dataset: demo-market records of a fixed window (seed 42), grouped by kind. Every ingest
 * variant writes exactly these rows into the same schema (all views attached).
 */
import { createSimMarket } from '../../ingest/sources/sim/sim-market.js'
import type { NormalizedRecord } from '../../engine/records/types.js'

/** Window start: a fixed UTC midnight so every run writes the same rows. */
export const DATASET_FROM = Date.UTC(2026, 9, 1)

export function datasetTo(days: number): number {
  return DATASET_FROM + days * 86_400_000
}

export function generateDataset(days: number, seed = 42): NormalizedRecord[] {
  const out: NormalizedRecord[] = []
  for (const chunk of createSimMarket(seed).generate(DATASET_FROM, datasetTo(days), 'backfill')) {
    for (const r of chunk) out.push(r)
  }
  return out
}
