/**
 * @module
 * The event time of the oldest data an `as_of` answer could use (its `point_in_time.oldest_known`): the
 * oldest hour of the known-at ledger among the answer's tables with a row received by known_by, else (rows
 * stored before the ledger existed are not in it) the oldest such row of the first table.
 */
import type { Store } from '../store/store.js'
import type { KnownAtTable } from './known-at.js'

export async function oldestOf(
  store: Store,
  tables: readonly KnownAtTable[],
  knownByMs: number
): Promise<number | null> {
  const [ledger] = await store.query<{ h: number | null }>(
    `SELECT toUnixTimestamp(min(bucket)) * 1000 AS h FROM known_at_1h
     WHERE tbl IN {tables:Array(String)} AND first_known <= fromUnixTimestamp64Milli({known:Int64}, 'UTC')
     HAVING count() > 0`,
    { tables: [...tables], known: knownByMs }
  )
  if (ledger && ledger.h !== null) return Number(ledger.h)
  // table names come from KNOWN_AT_TABLES only, never from a request
  const [raw] = await store.query<{ ms: number | null }>(
    `SELECT toUnixTimestamp64Milli(min(ts)) AS ms FROM ${tables[0]!}
     WHERE ingest_ts <= fromUnixTimestamp64Milli({known:Int64}, 'UTC') HAVING count() > 0`,
    { known: knownByMs }
  )
  return raw && raw.ms !== null ? Number(raw.ms) : null
}
