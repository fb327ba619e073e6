/**
 * @module
 * Compaction of aggregating tables after bulk loads (imports, the demo backfill, full-speed replays).
 * A bulk load leaves several overlapping parts per partition, and ClickHouse's background merges may take
 * a long time to fold them (chDB kept 3 overlapping parts of a fresh load for minutes). Reads with `FINAL`
 * (the bulk export) then merge the aggregate states of every part while reading, which cost about half of
 * the export's time (bench/history: 10M candles ~1.3M rows/s over overlapping parts). After a bulk load,
 * each partition of the caller's tables that holds more than one part is merged into one
 * (`OPTIMIZE TABLE ... PARTITION ID ... FINAL`); `FINAL` reads of non-overlapping parts then skip merging.
 *
 * Which tables, and which partitions a load's time range touches, are the caller's knowledge (a
 * `CompactionTarget`; the candle tables' is engine/history/candle-compaction.ts): this module knows
 * parts and partitions, not what the tables hold.
 *
 * Embedded chDB only: a ClickHouse server has its own merge resources (and on a cluster the local tables
 * have other names); an operator can run the same OPTIMIZE there. Live ingest keeps adding small parts,
 * which background merges handle as before.
 */
import type { Logger } from '../log.js'
import type { Store } from './store.js'

/** ClickHouse partition ids are digits, letters, `_` and `-` (e.g. `202611`); anything else is refused. */
const PARTITION_ID = /^[A-Za-z0-9_-]{1,64}$/
/** A plain unquoted table name: the names go into the OPTIMIZE statement's text. */
const TABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/

/**
 * Longest one compaction run waits for exports, ms (summed over its partitions): past it the run merges
 * anyway, so a steady stream of exports cannot keep a bulk load's partitions split for long.
 */
const YIELD_BUDGET_MS = 30_000
/**
 * Quiet time after the last export before a merge starts, ms: exports a client runs back to back (one per
 * range or format) are not interleaved with merges. A run's first merge waits as long after the bulk load
 * ended, so that exports started as soon as the load's data is served begin before it.
 */
const YIELD_GRACE_MS = 1_000
/** How often a waiting compaction looks at `busy`, ms. */
const YIELD_POLL_MS = 100

/** The time range a bulk load wrote, epoch ms (inclusive). */
export interface TimeRange {
  readonly fromMs: number
  readonly toMs: number
}

/** What to compact: tables of one partitioning, named by the caller. */
export interface CompactionTarget {
  /** short name for logs, e.g. `candle` */
  readonly name: string
  /**
   * the tables whose split partitions are merged, in the order they are merged (they go into the SQL text:
   * our own names only)
   */
  readonly tables: readonly string[]
  /** the partition ids (`system.parts.partition_id`) of `tables` that rows of `range` can land in */
  readonly partitionsOf: (range: TimeRange) => readonly string[]
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
  /** of `ms`, the time spent waiting for exports (`CompactOptions.busy`) */
  readonly yieldedMs: number
}

export interface CompactOptions {
  /** only partitions this range can touch (a load's range); unset: every split partition */
  readonly range?: TimeRange | undefined
  /** checked before each partition: a shutdown waits for one partition's merge at most */
  readonly signal?: AbortSignal | undefined
  /** told after each partition's merge (the compactor's debug log), `ms` its wall time */
  readonly onPartition?: ((p: { table: string; partition: string; ms: number }) => void) | undefined
  /**
   * whether exports are streaming (the server's export slots): each partition's merge then waits until none
   * has for `YIELD_GRACE_MS` (the run's first merge waits that long in any case), within `yieldBudgetMs` per
   * run. Exports do not need the merge: a bulk load's parts are level 1 and read without FINAL
   * (engine/export/pinned-parts.ts), and the merge would take one of the export's cores. Unset: no waiting.
   */
  readonly busy?: (() => boolean) | undefined
  /** @default YIELD_BUDGET_MS (30 s) */
  readonly yieldBudgetMs?: number | undefined
}

/**
 * Waits while `busy()` holds, until it has been false for `YIELD_GRACE_MS` in a row, `budgetMs` ran out or
 * `signal` aborted; returns the ms waited. Not busy when called (and not `first`): returns 0 at once.
 */
