import type { FileInsert, InsertBatch, Store } from '../../engine/store/store.js'
import { StoreError } from '../../engine/store/store-error.js'

/**
 * Fault injection around a real store: the next `failInserts` inserts fail with the given ClickHouse code
 * before reaching the engine (or, with `afterWrite`, after the engine wrote them: an acknowledged write
 * whose answer was lost).
 */
export class FlakyStore implements Store {
  failInserts = 0
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
  command(sql: string, params?: Parameters<Store['command']>[1]) {
    return this.inner.command(sql, params)
  }
  query<T>(sql: string, params?: Parameters<Store['query']>[1]) {
    return this.inner.query<T>(sql, params)
  }
  stream(...args: Parameters<Store['stream']>) {
    return this.inner.stream(...args)
  }
  close() {
    return this.inner.close()
  }

  insert(batch: InsertBatch): Promise<void> {
    return this.faulty(() => this.inner.insert(batch))
  }

  private async faulty(write: () => Promise<void>): Promise<void> {
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
