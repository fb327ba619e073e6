/**
 * One contract suite for every Store adapter (drizzle's shared-suite pattern). Each test creates its own
 * uniquely named tables.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import type { Store } from '../../engine/store/store.js'
import { StoreError } from '../../engine/store/store-error.js'
import { guid } from '../helpers/tmp-dir.js'

export function storeContract(
  name: string,
  open: () => Promise<Store>,
  teardown: () => Promise<void> = async () => {}
) {
  describe(`Store contract: ${name}`, () => {
    let store: Store
    beforeAll(async () => {
      store = await open()
    })
    afterAll(async () => {
      await store.close()
      await teardown()
    })

    async function table(ddlCols: string, settings = 'non_replicated_deduplication_window = 100'): Promise<string> {
      const t = `ct_${guid()}`
      await store.command(`CREATE TABLE ${t} (${ddlCols}) ENGINE = MergeTree ORDER BY tuple() SETTINGS ${settings}`)
      return t
    }

    it('binds parameters instead of splicing text', async () => {
      const evil = "x'); DROP TABLE users; --"
      const rows = await store.query<{ s: string; n: number }>('SELECT {s:String} AS s, {n:UInt32} + 1 AS n', {
        s: evil,
        n: 41
      })
      expect(rows).toEqual([{ s: evil, n: 42 }])
    })

    it('returns 64-bit counts as numbers and times in UTC', async () => {
      const rows = await store.query<{ c: number; t: string }>(
        "SELECT count() AS c, toString(toDateTime64(0, 3, 'UTC')) AS t FROM numbers(1000)"
      )
      expect(rows).toEqual([{ c: 1000, t: '1970-01-01 00:00:00.000' }])
    })

    it('inserts TSV with a dedup token exactly once when retried', async () => {
      const t = await table("ts DateTime64(3, 'UTC'), v Float64")
      const data = Buffer.from('1700000000000\t1.5\n1700000000001\t2.5\n')
      const batch = { table: t, columns: ['ts', 'v'], format: 'TSV' as const, data, dedupToken: `tok-${guid()}` }
      await store.insert(batch)
      await store.insert(batch)
      const rows = await store.query<{ c: number; s: number }>(`SELECT count() AS c, sum(v) AS s FROM ${t}`)
      expect(rows).toEqual([{ c: 2, s: 4 }])
      await store.insert({ ...batch, dedupToken: `tok-${guid()}` })
      const again = await store.query<{ c: number }>(`SELECT count() AS c FROM ${t}`)
      expect(again[0]!.c).toBe(4)
    })

    it('inserts JSONEachRow', async () => {
      const t = await table('a String, b Nullable(Float64)')
      const data = Buffer.from('{"a":"x","b":null}\n{"a":"y\\ttab","b":2}\n')
      await store.insert({ table: t, columns: ['a', 'b'], format: 'JSONEachRow', data, dedupToken: guid() })
      const rows = await store.query<{ a: string; b: number | null }>(`SELECT a, b FROM ${t} ORDER BY a`)
      expect(rows).toEqual([
        { a: 'x', b: null },
        { a: 'y\ttab', b: 2 }
      ])
    })

    it('classifies errors by ClickHouse code', async () => {
      const unknown = await store.query('SELECT * FROM no_such_table_xyz').catch((e: unknown) => e)
      expect(unknown).toBeInstanceOf(StoreError)
      expect((unknown as StoreError).clickhouseCode).toBe(60)
      expect((unknown as StoreError).errorClass).toBe('unknown_object')
      const syntax = await store.query('SELEC 1').catch((e: unknown) => e)
      expect((syntax as StoreError).clickhouseCode).toBe(62)
      expect((syntax as StoreError).retryable).toBe(false)
    })

    it('streams a large result in chunks that add up to every row', async () => {
      let text = ''
      let chunks = 0
      for await (const chunk of store.stream('SELECT number FROM numbers(300000)', undefined, 'TSV')) {
        text += Buffer.from(chunk).toString('utf8')
        chunks++
      }
      const lines = text.trim().split('\n')
      expect(lines.length).toBe(300000)
      expect(lines[299999]).toBe('299999')
      expect(chunks).toBeGreaterThanOrEqual(1)
    })

    it('stops a stream when the consumer breaks out, and keeps serving queries', async () => {
      let seen = 0
      for await (const _ of store.stream('SELECT number FROM numbers(10000000)', undefined, 'TSV')) {
        void _
        if (++seen === 1) break
      }
      const rows = await store.query<{ x: number }>('SELECT 1 AS x')
      expect(rows).toEqual([{ x: 1 }])
    })

    it('runs queries concurrently up to its cap without losing any', async () => {
      const results = await Promise.all(
        Array.from({ length: 24 }, (_, i) => store.query<{ v: number }>('SELECT {i:UInt32} * 2 AS v', { i }))
      )
      expect(results.map((r) => r[0]!.v)).toEqual(Array.from({ length: 24 }, (_, i) => i * 2))
    })
  })
}
