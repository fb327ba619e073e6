/**
 * schemas/026_reading_merges.sql on a data dir migrated before it: the weekly reading tables get the forced
 * merge of old parts (min_age_to_force_merge_seconds), trades keeps the default policy, and the stored rows
 * are unchanged.
 */
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { migrate, schemaDir } from '../../engine/schema/migrate.js'
import { ChdbStore } from '../../engine/store/chdb/chdb-store.js'
import { encodeTsv } from '../../engine/records/tsv.js'
import { columnsOf } from '../../engine/records/fields.js'
import type { FundingRecord } from '../../engine/records/types.js'
import { tmpDir } from '../helpers/tmp-dir.js'

const READING_TABLES = ['funding', 'open_interest', 'long_short', 'onchain_metrics', 'whale_transfers']
const T0 = Date.UTC(2026, 10, 2, 10, 0, 0) // a Monday, 10:00 UTC

const tmp = tmpDir()
afterAll(() => tmp.cleanup())

/** The schema files before 026, as an older release had them. */
function olderSchemas(): string {
  const dir = path.join(tmp.dir, 'schemas-before-026')
  fs.mkdirSync(dir)
  for (const f of fs.readdirSync(schemaDir()).filter((n) => /^\d{3}_.*\.sql$/.test(n) && n < '026_')) {
    fs.copyFileSync(path.join(schemaDir(), f), path.join(dir, f))
  }
  return dir
}

function funding(n: number, seed: number): FundingRecord[] {
  return Array.from({ length: n }, (_, i) => ({
    kind: 'funding',
    ts: T0 + (seed * n + i) * 3_600_000,
    exchange: 'bybit',
    symbol: 'BTCUSDT',
    base: 'BTC',
    funding_rate: 0.0001 * ((i + seed) % 7),
    interval_hours: 8,
    next_funding_ts: null,
    mark_price: null,
    index_price: null
  }))
}

async function settingOf(store: ChdbStore, table: string): Promise<string> {
  const [row] = await store.query<{ q: string }>(
    'SELECT create_table_query AS q FROM system.tables WHERE database = currentDatabase() AND name = {t:String}',
    { t: table }
  )
  return /min_age_to_force_merge_seconds = (\d+)/.exec(row!.q)?.[1] ?? 'default'
}

describe('026_reading_merges on an existing data dir', () => {
  it('sets the forced merge of the reading tables and keeps their rows', async () => {
    const store = new ChdbStore({ path: path.join(tmp.dir, 'db'), poolSize: 1 })
    try {
      await migrate(store, {}, olderSchemas())
      for (let k = 0; k < 3; k++) {
        await store.insert({
          table: 'funding',
          columns: columnsOf('funding'),
          format: 'TSV',
          data: Buffer.from(encodeTsv('funding', funding(10, k))),
          dedupToken: `funding-${k}`
        })
      }
      const before = await store.query<{ n: number; s: number }>(
        'SELECT count() AS n, round(sum(funding_rate), 10) AS s FROM funding'
      )
      expect(await settingOf(store, 'funding')).toBe('default')

      expect(await migrate(store, {})).toEqual(['026_reading_merges.sql'])
      for (const t of READING_TABLES) expect(await settingOf(store, t), t).toBe('300')
      expect(await settingOf(store, 'trades')).toBe('default')
      expect(
        await store.query<{ n: number; s: number }>(
          'SELECT count() AS n, round(sum(funding_rate), 10) AS s FROM funding'
        )
      ).toEqual(before)
      expect(await migrate(store, {})).toEqual([])
    } finally {
      await store.close()
    }
  })
})
