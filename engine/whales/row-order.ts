/**
 * @module
 * The one order and identity of whale-transfer rows, so that collapsing never depends on input order.
 * Order: ts, chain, tx_hash, log_index, address, then every remaining field (a total order, so even two
 * conflicting copies of one row always sort the same way). Identity: chain + tx_hash + log_index + address —
 * one wallet's side of one transfer log. Both sides of a transfer between two tracked wallets are two rows.
 */
import type { WhaleTransferRecord } from '../records/types.js'

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/** Array.prototype.sort comparator; code-unit string order, never locale dependent. */
export function compareRows(a: WhaleTransferRecord, b: WhaleTransferRecord): number {
  return (
    a.ts - b.ts ||
    compareText(a.chain, b.chain) ||
    compareText(a.tx_hash, b.tx_hash) ||
    a.log_index - b.log_index ||
    compareText(a.address, b.address) ||
    compareText(a.event_type, b.event_type) ||
    compareText(a.token, b.token) ||
    compareText(a.counterparty, b.counterparty) ||
    a.usd_value - b.usd_value ||
    a.amount - b.amount ||
    a.block_number - b.block_number
  )
}

/** true when a and b are the same transfer log of the same wallet (a row seen twice, e.g. re-ingested) */
export function sameRow(a: WhaleTransferRecord, b: WhaleTransferRecord): boolean {
  return a.log_index === b.log_index && a.tx_hash === b.tx_hash && a.address === b.address && a.chain === b.chain
}

/**
 * Rows sorted by `compareRows`; the input is not touched. Fast path: integer ts within a span that fits
 * (span × 2^bits(n) < 2^53, e.g. 7 days × 1M rows) are packed with the row index into one float key and
 * sorted natively, then each run of equal ts is sorted with `compareRows`. Same result as a plain sort.
 */
export function orderedRows(rows: readonly WhaleTransferRecord[]): WhaleTransferRecord[] {
  const n = rows.length
  let min = Infinity
  let max = -Infinity
  let integral = true
  for (const r of rows) {
    if (r.ts < min) min = r.ts
    if (r.ts > max) max = r.ts
    integral &&= Number.isSafeInteger(r.ts)
  }
  const slots = 2 ** Math.ceil(Math.log2(n + 1))
  if (n < 2 || !integral || (max - min + 1) * slots > Number.MAX_SAFE_INTEGER) return [...rows].sort(compareRows)
  const keys = new Float64Array(n)
  for (let i = 0; i < n; i++) keys[i] = (rows[i]!.ts - min) * slots + i
  keys.sort()
  const out = new Array<WhaleTransferRecord>(n)
  for (let i = 0; i < n; i++) out[i] = rows[keys[i]! % slots]!
  for (let start = 0; start < n;) {
    let end = start + 1
    while (end < n && out[end]!.ts === out[start]!.ts) end++
    if (end - start > 1) {
      const run = out.slice(start, end).sort(compareRows)
      for (let k = 0; k < run.length; k++) out[start + k] = run[k]!
    }
    start = end
  }
  return out
}
