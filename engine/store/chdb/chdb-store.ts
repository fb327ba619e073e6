/**
 * @module
 * The embedded store: a pool of chDB sessions on one data directory. A chDB connection runs one query at
 * a time, so the pool size is the cap on queries in flight; callers beyond it wait in a bounded queue.
 * Every call stays on the main thread (async queries already run on libuv threads): a second thread
 * opening the same path was seen to hang the first.
 */
import { Session } from 'chdb'
import { Semaphore } from '../../runtime/semaphore.js'
import {
  DEDUP_INSERT_SETTINGS,
  insertSettings,
  type FileInsert,
  type InsertBatch,
  type Params,
  type Store
} from '../store.js'
import { settingsClause, sqlString } from '../sql-text.js'
import { toStoreError } from '../store-error.js'
import { parseJsonEachRow } from '../json-rows.js'

export interface ChdbStoreOptions {
  readonly path: string
  /** sessions on the path = max queries in flight. @default 4 */
  readonly poolSize?: number
  /** callers allowed to wait for a session before `acquire` fails fast. @default 10_000 */
  readonly maxWaiting?: number
}

/**
 * Idle threads the engine's global thread pool keeps (the engine's default is 1,000). The removal of
 * outdated parts after merges runs on up to 128 threads at once, and queries queued behind a busy CPU
 * add more: without a bound the pool grows to about 180 threads and keeps them all, each holding its
 * stack and its allocator's per-thread cache (about 0.3 MB each), tens of MB resident that the JS heap
 * does not show. Threads beyond this many exit when idle; a new one costs tens of microseconds.
 */
export const ENGINE_IDLE_THREADS = 16

/**
 * Engine flags fixed at connect: 64-bit integers as JSON numbers (our counts fit in 2^53), and the
 * global thread pool's idle bound (ENGINE_IDLE_THREADS).
 */
const CONNECTION_ARGS = [
  '--output_format_json_quote_64bit_integers=0',
  `--max_thread_pool_free_size=${ENGINE_IDLE_THREADS}`
]

export class ChdbStore implements Store {
  readonly kind = 'chdb' as const
  private readonly idle: Session[]
  private readonly all: Session[]
  private readonly gate: Semaphore
  private closed = false
  /** column name -> type as the payload is read by `insertFile`, per table (types never change at run time) */
  private readonly fileTypes = new Map<string, Promise<ReadonlyMap<string, string>>>()

  constructor(opts: ChdbStoreOptions) {
    const size = opts.poolSize ?? 4
    this.all = Array.from({ length: size }, () => new Session(opts.path, { connectionArgs: CONNECTION_ARGS }))
    this.idle = [...this.all]
    this.gate = new Semaphore(size, opts.maxWaiting ?? 10_000)
  }

  private async withSession<T>(fn: (s: Session) => Promise<T>): Promise<T> {
    if (this.closed) throw toStoreError(new Error('store is closed'))
    try {
      await this.gate.acquire()
    } catch (err) {
      throw toStoreError(err)
    }
    const session = this.idle.pop()!
    try {
      return await fn(session)
    } catch (err) {
      throw toStoreError(err)
    } finally {
      this.idle.push(session)
      this.gate.release()
    }
  }

  async command(sql: string, params?: Params): Promise<void> {
    await this.withSession((s) => (params ? s.queryBindAsync(sql, params) : s.queryAsync(sql)))
  }

  async query<T>(sql: string, params?: Params): Promise<T[]> {
    const opts = { format: 'JSONEachRow' }
    const res = await this.withSession((s) => (params ? s.queryBindAsync(sql, params, opts) : s.queryAsync(sql, opts)))
    return parseJsonEachRow<T>(res.text())
  }

  async insert(batch: InsertBatch): Promise<void> {
    await this.withSession((s) =>
      s.insert({
        table: batch.table,
        columns: batch.columns,
        format: batch.format,
        values: batch.data,
        settings: { ...DEDUP_INSERT_SETTINGS, ...insertSettings(batch), insert_deduplication_token: batch.dedupToken }
      })
    )
  }

  /**
   * `INSERT INTO t (cols) SELECT * FROM file(path, TSV, structure)`. The engine reads and parses the file
   * itself, with `LowCardinality(X)` columns read as `X` and converted on insert: measured on 2M trades in
   * 250,000-row batches (docs/benchmarks.md, "Replay"), 7.5 -> 4.5 CPU-s and 326k -> 683k trades/s against
   * the inline insert, with the same stored rows; parsing straight into LowCardinality columns and chDB's
   * client side of the inline insert were most of the difference. Same settings and token as `insert`.
   */
  async insertFile(batch: FileInsert): Promise<void> {
    const types = await this.typesOf(batch.table)
    const structure = batch.columns
      .map((c) => {
        const t = types.get(c)
        if (t === undefined) throw toStoreError(new Error(`table ${batch.table} has no column ${c}`))
        return `${c} ${t}`
      })
      .join(', ')
    const settings = {
      ...DEDUP_INSERT_SETTINGS,
      ...insertSettings(batch),
      insert_deduplication_token: batch.dedupToken,
      input_format_tsv_skip_first_lines: batch.skipLines
    }
    await this.command(
      `INSERT INTO ${batch.table} (${batch.columns.join(', ')})${settingsClause(settings)}
       SELECT * FROM file(${sqlString(batch.file)}, ${sqlString(batch.format)}, ${sqlString(structure)})`
    )
  }

  private typesOf(table: string): Promise<ReadonlyMap<string, string>> {
    let types = this.fileTypes.get(table)
    if (!types) {
      types = this.query<{ name: string; type: string }>(
        `SELECT name, type FROM system.columns WHERE database = currentDatabase() AND table = {table:String}`,
        { table }
      ).then((rows) => {
        // a table not created yet must be looked up again next time
        if (rows.length === 0) this.fileTypes.delete(table)
        return new Map(rows.map((r) => [r.name, plainType(r.type)]))
      })
      types.catch(() => this.fileTypes.delete(table))
      this.fileTypes.set(table, types)
    }
    return types
  }

  async *stream(
    sql: string,
    params: Params | undefined,
    format: string,
    signal?: AbortSignal
  ): AsyncIterable<Uint8Array> {
    await this.gate.acquire()
    const session = this.idle.pop()!
    try {
      const opts = signal ? { format, signal } : { format }
      const q = params ? session.queryStreamBind(sql, params, opts) : session.queryStream(sql, opts)
      try {
        for await (const chunk of q) yield chunk.raw()
      } catch (err) {
        throw toStoreError(err)
      } finally {
        if (!q.closed) q.cancel()
      }
    } finally {
      this.idle.push(session)
      this.gate.release()
    }
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    // take every permit so in-flight work finishes before the sessions go away
    for (let i = 0; i < this.all.length; i++) await this.gate.acquire()
    for (const s of this.all) s.close()
  }
}

/** `LowCardinality(X)` -> `X`: the type the file is parsed as before the insert converts it. */
function plainType(type: string): string {
  const m = /^LowCardinality\((.*)\)$/.exec(type)
  return m ? m[1]! : type
}
