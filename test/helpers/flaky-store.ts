import type { FileInsert, InsertBatch, Params, Store } from '../../engine/store/store.js'
import { StoreError } from '../../engine/store/store-error.js'

/**
 * Fault injection around a real store: the next `failInserts` inserts fail with the given ClickHouse code
 * before reaching the engine (or, with `afterWrite`, after the engine wrote them: an acknowledged write
 * whose answer was lost). While `down`, every call fails at once with a retryable NETWORK_ERROR, as a
 * ClickHouse server that went away would, and nothing reaches the engine.
 */
export class FlakyStore implements Store {
  failInserts = 0
  down = false
  /** calls refused while down */
  refused = 0
  code = 252 // TOO_MANY_PARTS: transient
  afterWrite = false
  attempts = 0

  /** present when the inner store has it (chDB), with the same fault injection as `insert` */
  readonly insertFile?: (batch: FileInsert) => Promise<void>

  constructor(private readonly inner: Store) {
    const fileInsert = inner.insertFile?.bind(inner)
    if (fileInsert) this.insertFile = (batch) => this.faulty(() => fileInsert(batch))
  }

  get kind() {
    return this.inner.kind
  }
  private gate<T>(call: () => Promise<T>): Promise<T> {
    if (!this.down) return call()
    this.refused++
    return Promise.reject(new StoreError('Code: 210. injected outage: connection refused', 210, 'transient'))
  }

  command(sql: string, params?: Params) {
    return this.gate(() => this.inner.command(sql, params))
  }
  query<T>(sql: string, params?: Params) {
    return this.gate(() => this.inner.query<T>(sql, params))
  }
  stream(sql: string, params: Params | undefined, format: string, signal?: AbortSignal): AsyncIterable<Uint8Array> {
    if (!this.down) return this.inner.stream(sql, params, format, signal)
    return { [Symbol.asyncIterator]: () => ({ next: () => this.gate<never>(() => Promise.reject(new Error('down'))) }) }
  }
  close() {
    return this.inner.close()
  }

  insert(batch: InsertBatch): Promise<void> {
    return this.faulty(() => this.inner.insert(batch))
  }

  private async faulty(write: () => Promise<void>): Promise<void> {
    if (this.down) return this.gate(write)
    this.attempts++
    if (this.failInserts > 0) {
      this.failInserts--
      if (this.afterWrite) await write()
      throw new StoreError(
        `Code: ${this.code}. injected failure`,
        this.code,
        this.code === 252 ? 'transient' : 'bad_data'
      )
    }
    await write()
  }
}
