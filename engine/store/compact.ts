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

/** The time range a bulk load wrote, epoch ms (inclusive). */
export interface TimeRange {
  readonly fromMs: number
  readonly toMs: number
}

const DAY_MS = 86_400_000

/**
 * The candle partitions (`toYYYYMM(bucket)`) rows of `range` can land in. A week bucket starts on the
 * Monday before its rows, possibly in the previous month: the range is widened by 7 days back.
 */
export function monthPartitions(range: TimeRange): string[] {
  const out: string[] = []
  const d = new Date(range.fromMs - 7 * DAY_MS)
  let y = d.getUTCFullYear()
  let m = d.getUTCMonth()
  const end = new Date(range.toMs)
  while (y < end.getUTCFullYear() || (y === end.getUTCFullYear() && m <= end.getUTCMonth())) {
    out.push(`${y}${String(m + 1).padStart(2, '0')}`)
    if (++m === 12) {
      m = 0
      y++
    }
  }
  return out
}

/** The range spanned by loads' first and last row times (epoch ms); null when nothing was written. */
export function rangeOf(
  loads: readonly { readonly rows: number; readonly from: number; readonly to: number }[]
): TimeRange | null {
  const written = loads.filter((l) => l.rows > 0)
  if (written.length === 0) return null
  return { fromMs: Math.min(...written.map((l) => l.from)), toMs: Math.max(...written.map((l) => l.to)) }
}

/** Two ranges' union (undefined: every partition). */
export function unionRange(a: TimeRange | undefined, b: TimeRange | undefined): TimeRange | undefined {
  if (!a || !b) return undefined
  return { fromMs: Math.min(a.fromMs, b.fromMs), toMs: Math.max(a.toMs, b.toMs) }
}

export interface CompactResult {
  /** partitions merged into one part */
  readonly partitions: number
  readonly ms: number
}

export interface CompactOptions {
  /** only partitions this range can touch (a load's range); unset: every split partition */
  readonly range?: TimeRange | undefined
  readonly tables?: readonly string[]
  /** checked before each partition: a shutdown waits for one partition's merge at most */
  readonly signal?: AbortSignal | undefined
}

/** Merges every partition of the candle tables (within `range`) that holds more than one active part. */
export async function compactCandles(store: Store, opts: CompactOptions = {}): Promise<CompactResult> {
  const t0 = performance.now()
  const tables = opts.tables ?? CANDLE_TABLES
  if (store.kind !== 'chdb') return { partitions: 0, ms: 0 }
  const months = opts.range ? monthPartitions(opts.range) : []
  const split = await store.query<{ table: string; partition_id: string }>(
    `SELECT table, partition_id FROM system.parts
     WHERE database = currentDatabase() AND active AND table IN {tables:Array(String)}
       AND (empty({months:Array(String)}) OR partition_id IN {months:Array(String)})
     GROUP BY table, partition_id HAVING count() > 1
     ORDER BY table, partition_id`,
    { tables: [...tables], months }
  )
  let merged = 0
  for (const { table, partition_id: id } of split) {
    if (opts.signal?.aborted) break
    // both come from our own table list and system.parts; checked anyway, as they go into the SQL text
    if (!tables.includes(table) || !PARTITION_ID.test(id)) throw new Error(`unexpected partition ${table}/${id}`)
    await store.command(`OPTIMIZE TABLE ${table} PARTITION ID '${id}' FINAL`)
    merged++
  }
  return { partitions: merged, ms: Math.round(performance.now() - t0) }
}

/**
 * Runs compactions one at a time in the background: a request during a run schedules one more run after
 * it, over the union of the requested ranges (bulk loads that end close together share it). Failures are
 * logged, never thrown: compaction only makes reads faster, it changes no data. `stop()` (shutdown) lets
 * the partition being merged finish and starts no other.
 */
export class Compactor {
  private running: Promise<void> | null = null
  /** the next run's range: absent = no run asked, `all` = every split partition */
  private next: { range: TimeRange | undefined } | null = null
  private readonly stopping = new AbortController()
  /** compactions finished (tests and health figures) */
  runs = 0

  constructor(
    private readonly store: Store,
    private readonly log: Logger,
    /** counts a failed run (the server's supervisor); the next request runs again */
    private readonly onError: (err: unknown) => void = () => undefined
  ) {}

  /** Asks for a compaction of the partitions `range` touches (unset: every split partition). */
  request(range?: TimeRange): void {
    if (this.stopping.signal.aborted) return
    this.next = this.next ? { range: unionRange(this.next.range, range) } : { range }
    this.running ??= this.loop()
  }

  /** Resolves once no compaction is running or scheduled. */
  async idle(): Promise<void> {
    while (this.running) await this.running
  }

  /** Shutdown: no new partition is started; resolves when the current merge (if any) ended. */
  async stop(): Promise<void> {
    this.stopping.abort()
    this.next = null
    await this.idle()
  }

  private async loop(): Promise<void> {
    try {
      while (this.next && !this.stopping.signal.aborted) {
        const { range } = this.next
        this.next = null
        try {
          const r = await compactCandles(this.store, { range, signal: this.stopping.signal })
          this.runs++
          if (r.partitions > 0) this.log.info(r, 'candle partitions compacted after a bulk load')
        } catch (err) {
          this.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'candle compaction failed')
          this.onError(err)
        }
      }
    } finally {
      this.running = null
    }
  }
}
