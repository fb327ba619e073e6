/**
 * The store of an integration test file: a chDB store with the schema under `<dir>/db`, in a temp dir the
 * tests may also use for their own files (journals, ...). Registers the file's beforeAll/afterAll; read the
 * fields inside tests.
 */
import path from 'node:path'
import { afterAll, beforeAll } from 'vitest'
import { migrate } from '../../engine/schema/migrate.js'
import { ChdbStore } from '../../engine/store/chdb/chdb-store.js'
import { tmpDir } from './tmp-dir.js'

export interface MigratedStore {
  readonly store: ChdbStore
  /** the temp dir holding the store (`db/`); removed after the file's tests */
  readonly dir: string
}

export function useMigratedStore(): MigratedStore {
  const tmp = tmpDir()
  let store: ChdbStore | undefined
  beforeAll(async () => {
    store = new ChdbStore({ path: path.join(tmp.dir, 'db'), poolSize: 2 })
    await migrate(store, {})
  })
  afterAll(async () => {
    await store?.close()
    tmp.cleanup()
  })
  return {
    get store() {
      return store!
    },
    dir: tmp.dir
  }
}
