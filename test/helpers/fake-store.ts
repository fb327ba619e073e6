/**
 * A `Store` without an engine, for handler tests in process: every query is answered by a function of its
 * SQL and bound parameters, and every call is recorded (SQL, parameters, format) in order. Streams yield
 * what `stream` gives (nothing by default) and record whether they were closed; inserts are refused (a
 * read route that inserts is a bug).
 */
import type { InsertBatch, Params, Store } from '../../engine/store/store.js'

export interface FakeCall {
  readonly op: 'query' | 'command' | 'stream'
  readonly sql: string
  readonly params: Params | undefined
  /** the output format of a stream */
  readonly format?: string
}

/** The rows of a query; throw to make the query fail. */
export type FakeAnswer = (sql: string, params: Params | undefined) => readonly unknown[] | Promise<readonly unknown[]>

export interface FakeStoreOptions {
  /** @default 'chdb' */
  readonly kind?: Store['kind']
  /** the chunks of a stream; called on its first pull. @default no chunks */
  readonly stream?: (sql: string, params: Params | undefined, format: string) => AsyncIterable<Uint8Array>
}

export class FakeStore implements Store {
  readonly kind: Store['kind']
  readonly calls: FakeCall[] = []
  /** streams opened and not yet ended or closed */
  openStreams = 0

  constructor(
    private readonly answer: FakeAnswer = () => [],
    private readonly opts: FakeStoreOptions = {}
  ) {
    this.kind = opts.kind ?? 'chdb'
  }

  /** The recorded queries (not commands or streams), in order. */
  get queries(): FakeCall[] {
    return this.calls.filter((c) => c.op === 'query')
  }

  async query<T>(sql: string, params?: Params): Promise<T[]> {
    this.calls.push({ op: 'query', sql, params })
    return [...(await this.answer(sql, params))] as T[]
  }

  async command(sql: string, params?: Params): Promise<void> {
    this.calls.push({ op: 'command', sql, params })
  }

  insert(batch: InsertBatch): Promise<void> {
    return Promise.reject(new Error(`FakeStore: unexpected insert into ${batch.table}`))
  }

  stream(sql: string, params: Params | undefined, format: string): AsyncIterable<Uint8Array> {
    this.calls.push({ op: 'stream', sql, params, format })
    const source = this.opts.stream
    const store = this
    return (async function* () {
      store.openStreams++
      try {
        if (source) yield* source(sql, params, format)
      } finally {
        store.openStreams--
      }
    })()
  }

  async close(): Promise<void> {}
}

/** Whitespace-collapsed SQL, for readable `toContain` checks. */
export function flatSql(sql: string): string {
  return sql.replace(/\s+/g, ' ').trim()
}
