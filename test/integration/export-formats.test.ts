/**
 * Bulk export against a real chDB store: every format read back by an independent reader (csv-parse,
 * JSON.parse, apache-arrow, parquetjs-lite, jsfive) must hold the rows of a direct `store.query` of the
 * same SQL, in order, with exact floats. 200k rows span several chDB blocks, so the re-framing of
 * per-block payloads is exercised. Plus: HDF5 row cap, early stop, abort, and errors before and during
 * the stream.
 */
import fs from 'node:fs'
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { openParquet } from '../helpers/parquet-reader.js'
import { parse } from 'csv-parse/sync'
import { tableFromIPC } from 'apache-arrow'
import { ChdbStore } from '../../engine/store/chdb/chdb-store.js'
import type { Store } from '../../engine/store/store.js'
import { StoreError } from '../../engine/store/store-error.js'
import { ApiError } from '../../engine/errors.js'
import {
  encodeExport,
  EXPORT_FORMAT_NAMES,
  type ExportColumn,
  type ExportFormat,
  type ExportSpec
} from '../../engine/export/encode.js'
import { tmpDir, guid } from '../helpers/tmp-dir.js'

interface Row {
  ts: number
  price: number
  qty: number
  sym: string
  funding: number | null
}

const ROWS = 200_000
const T0_S = 1_700_000_000
const COLUMNS: readonly ExportColumn[] = [
  { name: 'ts', type: 'DateTime64' },
  { name: 'price', type: 'Float64' },
  { name: 'qty', type: 'UInt64' },
  { name: 'sym', type: 'String' },
  { name: 'funding', type: 'Float64', nullable: true }
]
const NAMES = COLUMNS.map((c) => c.name)

const data = tmpDir('tidewatch-export-db-')
const exportsDir = tmpDir('tidewatch-export-files-')
let store: ChdbStore
let table: string
let sql: string
const params = { from: T0_S }
let expected: Row[]

beforeAll(async () => {
  store = new ChdbStore({ path: data.dir, poolSize: 3 })
  table = `export_${guid()}`
  await store.command(
    `CREATE TABLE ${table} (ts DateTime64(3, 'UTC'), price Float64, qty UInt64, sym LowCardinality(String),
       funding Nullable(Float64)) ENGINE = MergeTree ORDER BY ts`
  )
  // floats with all 17 significant digits; strings that need CSV quoting and UTF-8; a NULL every 5th row
  await store.command(
    `INSERT INTO ${table} SELECT
       toDateTime64(${T0_S}, 3, 'UTC') + toIntervalMillisecond(number * 37),
       30000 + sin(number) * 1000 + number / 7,
       number * 1000003 + 7,
       ['BTC-USDT', 'ETH,"quoted"', 'Ünïcödé €', ''][number % 4 + 1],
       if(number % 5 = 0, NULL, number * 0.001 - 1 / 3)
     FROM numbers(${ROWS})`
  )
  // max_block_size keeps chDB's blocks small: many self-contained payloads to re-frame
  sql = `SELECT sym, funding, qty, price, ts FROM ${table} WHERE ts >= toDateTime64({from:UInt32}, 3, 'UTC')
         ORDER BY ts SETTINGS max_block_size = 20000`
  const direct = await store.query<Omit<Row, 'ts'> & { ts: string }>(sql, params)
  expected = direct.map((r) => ({ ...r, ts: Date.parse(r.ts.replace(' ', 'T') + 'Z') }))
}, 120_000)

afterAll(async () => {
  await store.close()
  data.cleanup()
  exportsDir.cleanup()
})

function spec(format: ExportFormat, over: Partial<ExportSpec> = {}): ExportSpec {
  return { sql, params, format, columns: COLUMNS, tmpDir: exportsDir.dir, ...over }
}

async function collect(
  format: ExportFormat,
  over: Partial<ExportSpec> = {}
): Promise<{ bytes: Buffer; chunks: number }> {
  const parts: Uint8Array[] = []
  for await (const chunk of encodeExport(store, spec(format, over))) parts.push(Buffer.from(chunk))
  return { bytes: Buffer.concat(parts), chunks: parts.length }
}

async function bytesOf(it: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Uint8Array[] = []
  for await (const chunk of it) parts.push(chunk)
  return Buffer.concat(parts)
}

const num = (v: unknown) => (typeof v === 'bigint' ? Number(v) : (v as number))
const nullable = (v: unknown) => (v === null || v === undefined ? null : num(v))

