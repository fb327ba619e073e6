/**
 * @module
 * Which rows of a candle table the export may read without `FINAL` (the pin), as part names and one time
 * cut. `FINAL` in key order runs ClickHouse's merging transform over every row it reads, even where
 * nothing overlaps; at the shape users run (190 bases x 3 venues, 30 days of 1m candles with the live
 * month) that merge over the live month's big part was ~40% of the export's engine CPU (docs/benchmarks.md).
 *
 * The rule. A part of level > 0 has each sorting key once (a merge folded equal keys, or the insert did:
 * level-1 parts come from `optimize_on_insert`, which ClickHouse applies to each block it writes as a part).
 * The exchange feeds insert with `optimize_on_insert=0` (level 0, a key may repeat); bulk batches (the
 * demo market, full-speed replays, admin NDJSON loads) with it (`foldKeys`, engine/store/store.ts), so
 * their parts are candidates from the moment they are written. A key may still be in several level-1 parts
 * (two inserts, or one insert cut into blocks): only parts with disjoint bucket ranges are candidates
 * together.
 * Per partition, such parts become candidates, largest first, as long as their bucket ranges (`min_time`
 * to `max_time`, the partition key's column) do not intersect a candidate's already taken: candidates
 * hold disjoint keys. `cut` is the earliest `min_time` of every other part in the range, in any partition.
 * Below `cut` no row of any other part exists, so a key below `cut` lives in exactly one candidate, once:
 * those rows are read as they are. Every row at or after `cut` (the candidates' tails and all other parts) goes through `FINAL`,
 * filtered by `PREWHERE bucket >= cut` before the merge (bucket is a sorting-key column, so every row of
 * a key passes or none does). After a compaction `cut` is where live ingest began adding parts: only the
 * last minutes are merged. A month that is one merged part is the case with no other part. Right after a
 * bulk load, before its compaction, the month is the load's parts (the demo backfill's 12 h windows,
 * minute-aligned: disjoint ranges) and what background merges made of them: candidates, with the cut where
 * live ingest began.
 *
 * Naming parts, not partitions, keeps the pinned rows as they were at the pin (a late insert below `cut`
 * is not read, as for a whole pinned month). The one race is a pinned part being replaced (merged with a
 * new insert, dropped by TTL) before the query took its snapshot of parts: `stillActive`
 * (engine/store/merged-parts.ts) after the first block rules it out, else the export restarts with `FINAL`
 * everywhere (export-run.ts).
 */
import { stillActive } from '../store/merged-parts.js'
import type { Store } from '../store/store.js'
import { primed } from './primed.js'

export interface PinnedRead {
  /** candidate parts read without FINAL below `cutS`; empty: read everything with FINAL */
  readonly parts: readonly string[]
  /** epoch seconds: rows with bucket < cutS come from `parts` alone, the rest through FINAL */
  readonly cutS: number
}

export const NO_PIN: PinnedRead = { parts: [], cutS: 0 }

interface PartRow {
  readonly partition_id: string
  readonly name: string
  readonly level: number | string
  readonly rows: number | string
  readonly min_s: number | string
  readonly max_s: number | string
}

/**
 * The pin of `table` (in the current database) for an export of [fromS, toS) (epoch seconds). Parts
 * without rows in the range are ignored: they hold no key the export reads.
 */
export async function pinnedRead(store: Store, table: string, fromS: number, toS: number): Promise<PinnedRead> {
  const parts = await store.query<PartRow>(
    `SELECT partition_id, name, level, rows, toUnixTimestamp(min_time) AS min_s, toUnixTimestamp(max_time) AS max_s
     FROM system.parts
     WHERE database = currentDatabase() AND table = {table:String} AND active
       AND max_time >= toDateTime({from:UInt32}, 'UTC') AND min_time < toDateTime({to:UInt32}, 'UTC')
     ORDER BY partition_id, name`,
    { table, from: fromS, to: toS }
  )
  return choosePin(
    parts.map((p) => ({
      partition: p.partition_id,
      name: p.name,
      level: Number(p.level),
      rows: Number(p.rows),
      minS: Number(p.min_s),
      maxS: Number(p.max_s)
    })),
    toS
  )
}

export interface PartInfo {
  readonly partition: string
  readonly name: string
  readonly level: number
  readonly rows: number
  /** epoch seconds of the part's smallest bucket (system.parts min_time) */
  readonly minS: number
  /** epoch seconds of the part's largest bucket (system.parts max_time) */
  readonly maxS: number
}

/** The pin for these active parts (pure: the rule of the module header). `toS`: the export's end. */
export function choosePin(parts: readonly PartInfo[], toS: number): PinnedRead {
  // a table whose parts carry no time range (min_time 0) cannot be reasoned about: FINAL everywhere
  if (parts.some((p) => !(p.minS > 0))) return NO_PIN
  const merged = parts
    .filter((p) => p.level > 0)
    .sort((a, b) => b.rows - a.rows || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  const candidates: PartInfo[] = []
  for (const p of merged) {
    const clash = candidates.some((c) => c.partition === p.partition && c.minS <= p.maxS && p.minS <= c.maxS)
    if (!clash) candidates.push(p)
  }
  let cutS = toS
  for (const p of parts) if (!candidates.includes(p)) cutS = Math.min(cutS, p.minS)
  // a candidate starting at or after the cut has no rows to read without FINAL
  const pinned = candidates
    .filter((p) => p.minS < cutS)
    .map((p) => p.name)
    .sort()
  return pinned.length > 0 ? { parts: pinned, cutS } : NO_PIN
}

/**
 * `body`, a read under `pin`, primed (its first block pulled), when every pinned part was still active
 * after that block (the race of the module header); else null with the body cancelled, and the caller reads
 * again with `FINAL` everywhere.
 */
export async function pinnedBody(
  store: Store,
  table: string,
  pin: PinnedRead,
  body: AsyncIterable<Uint8Array>
): Promise<AsyncIterableIterator<Uint8Array> | null> {
  const first = await primed(body)
  let valid: boolean
  try {
    valid = await stillActive(store, table, { parts: pin.parts, partitions: [] })
  } catch (err) {
    await first.return?.() // the query holds a store connection until it is cancelled
    throw err
  }
  if (valid) return first
  await first.return?.()
  return null
}

/**
 * Whether exports may pin merged parts. The pin check after the first chunk needs a store connection no
 * export holds: the config keeps the export cap below the chDB pool (server/config.ts). chDB only: a
 * server's parts live per shard.
 */
export function canPinMergedParts(
  storeKind: Store['kind'],
  opts: { readonly exportPinMerged: boolean; readonly chdbPoolSize: number; readonly exportMaxConcurrent: number }
): boolean {
  return opts.exportPinMerged && storeKind === 'chdb' && opts.chdbPoolSize > opts.exportMaxConcurrent
}
