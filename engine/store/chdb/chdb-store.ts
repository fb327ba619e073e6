/**
 * @module
 * The embedded store: a pool of chDB sessions on one data directory. A chDB connection runs one query at
 * a time, so the pool size is the cap on queries in flight; callers beyond it wait in a bounded queue.
 * Every call stays on the main thread (async queries already run on libuv threads): a second thread
 * opening the same path was seen to hang the first.
 */
import { Session } from 'chdb'
import { Semaphore } from '../semaphore.js'
import { DEDUP_INSERT_SETTINGS, FAST_INSERT_SETTINGS, type InsertBatch, type Params, type Store } from '../store.js'
import { toStoreError } from '../store-error.js'
import { parseJsonEachRow } from '../json-rows.js'

export interface ChdbStoreOptions {
  readonly path: string
  /** sessions on the path = max queries in flight. @default 4 */
  readonly poolSize?: number
  /** callers allowed to wait for a session before `acquire` fails fast. @default 10_000 */
  readonly maxWaiting?: number
}

/** Engine flags fixed at connect: 64-bit integers as JSON numbers (our counts fit in 2^53). */
const CONNECTION_ARGS = ['--output_format_json_quote_64bit_integers=0']

export class ChdbStore implements Store {
  readonly kind = 'chdb' as const
  private readonly idle: Session[]
  private readonly all: Session[]
  private readonly gate: Semaphore
  private closed = false

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
        settings: { ...DEDUP_INSERT_SETTINGS, ...FAST_INSERT_SETTINGS, insert_deduplication_token: batch.dedupToken }
      })
    )
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