/** Readers: each returns column names in file order and the rows. */
const readers: Record<Exclude<ExportFormat, 'hdf5'>, (b: Buffer) => Promise<{ names: string[]; rows: Row[] }>> = {
  async csv(b) {
    const [header, ...records] = parse(b, { relax_quotes: false }) as string[][]
    const rows = records.map(([ts, price, qty, sym, funding]) => ({
      ts: Number(ts),
      price: Number(price),
      qty: Number(qty),
      sym: sym!,
      funding: funding === '' ? null : Number(funding)
    }))
    return { names: header!, rows }
  },
  async ndjson(b) {
    const rows = b
      .toString('utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Row)
    return { names: Object.keys(rows[0] ?? {}), rows }
  },
  async json(b) {
    const rows = JSON.parse(b.toString('utf8')) as Row[]
    return { names: Object.keys(rows[0] ?? {}), rows }
  },
  async arrow(b) {
    // tableFromIPC reads the first IPC stream only: per-block streams left as they came would lose rows
    const t = tableFromIPC(b)
    const cols = NAMES.map((n) => Array.from(t.getChild(n) ?? []) as unknown[])
    const rows = Array.from({ length: t.numRows }, (_, i) => ({
      ts: num(cols[0]![i]),
      price: num(cols[1]![i]),
      qty: num(cols[2]![i]),
      sym: cols[3]![i] as string,
      funding: nullable(cols[4]![i])
    }))
    return { names: t.schema.fields.map((f) => f.name), rows }
  },
  async parquet(b) {
    const reader = await openParquet(b)
    const cursor = reader.getCursor()
    const rows: Row[] = []
    for (let r = await cursor.next(); r; r = await cursor.next()) {
      rows.push({
        ts: num(r.ts),
        price: num(r.price),
        qty: num(r.qty),
        sym: String(r.sym),
        funding: nullable(r.funding)
      })
    }
    return { names: reader.getSchema().fieldList.map((f: { name: string }) => f.name), rows }
  }
}

/** jsfive ships no types: the calls used here. */
interface Jsfive {
  File: new (
    buf: ArrayBuffer,
    name?: string
  ) => {
    keys: string[]
    attrs: Record<string, unknown>
    get(path: string): {
      value: unknown[] | ArrayLike<unknown>
      shape: number[]
      dtype: string
      attrs: Record<string, unknown>
    }
  }
}

async function readHdf5(b: Buffer): Promise<{ names: string[]; rows: Row[]; file: InstanceType<Jsfive['File']> }> {
  const { File } = (await import('jsfive' as string)) as Jsfive
  const file = new File(b.buffer.slice(b.byteOffset, b.byteOffset + b.length) as ArrayBuffer, 'export.h5')
  const col = (n: string) => Array.from(file.get(n).value as ArrayLike<unknown>)
  const [ts, price, qty, sym, funding] = NAMES.map(col)
  const mask = col('null_mask/funding')
  const rows = ts!.map((t, i) => ({
    ts: num(t),
    price: num(price![i]),
    qty: num(qty![i]),
    sym: sym![i] as string,
    funding: mask[i] ? null : num(funding![i])
  }))
  const names = file.attrs['columns'] as string[]
  return { names, rows, file }
}

function leftoverFiles(): string[] {
  return fs.readdirSync(exportsDir.dir)
}

describe('export formats round-trip through independent readers', () => {
  for (const format of ['csv', 'ndjson', 'json', 'arrow', 'parquet'] as const) {
    it(`${format}: same columns, rows and values as a direct query`, async () => {
      const { bytes, chunks } = await collect(format)
      const { names, rows } = await readers[format](bytes)
      expect(names).toEqual(NAMES)
      expect(rows.length).toBe(ROWS)
      expect(rows).toEqual(expected)
      expect(chunks).toBeGreaterThan(1) // streamed, not one buffer
      expect(leftoverFiles()).toEqual([])
    }, 180_000) // parquetjs-lite alone decodes ~12k rows/s
  }

  it('hdf5: one dataset per column, nulls masked (NaN for floats), timestamps in ms', async () => {
    const { bytes } = await collect('hdf5')
    const { names, rows, file } = await readHdf5(bytes)
    expect(names).toEqual(NAMES)
    expect(rows).toEqual(expected)
    expect(file.get('ts').attrs['units']).toMatch(/milliseconds/)
    expect(file.get('funding').value[0]).toBeNaN()
    expect(leftoverFiles()).toEqual([])
  })

  it('hdf5 and json from a server-like store whose chunks cut blocks and rows anywhere', async () => {
    // a ClickHouse server's HTTP body is one payload cut at arbitrary points: re-cut chDB's output
    const serverLike: Store = {
      kind: 'clickhouse',
      command: (q, p) => store.command(q, p),
      query: (q, p) => store.query(q, p),
      insert: (b) => store.insert(b),
      close: async () => {},
      async *stream(q, p, format, signal) {
        for await (const chunk of store.stream(q, p, format, signal)) {
          for (let at = 0; at < chunk.length; at += 65_521) yield chunk.subarray(at, at + 65_521)
        }
      }
    }
    const h5 = await readHdf5(await bytesOf(encodeExport(serverLike, spec('hdf5'))))
    expect(h5.rows).toEqual(expected)
    const json = JSON.parse((await bytesOf(encodeExport(serverLike, spec('json')))).toString('utf8')) as Row[]
    expect(json).toEqual(expected)
  })

  it('arrow: one schema for all record batches', async () => {
    const t = tableFromIPC((await collect('arrow')).bytes)
    expect(t.batches.length).toBeGreaterThan(5)
    expect(t.schema.fields.map((f) => String(f.type))).toEqual(['Int64', 'Float64', 'Uint64', 'Utf8', 'Float64'])
  })

  it('csv: one header, NULL as an empty field and the empty string quoted', async () => {
    const text = (await collect('csv')).bytes.toString('utf8')
    expect(text.split('\n').filter((l) => l.startsWith('"ts"'))).toHaveLength(1)
    const lines = text.split('\n')
    expect(lines[1]).toBe(`${T0_S * 1000},30000,7,"BTC-USDT",`)
    expect(lines[4]).toMatch(/,"",/)
  })

  it('json: 64-bit integers are numbers', async () => {
    const text = (await collect('ndjson', { sql: `${sql.split('SETTINGS')[0]} LIMIT 1` })).bytes.toString('utf8')
    expect(text).toBe(`{"ts":${T0_S * 1000},"price":30000,"qty":7,"sym":"BTC-USDT","funding":null}\n`)
  })

  it('an empty result is a valid empty file in every format', async () => {
    const empty = { params: { from: T0_S * 2 } }
    for (const format of ['csv', 'ndjson', 'json', 'arrow', 'parquet'] as const) {
      const { names, rows } = await readers[format]((await collect(format, empty)).bytes)
      expect(rows).toEqual([])
      if (format === 'csv' || format === 'arrow' || format === 'parquet') expect(names).toEqual(NAMES)
    }
    const h5 = await readHdf5((await collect('hdf5', empty)).bytes)
    expect(h5.rows).toEqual([])
    expect(h5.names).toEqual(NAMES)
  })
})

describe('export limits, cancellation and errors', () => {
  it('hdf5 over its row cap fails with payload_too_large before any byte', async () => {
    const it = encodeExport(store, spec('hdf5', { maxHdf5Rows: 1000 }))[Symbol.asyncIterator]()
    const err = await it.next().catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ApiError)
    expect((err as ApiError).code).toBe('payload_too_large')
    expect((err as ApiError).message).toMatch(/parquet/)
    expect(leftoverFiles()).toEqual([])
  })

  for (const format of ['parquet', 'hdf5', 'arrow', 'csv', 'json'] as const) {
    it(`${format}: stopping after the first chunk removes temp files and frees the store`, async () => {
      let chunks = 0
      for await (const chunk of encodeExport(store, spec(format))) {
        expect(chunk.length).toBeGreaterThan(0)
        chunks++
        break
      }
      expect(chunks).toBe(1) // the loop ran: there was a first chunk to stop after
      expect(leftoverFiles()).toEqual([])
      expect(await store.query<{ n: number }>('SELECT 1 AS n')).toEqual([{ n: 1 }])
    })
  }

  for (const format of ['parquet', 'arrow'] as const) {
    it(`${format}: an abort signal ends the iterator with the abort reason`, async () => {
      const ac = new AbortController()
      let chunks = 0
      const err = await (async () => {
        for await (const _ of encodeExport(store, spec(format, { signal: ac.signal }))) {
          chunks++
          ac.abort(new Error('client went away'))
        }
      })().catch((e: unknown) => e)
      expect(chunks).toBe(1)
      expect(String(err)).toMatch(/client went away|abort/i)
      expect(leftoverFiles()).toEqual([])
    })
  }

  for (const format of EXPORT_FORMAT_NAMES) {
    it(`${format}: a failing query fails at the first next(), before any byte`, async () => {
      const bad = encodeExport(store, spec(format, { sql: 'SELECT * FROM no_such_table_export' }))
      const err = await bad[Symbol.asyncIterator]()
        .next()
        .catch((e: unknown) => e)
      expect(err).toBeInstanceOf(StoreError)
      expect((err as StoreError).clickhouseCode).toBe(60)
      expect(leftoverFiles()).toEqual([])
    })
  }

  for (const format of ['arrow', 'parquet'] as const) {
    it(`${format}: an error in the middle of the stream is thrown after the first bytes`, async () => {
      // throwIf fires on a row of a later block (no ORDER BY: blocks flow as read), after earlier blocks went out
      const failing = `SELECT ts, price, qty, sym, funding FROM ${table}
        WHERE ts >= toDateTime64({from:UInt32}, 3, 'UTC') AND throwIf(qty > 150000 * 1000003, 'boom') = 0
        SETTINGS max_block_size = 20000, max_threads = 1`
      const got: Uint8Array[] = []
      const err = await (async () => {
        for await (const chunk of encodeExport(store, spec(format, { sql: failing }))) got.push(chunk)
      })().catch((e: unknown) => e)
      expect(got.length).toBeGreaterThan(0)
      expect(err).toBeInstanceOf(StoreError)
      expect(String((err as StoreError).message)).toMatch(/boom/)
      if (format === 'parquet') {
        // no footer went out: what was sent is not a readable file
        expect(Buffer.from(got.at(-1)!.subarray(-4)).toString('latin1')).not.toBe('PAR1')
      }
      expect(leftoverFiles()).toEqual([])
    })
  }
})
