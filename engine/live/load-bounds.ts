/**
 * @module
 * The bounds of one load of the live books from the store (engine/live/books-load.ts): the live rebuild
 * (`pit` null: every stored row, windows relative to the clock) or a point in time (`pit`: rows with event
 * time `ts <= asOf` and receive time `ingest_ts <= knownBy`, windows relative to `asOf`), optionally only
 * some base assets. SQL fragments here bind every value as a parameter.
 */
import type { PointInTime } from '../asof/point-in-time.js'

export interface LoadBounds {
  /** the moment the windows (24 h, 48 h, 7 d, 30 d) are counted back from, epoch ms */
  readonly nowMs: number
  /** null: the live rebuild (all stored rows); else rows known at that point in time only */
  readonly pit: PointInTime | null
  /** only these base assets (upper case); absent: all */
  readonly bases?: readonly string[] | undefined
}

export const HOUR_MS = 3_600_000

/** The live rebuild's bounds at `nowMs`. */
export function liveBounds(nowMs = Date.now()): LoadBounds {
  return { nowMs, pit: null }
}

/** The bounds of an answer as of `pit`, optionally only `bases`. */
export function pitBounds(pit: PointInTime, bases?: readonly string[]): LoadBounds {
  return { nowMs: pit.asOfMs, pit, bases }
}

/**
 * ` AND ts <= asOf AND ingest_ts <= knownBy` (prefixed with `alias.` when given) for a point in time; empty
 * for the live rebuild. Uses the parameters of `boundParams`.
 */
export function knownSql(b: LoadBounds, alias = ''): string {
  if (!b.pit) return ''
  return ` AND ${alias}ts <= fromUnixTimestamp64Milli({asOf:Int64}, 'UTC') AND ${alias}ingest_ts <= fromUnixTimestamp64Milli({knownBy:Int64}, 'UTC')`
}

/** ` AND <column> IN {bases:Array(String)}` when the bounds name bases; empty otherwise. */
export function basesSql(b: LoadBounds, column = 'base'): string {
  return b.bases ? ` AND ${column} IN {bases:Array(String)}` : ''
}

/** The parameters `knownSql` and `basesSql` refer to. */
export function boundParams(b: LoadBounds): Record<string, number | string[]> {
  const p: Record<string, number | string[]> = {}
  if (b.pit) {
    p['asOf'] = b.pit.asOfMs
    p['knownBy'] = b.pit.knownByMs
  }
  if (b.bases) p['bases'] = [...b.bases]
  return p
}

/**
 * The event-time span of the raw hours `hours` (epoch ms of hour starts, ascending, non-empty) as parameters
 * `<name>From` and `<name>To` (epoch s): a raw read of some hours scans only from the first to the end of
 * the last, not the whole window. `rawSpanSql(name)` is the matching ` AND ts >= .. AND ts < ..`.
 */
export function rawSpan(name: string, hours: readonly number[]): Record<string, number> {
  // nothing is stored before the epoch (DateTime columns): a span reaching before it starts there
  const fromS = Math.max(0, hours[0]! / 1000)
  return { [`${name}From`]: fromS, [`${name}To`]: Math.max(fromS, hours[hours.length - 1]! / 1000 + 3600) }
}

export function rawSpanSql(name: string): string {
  return ` AND ts >= toDateTime64({${name}From:UInt32}, 3, 'UTC') AND ts < toDateTime64({${name}To:UInt32}, 3, 'UTC')`
}
