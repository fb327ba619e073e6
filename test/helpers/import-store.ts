/**
 * The store and directories of an import test file: a chDB store with the schema in a temp data dir, a temp
 * dir for the files the tests write, and `run` (the import of a list of files into that store). Registers
 * the file's beforeAll/afterAll; read the fields inside tests.
 */
import path from 'node:path'
import { afterAll, beforeAll } from 'vitest'
import { ChdbStore } from '../../engine/store/chdb/chdb-store.js'
import type { Params, Store } from '../../engine/store/store.js'
import { migrate } from '../../engine/schema/migrate.js'
import { importFiles } from '../../ingest/import/run-import.js'
import { tmpDir } from './tmp-dir.js'

export interface ImportStore {
  readonly store: ChdbStore
  readonly dataDir: string
  readonly filesDir: string
  /** imports `list` with temp and journal dirs under the data dir */
  run(list: string[], market?: 'perp' | 'spot'): ReturnType<typeof importFiles>
}

export function useImportStore(filesPrefix: string): ImportStore {
  let store: ChdbStore | undefined
  let data: ReturnType<typeof tmpDir> | undefined
  let files: ReturnType<typeof tmpDir> | undefined
  beforeAll(async () => {
    data = tmpDir()
    files = tmpDir(filesPrefix)
    store = new ChdbStore({ path: data.dir, poolSize: 2 })
    await migrate(store, {})
  })
  afterAll(async () => {
    await store?.close()
    data?.cleanup()
    files?.cleanup()
  })
  const env: ImportStore = {
    get store() {
      return store!
    },
    get dataDir() {
      return data!.dir
    },
    get filesDir() {
      return files!.dir
    },
    run: (list, market) =>
      importFiles(env.store, list, {
        tmpDir: path.join(env.dataDir, 'import-tmp'),
        journalDir: path.join(env.dataDir, 'import-journal'),
        ...(market ? { market } : {})
      })
  }
  return env
}

/** The first row of a query against `store`; the query must return one. */
export async function firstRow<T>(store: Store, sql: string, params?: Params): Promise<T> {
  return (await store.query<T>(sql, params))[0]!
}

/** Trades of one base or symbol in the raw table and in the 1m, 1h and 1d candles (each view's count). */
export interface TradeTotals {
  readonly raw: number
  readonly m1: number
  readonly h1: number
  readonly d1: number
}

export async function tradeTotals(store: ChdbStore, by: 'base' | 'symbol', value: string): Promise<TradeTotals> {
  const [row] = await store.query<Record<keyof TradeTotals, number | string>>(
    `SELECT (SELECT count() FROM trades WHERE ${by} = {v:String}) AS raw,
            (SELECT sum(trades) FROM candles_1m WHERE ${by} = {v:String}) AS m1,
            (SELECT sum(trades) FROM candles_1h WHERE ${by} = {v:String}) AS h1,
            (SELECT sum(trades) FROM candles_1d WHERE ${by} = {v:String}) AS d1`,
    { v: value }
  )
  return { raw: Number(row!.raw), m1: Number(row!.m1), h1: Number(row!.h1), d1: Number(row!.d1) }
}

/** The store with `command` replaced (the other calls go to `inner`): the seam of the import tests' fault and record wrappers. */
export function withCommand(inner: Store, command: (sql: string, params?: Params) => Promise<void>): Store {
  return {
    kind: inner.kind,
    query: (sql, params) => inner.query(sql, params),
    stream: (...args) => inner.stream(...args),
    insert: (batch) => inner.insert(batch),
    close: () => inner.close(),
    command
  }
}

/** The store, keeping the text of every statement sent through `command`. */
export function recording(inner: Store, sent: string[]): Store {
  return withCommand(inner, (sql, params) => {
    sent.push(sql)
    return inner.command(sql, params)
  })
}
