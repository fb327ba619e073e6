import path from 'node:path'
import { describe, it, expect } from 'vitest'
import { loadConfig, ConfigError } from '../../server/config.js'

describe('configuration', () => {
  it('uses the documented defaults', () => {
    const c = loadConfig({})
    expect(c).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      dataDir: path.resolve('./data'),
      clickhouseUrl: undefined,
      sources: ['sim'],
      simSeed: 42,
      simBackfillDays: 30,
      batchRows: 50_000,
      bulkBatchRows: 250_000,
      flushMs: 1_000,
      chdbPoolSize: 4,
      exportMaxConcurrent: 2,
      exportPinMerged: true
    })
    expect(Object.isFrozen(c)).toBe(true)
  })

  it('keeps concurrent exports below the chDB pool: one connection stays free for ingest and reads', () => {
    expect(loadConfig({ CHDB_POOL_SIZE: '2' }).exportMaxConcurrent).toBe(1)
    expect(loadConfig({ CHDB_POOL_SIZE: '1' }).exportMaxConcurrent).toBe(1)
    expect(loadConfig({ CHDB_POOL_SIZE: '8', EXPORT_MAX_CONCURRENT: '7' }).exportMaxConcurrent).toBe(7)
    expect(() => loadConfig({ EXPORT_MAX_CONCURRENT: '4' })).toThrow(
      'EXPORT_MAX_CONCURRENT (4) must be below CHDB_POOL_SIZE (4)'
    )
    // a ClickHouse server has no such pool
    expect(
      loadConfig({ CLICKHOUSE_URL: 'http://localhost:8123', EXPORT_MAX_CONCURRENT: '8' }).exportMaxConcurrent
    ).toBe(8)
    expect(loadConfig({ EXPORT_PIN_MERGED: '0' }).exportPinMerged).toBe(false)
    expect(() => loadConfig({ EXPORT_PIN_MERGED: 'yes' })).toThrow('EXPORT_PIN_MERGED must be one of 0, 1')
  })

  it.each([
    [{ PORT: 'abc' }, "PORT must be an integer from 0 to 65535 (got 'abc')"],
    [{ PORT: '70000' }, "PORT must be an integer from 0 to 65535 (got '70000')"],
    [{ SIM_SEED: '1.5' }, 'SIM_SEED must be an integer'],
    [{ SIM_BACKFILL_DAYS: '-1' }, 'SIM_BACKFILL_DAYS must be an integer from 0 to 365'],
    [
      { SOURCES: 'sim,kraken' },
      "SOURCES must be a comma list of sim, binance, bybit, okx, deribit, bitget, live, none or replay:<file or dir> (got 'sim,kraken')"
    ],
    [{ SOURCES: 'none,sim' }, 'SOURCES=none cannot be combined'],
    [{ CLICKHOUSE_URL: 'tcp://x' }, 'CLICKHOUSE_URL must use http or https'],
    [{ CLICKHOUSE_URL: 'not a url' }, 'CLICKHOUSE_URL must be an http(s) URL'],
    [{ CLICKHOUSE_CLUSTER: 'c1' }, 'CLICKHOUSE_CLUSTER needs CLICKHOUSE_URL'],
    [{ ADMIN_TOKEN: 'short' }, 'ADMIN_TOKEN must be at least 16 characters'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent'],
    [{ INGEST_BULK_BATCH_ROWS: '0' }, 'INGEST_BULK_BATCH_ROWS must be an integer from 1 to 1000000']
  ])('rejects %o naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError)
    expect(() => loadConfig(env)).toThrow(message)
  })

  it('reads the Deribit settings: BTC and ETH only, instrument names or expiries of those', () => {
    const c = loadConfig({ SOURCES: 'deribit' })
    expect(c.sources).toEqual(['deribit'])
    expect(c.venues.deribit).toMatchObject({
      wsUrl: 'wss://www.deribit.com/ws/api/v2',
      restUrl: 'https://www.deribit.com/api/v2',
      currencies: ['BTC', 'ETH'],
      symbols: []
    })
    expect(loadConfig({ DERIBIT_CURRENCIES: 'eth' }).venues.deribit.currencies).toEqual(['ETH'])
    expect(() => loadConfig({ DERIBIT_CURRENCIES: 'BTC,SOL' })).toThrow(
      "DERIBIT_CURRENCIES must be a comma list of BTC, ETH (got 'BTC,SOL')"
    )
    expect(loadConfig({ DERIBIT_SYMBOLS: 'btc-27mar26, BTC-5JAN27-100000-C' }).venues.deribit.symbols).toEqual([
      'BTC-27MAR26',
      'BTC-5JAN27-100000-C'
    ])
    expect(() => loadConfig({ DERIBIT_CURRENCIES: 'BTC', DERIBIT_SYMBOLS: 'ETH-27MAR26' })).toThrow(
      "DERIBIT_SYMBOLS must be a comma list of options or expiries of BTC like BTC-27MAR26-100000-C or BTC-27MAR26 (got 'ETH-27MAR26')"
    )
    expect(() => loadConfig({ DERIBIT_SYMBOLS: 'BTC-05JAN27' })).toThrow('DERIBIT_SYMBOLS must be')
    expect(() => loadConfig({ DERIBIT_WS_URL: 'https://x' })).toThrow('DERIBIT_WS_URL must use ws or wss')
    expect(loadConfig({ DERIBIT_REST_URL: 'http://127.0.0.1:9/api/v2/' }).venues.deribit.restUrl).toBe(
      'http://127.0.0.1:9/api/v2'
    )
  })

  it('accepts SOURCES=none as no sources and a server URL with a cluster', () => {
    expect(loadConfig({ SOURCES: 'none' }).sources).toEqual([])
    const c = loadConfig({ CLICKHOUSE_URL: 'http://u:p@h:8123/db', CLICKHOUSE_CLUSTER: 'tw' })
    expect(c.clickhouseCluster).toBe('tw')
  })
})
