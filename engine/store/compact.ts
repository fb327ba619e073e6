/**
 * @module
 * Compaction of the candle tables after bulk loads (imports, the demo backfill, full-speed replays).
 * A bulk load leaves several overlapping parts per monthly partition, and ClickHouse's background merges
 * may take a long time to fold them (chDB kept 3 overlapping parts of a fresh load for minutes). Reads
 * with `FINAL` (the bulk export) then merge the aggregate states of every part while reading, which cost
 * about half of the export's time (bench/history: 10M candles ~1.3M rows/s over overlapping parts). After
 * a bulk load, each partition of a candle table that holds more than one part is merged into one
 * (`OPTIMIZE TABLE ... PARTITION ID ... FINAL`); `FINAL` reads of non-overlapping parts then skip merging.
 *
 * Embedded chDB only: a ClickHouse server has its own merge resources (and on a cluster the local tables
 * have other names); an operator can run the same OPTIMIZE there. Live ingest keeps adding small parts,
 * which background merges handle as before.
 */
import type { Logger } from '../log.js'
import { TIMEFRAMES } from '../history/timeframes.js'
import type { Store } from './store.js'

/** The candle tables, from 1m to 1mo: the tables bulk exports read with FINAL. */
export const CANDLE_TABLES: readonly string[] = Object.values(TIMEFRAMES).map((t) => t.table)

/** ClickHouse partition ids are digits, letters, `_` and `-` (e.g. `202611`); anything else is refused. */
const PARTITION_ID = /^[A-Za-z0-9_-]{1,64}$/

export interface CompactResult {
  /** partitions merged into one part */
  readonly partitions: number
  readonly ms: number
}

/** Merges every partition of the candle tables that holds more than one active part. */
export async function compactCandles(store: Store, tables: readonly string[] = CANDLE_TABLES): Promise<CompactResult> {
  const t0 = performance.now()
  if (store.kind !== 'chdb') return { partitions: 0, ms: 0 }
  const split = await store.query<{ table: string; partition_id: string }>(
    `SELECT table, partition_id FROM system.parts
     WHERE database = currentDatabase() AND active AND table IN {tables:Array(String)}
     GROUP BY table, partition_id HAVING count() > 1
     ORDER BY table, partition_id`,
    { tables: [...tables] }
  )
  for (const { table, partition_id: id } of split) {
    // both come from our own table list and system.parts; checked anyway, as they go into the SQL text
    if (!tables.includes(table) || !PARTITION_ID.test(id)) throw new Error(`unexpected partition ${table}/${id}`)
    await store.command(`OPTIMIZE TABLE ${table} PARTITION ID '${id}' FINAL`)
  }
  return { partitions: split.length, ms: Math.round(performance.now() - t0) }
}

/**
 * Runs compactions one at a time in the background: a request during a run schedules one more run after
 * it (bulk loads that end close together share it). Failures are logged, never thrown: compaction only
 * makes reads faster, it changes no data.
 */
export class Compactor {
  private running: Promise<void> | null = null
  private again = false
  /** compactions finished (tests and health figures) */
  runs = 0

  constructor(
    private readonly store: Store,
    private readonly log: Logger
  ) {}

  request(): void {
    if (this.running) {
      this.again = true
      return
    }
    this.running = this.loop()
  }

  /** Resolves once no compaction is running or scheduled. */
  async idle(): Promise<void> {
    while (this.running) await this.running
  }

  private async loop(): Promise<void> {
    try {
      do {
        this.again = false
        try {
          const r = await compactCandles(this.store)
          this.runs++
          if (r.partitions > 0) this.log.info(r, 'candle partitions compacted after a bulk load')
        } catch (err) {
          this.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'candle compaction failed')
        }
      } while (this.again)
    } finally {
      this.running = null
    }
  }
}
