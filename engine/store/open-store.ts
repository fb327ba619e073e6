/**
 * @module
 * Picks the store adapter from configuration: a ClickHouse server when CLICKHOUSE_URL is set, else chDB
 * embedded at DATA_DIR.
 */
import type { Store } from './store.js'

export interface OpenStoreOptions {
  readonly dataDir: string
  readonly clickhouseUrl: string | undefined
  readonly chdbPoolSize: number
}

export async function openStore(opts: OpenStoreOptions): Promise<Store> {
  if (opts.clickhouseUrl) {
    const { ClickhouseStore } = await import('./clickhouse/clickhouse-store.js')
    return new ClickhouseStore({ url: opts.clickhouseUrl })
  }
  // loaded lazily so a server deployment never loads the embedded engine
  const { ChdbStore } = await import('./chdb/chdb-store.js')
  return new ChdbStore({ path: opts.dataDir, poolSize: opts.chdbPoolSize })
}
