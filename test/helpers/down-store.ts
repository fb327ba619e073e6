import type { FileInsert, InsertBatch, Params, Store } from '../../engine/store/store.js'
import { StoreError } from '../../engine/store/store-error.js'

/**
 * A real store that can be switched "down": while down, every call fails at once with a retryable
 * NETWORK_ERROR, as a ClickHouse server that went away would, and nothing reaches the engine.
 */
export class DownStore implements Store {
  down = false
  /** calls refused while down */
  refused = 0
  readonly insertFile?: (batch: FileInsert) => Promise<void>

  constructor(private readonly inner: Store) {
    const fileInsert = inner.insertFile?.bind(inner)
    if (fileInsert) this.insertFile = (batch) => this.gate(() => fileInsert(batch))
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
  insert(batch: InsertBatch) {
    return this.gate(() => this.inner.insert(batch))
  }
  stream(sql: string, params: Params | undefined, format: string, signal?: AbortSignal): AsyncIterable<Uint8Array> {
    if (!this.down) return this.inner.stream(sql, params, format, signal)
    const refuse = () => this.gate<never>(() => Promise.reject(new Error('unreachable')))
    return {
      [Symbol.asyncIterator]: () => ({ next: refuse })
    }
  }
  close() {
    return this.inner.close()
  }
}