async function quietSpell(
  busy: () => boolean,
  budgetMs: number,
  signal: AbortSignal | undefined,
  first: boolean
): Promise<number> {
  const t0 = performance.now()
  if (!first && !busy()) return 0
  let quietSince: number | null = null
  while (!signal?.aborted && performance.now() - t0 < budgetMs) {
    await new Promise((r) => setTimeout(r, YIELD_POLL_MS))
    const now = performance.now()
    if (busy()) quietSince = null
    else if ((quietSince ??= now) <= now - YIELD_GRACE_MS) break
  }
  return performance.now() - t0
}

/**
 * Merges every partition of the target's tables (within `range`) that holds more than one active part, in
 * the target's table order, newest partition first.
 */
export async function compactPartitions(
  store: Store,
  target: CompactionTarget,
  opts: CompactOptions = {}
): Promise<CompactResult> {
  const t0 = performance.now()
  const { tables } = target
  for (const t of tables) if (!TABLE_NAME.test(t)) throw new TypeError(`compaction: not a plain table name: ${t}`)
  if (store.kind !== 'chdb') return { partitions: 0, ms: 0, yieldedMs: 0 }
  // with a range: only its partitions (none: nothing to do); without: every split partition
  const partitions = opts.range ? [...target.partitionsOf(opts.range)] : []
  if (opts.range && partitions.length === 0) return { partitions: 0, ms: 0, yieldedMs: 0 }
  const split = await store.query<{ table: string; partition_id: string }>(
    `SELECT table, partition_id FROM system.parts
     WHERE database = currentDatabase() AND active AND table IN {tables:Array(String)}
       AND (empty({partitions:Array(String)}) OR partition_id IN {partitions:Array(String)})
     GROUP BY table, partition_id HAVING count() > 1
     ORDER BY table, partition_id`,
    { tables: [...tables], partitions }
  )
  // the caller's table order (the candle target: 1m first, the bulk export's table and the largest), and
  // within a table the newest partition first (the live month holds most of a recent export's rows):
  // exports during a compaction find what they read most merged soonest
  const rank = (t: string) => tables.indexOf(t)
  split.sort((a, b) => rank(a.table) - rank(b.table) || (a.partition_id < b.partition_id ? 1 : -1))
  let merged = 0
  let yielded = 0
  const budgetMs = opts.yieldBudgetMs ?? YIELD_BUDGET_MS
  for (const { table, partition_id: id } of split) {
    if (opts.busy) yielded += await quietSpell(opts.busy, budgetMs - yielded, opts.signal, merged === 0)
    if (opts.signal?.aborted) break
    // both come from the caller's table list and system.parts; checked anyway, as they go into the SQL text
    if (!tables.includes(table) || !PARTITION_ID.test(id)) throw new Error(`unexpected partition ${table}/${id}`)
    const m0 = performance.now()
    await store.command(`OPTIMIZE TABLE ${table} PARTITION ID '${id}' FINAL`)
    merged++
    opts.onPartition?.({ table, partition: id, ms: Math.round(performance.now() - m0) })
  }
  return { partitions: merged, ms: Math.round(performance.now() - t0), yieldedMs: Math.round(yielded) }
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
    /** the tables to compact and their partitioning (the caller's: e.g. `CANDLE_COMPACTION`) */
    private readonly target: CompactionTarget,
    private readonly log: Logger,
    /** counts a failed run (the server's supervisor); the next request runs again */
    private readonly onError: (err: unknown) => void = () => undefined,
    /** whether exports are streaming: merges wait for them (`CompactOptions.busy`) */
    private readonly busy?: () => boolean
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
          const r = await compactPartitions(this.store, this.target, {
            range,
            signal: this.stopping.signal,
            busy: this.busy,
            onPartition: (p) => this.log.debug(p, `${this.target.name} partition merged`)
          })
          this.runs++
          if (r.partitions > 0) this.log.info(r, `${this.target.name} partitions compacted after a bulk load`)
        } catch (err) {
          this.log.warn(
            { err: err instanceof Error ? err.message : String(err) },
            `${this.target.name} compaction failed`
          )
          this.onError(err)
        }
      }
    } finally {
      this.running = null
    }
  }
}
