/**
 * @module
 * Which partitions of an aggregating table are one merged part each, so a read in key order may skip
 * `FINAL` there. `FINAL` in key order runs ClickHouse's merging transform over every part it reads, even
 * a partition that is one merged part (nothing to merge): on 10M compacted candles that was ~1.9 of the
 * ~2.8 s of the read (docs/benchmarks.md). A partition that is one part of level > 0 has each sorting key
 * once: a merge folded them, or the insert itself did (level-1 parts of an INSERT are written with
 * `optimize_on_insert`, the default, which folds equal keys of the block), so a plain read of that part is
 * the same rows.
 *
 * The read pins the part names (`_part IN ...`) rather than the partitions: a part is immutable, so the
 * rows are the partition as it was when the pin was taken, even if a live insert adds a part later.
 * The one race is the pinned part itself being replaced (merged with a new insert, mutated, dropped by
 * TTL) before the query took its snapshot of parts: its rows would then be missing. `stillActive` after
 * the first block (the snapshot is taken before any block) rules that out: a part never becomes active
 * again, so a part active both at the pin and after the first block was active when the query started.
 */
import type { Store } from './store.js'

/** Part names of the table's partitions that are one merged part each, and those partitions' ids. */
export interface MergedParts {
  readonly parts: readonly string[]
  readonly partitions: readonly string[]
}

export const NO_MERGED_PARTS: MergedParts = { parts: [], partitions: [] }

/**
 * The partitions of `table` (in the current database) that are one active part of level > 0 and hold rows
 * of [fromS, toS) (epoch seconds, by the parts' min/max of the partition key's time column). Partitions
 * outside the range are left out: a merge there would only make the check fail for nothing.
 */
export async function mergedParts(store: Store, table: string, fromS: number, toS: number): Promise<MergedParts> {
  const rows = await store.query<{ partition_id: string; name: string }>(
    `SELECT partition_id, any(name) AS name FROM system.parts
     WHERE database = currentDatabase() AND table = {table:String} AND active
     GROUP BY partition_id
     HAVING count() = 1 AND min(level) > 0
       AND max(max_time) >= toDateTime({from:UInt32}, 'UTC') AND min(min_time) < toDateTime({to:UInt32}, 'UTC')
     ORDER BY partition_id`,
    { table, from: fromS, to: toS }
  )
  return { parts: rows.map((r) => r.name), partitions: rows.map((r) => r.partition_id) }
}

/** True when every part of `pinned` is still an active part of `table`. */
export async function stillActive(store: Store, table: string, pinned: MergedParts): Promise<boolean> {
  if (pinned.parts.length === 0) return true
  const [row] = await store.query<{ n: number | string }>(
    `SELECT count() AS n FROM system.parts
     WHERE database = currentDatabase() AND table = {table:String} AND active AND name IN {parts:Array(String)}`,
    { table, parts: pinned.parts }
  )
  return Number(row?.n ?? 0) === pinned.parts.length
}
