/**
 * Synthetic labels on the bulk export: on a service holding synthetic (demo) data, every export is labelled
 * (header `x-tidewatch-synthetic: true` on GET and HEAD, file name `tidewatch_SYNTHETIC_...`, Parquet footer
 * and Arrow schema metadata `tidewatch.synthetic` = `true`, HDF5 root attribute `synthetic` = 1), and on a
 * service holding live data none of it is there. One data directory serves both: first unlabelled, then,
 * after a demo checkpoint key (`sim:42`) is written into engine_state, restarted labelled. Files are read
 * by independent readers (apache-arrow, parquetjs-lite, jsfive, csv-parse) and by ClickHouse itself
 * (Arrow C++ verifies every IPC flatbuffer it reads), and the rows must be the same as unlabelled.
 * Plus the ClickHouse-server path (one continuous payload per file, labelled in passing).
 */
import fs from 'node:fs'
import path from 'node:path'
import { parse as parseCsv } from 'csv-parse/sync'
import { RecordBatchStreamReader, tableFromIPC } from 'apache-arrow'
import parquet from 'parquetjs-lite'
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { startTestServer, ingestRecords } from '../helpers/server.js'
import { openParquet } from '../helpers/parquet-reader.js'
import { tmpDir } from '../helpers/tmp-dir.js'
import { SYNTHETIC_HEADER } from '../../engine/live/synthetic-data.js'
import { encodeExport, type ExportColumn } from '../../engine/export/encode.js'
import { arrowStreamFromBlocks } from '../../engine/export/arrow-frames.js'
import type { Store } from '../../engine/store/store.js'
import { exportTrades } from '../helpers/export-trades.js'

type Server = Awaited<ReturnType<typeof startTestServer>>
type Row = Record<string, number | string>

const HOUR = 3_600_000
const H0 = Math.floor(Date.now() / HOUR) * HOUR - 6 * HOUR
const QUERY = `symbols=SYA,SYB&timeframe=1m&start_time=${H0}&end_time=${H0 + 5 * HOUR}`
const FORMATS = ['csv', 'json', 'parquet', 'arrow', 'hdf5'] as const
type Format = (typeof FORMATS)[number]

const data = tmpDir('tidewatch-synthetic-export-')
const files = tmpDir('tidewatch-synthetic-files-')
let srv: Server
let key = ''

interface Download {
  readonly headers: Headers
  readonly bytes: Buffer
  readonly file: string
}

/** The unlabelled service's downloads, compared with the labelled ones. */
const live = new Map<Format, Download>()
const demo = new Map<Format, Download>()

async function download(format: Format, tag: string): Promise<Download> {
  const res = await fetch(`${srv.base}/v1/backtest/export?${QUERY}&format=${format}`, { headers: { 'x-api-key': key } })
  expect(res.status, `${tag} ${format}`).toBe(200)
  const bytes = Buffer.from(await res.arrayBuffer())
  const file = path.join(files.dir, `${tag}.${format}`)
  fs.writeFileSync(file, bytes)
  return { headers: res.headers, bytes, file }
}

async function head(format: Format): Promise<Headers> {
  const res = await fetch(`${srv.base}/v1/backtest/export?${QUERY}&format=${format}`, {
    method: 'HEAD',
    headers: { 'x-api-key': key }
  })
  expect(res.status).toBe(200)
  return res.headers
}

const STRINGS = new Set(['exchange', 'symbol', 'base'])
const num = (v: unknown) => (typeof v === 'bigint' ? Number(v) : v)

async function parquetRows(b: Buffer): Promise<Row[]> {
  const reader = await openParquet(b)
  const cursor = reader.getCursor()
  const rows: Row[] = []
  for (let r = await cursor.next(); r; r = await cursor.next()) {
    rows.push(Object.fromEntries(Object.entries(r).map(([k, v]) => [k, STRINGS.has(k) ? String(v) : Number(v)])))
  }
  await reader.close()
  return rows
}

async function parquetKeyValues(b: Buffer): Promise<Record<string, string>> {
  const envelope = await parquet.ParquetEnvelopeReader.openBuffer(b)
  const meta = (await envelope.readFooter()) as { key_value_metadata: { key: string; value: string }[] | null }
  return Object.fromEntries((meta.key_value_metadata ?? []).map((kv) => [kv.key, kv.value]))
}

function arrowSchemaMetadata(b: Buffer): Map<string, string> {
  const reader = RecordBatchStreamReader.from(b)
  reader.open()
  return reader.schema.metadata
}

function arrowRows(b: Buffer): Row[] {
  return tableFromIPC(b)
    .toArray()
    .map((r) => Object.fromEntries(Object.entries(r.toJSON() as Row).map(([k, v]) => [k, num(v) as number | string])))
}

/** jsfive ships no types: the calls used here. */
interface Jsfive {
  File: new (
    buf: ArrayBuffer,
    name?: string
  ) => { attrs: Record<string, unknown>; get(path: string): { value: ArrayLike<unknown> } }
}

async function hdf5(b: Buffer): Promise<{ attrs: Record<string, unknown>; closes: number[] }> {
  const { File } = (await import('jsfive' as string)) as Jsfive
  const f = new File(b.buffer.slice(b.byteOffset, b.byteOffset + b.length) as ArrayBuffer, 'export.h5')
  return { attrs: f.attrs, closes: Array.from(f.get('close').value as ArrayLike<number>) }
}

/** Rows as ClickHouse reads the file back (Arrow C++ for Arrow, its own reader for Parquet). */
async function clickhouseRows(file: string, format: 'ArrowStream' | 'Parquet'): Promise<Row[]> {
  return srv.running.ctx.store.query<Row>(
    `SELECT * FROM file('${file}', ${format}) SETTINGS input_format_parquet_preserve_order = 1, max_threads = 1`
  )
}

beforeAll(async () => {
  srv = await startTestServer({ DATA_DIR: data.dir })
  key = (await srv.running.ctx.keys.create('pro', 'quant')).key
  const trades = exportTrades('SYA', 'SYB', H0)
  await ingestRecords(srv.base, 'trade', trades)
}, 120_000)

afterAll(async () => {
  await srv?.stop()
  data.cleanup()
  files.cleanup()
})

describe('a service holding live data: exports unlabelled', () => {
  it('no header, plain file name, no metadata in any format', async () => {
    expect(srv.running.ctx.synthetic).toBe(false)
    for (const format of FORMATS) {
      const d = await download(format, 'live')
      live.set(format, d)
      expect(d.headers.get(SYNTHETIC_HEADER), format).toBeNull()
      expect(d.headers.get('content-disposition')).toMatch(/^attachment; filename="tidewatch_SYA-SYB_1m_/)
      expect((await head(format)).get(SYNTHETIC_HEADER)).toBeNull()
    }
    expect(await parquetKeyValues(live.get('parquet')!.bytes)).toEqual({})
    expect(arrowSchemaMetadata(live.get('arrow')!.bytes).size).toBe(0)
    const h5 = await hdf5(live.get('hdf5')!.bytes)
    expect(Object.keys(h5.attrs)).toEqual(['columns'])
    expect(h5.closes.length).toBeGreaterThan(100)
  })
})

describe('the same data directory after it held demo data: every export labelled', () => {
  beforeAll(async () => {
    await srv.running.ctx.store.command(
      "INSERT INTO engine_state (key, value, updated) VALUES ('sim:42', '{}', now64(3))"
    )
    await srv.stop()
    srv = await startTestServer({ DATA_DIR: data.dir })
    expect(srv.running.ctx.synthetic).toBe(true)
    for (const format of FORMATS) demo.set(format, await download(format, 'demo'))
  }, 120_000)

  it('header x-tidewatch-synthetic on GET and HEAD, file name tidewatch_SYNTHETIC_ in every format', async () => {
    for (const format of FORMATS) {
      const d = demo.get(format)!
      expect(d.headers.get(SYNTHETIC_HEADER), format).toBe('true')
      expect(d.headers.get('content-disposition'), format).toMatch(
        /^attachment; filename="tidewatch_SYNTHETIC_SYA-SYB_1m_/
      )
      expect((await head(format)).get(SYNTHETIC_HEADER), `HEAD ${format}`).toBe('true')
    }
  })

  it('csv and json: the body is byte for byte the unlabelled one (no comment line, no extra field)', async () => {
    for (const format of ['csv', 'json'] as const) {
      expect(demo.get(format)!.bytes.equals(live.get(format)!.bytes), format).toBe(true)
    }
    const rows = parseCsv(demo.get('csv')!.bytes, { columns: true }) as Record<string, string>[]
    expect(rows.length).toBeGreaterThan(100)
    expect(Object.keys(rows[0]!)[0]).toBe('timestamp')
  })

  it('parquet: footer key-value metadata tidewatch.synthetic = true, same rows, only the footer differs', async () => {
    const d = demo.get('parquet')!
    const plain = live.get('parquet')!.bytes
    expect(await parquetKeyValues(d.bytes)).toEqual({ 'tidewatch.synthetic': 'true' })
    const reference = await parquetRows(plain)
    expect(reference.length).toBeGreaterThan(100)
    expect(await parquetRows(d.bytes)).toEqual(reference)
    expect(await clickhouseRows(d.file, 'Parquet')).toEqual(await clickhouseRows(live.get('parquet')!.file, 'Parquet'))
    const dataEnd = plain.length - 8 - plain.readUInt32LE(plain.length - 8)
    expect(d.bytes.subarray(0, dataEnd).equals(plain.subarray(0, dataEnd))).toBe(true)
  })

  it('arrow: schema custom metadata tidewatch.synthetic = true, same rows, ClickHouse reads it back', async () => {
    const d = demo.get('arrow')!
    expect(arrowSchemaMetadata(d.bytes)).toEqual(new Map([['tidewatch.synthetic', 'true']]))
    expect(tableFromIPC(d.bytes).schema.metadata.get('tidewatch.synthetic')).toBe('true')
    const reference = arrowRows(live.get('arrow')!.bytes)
    expect(arrowRows(d.bytes)).toEqual(reference)
    // Arrow C++ (in ClickHouse) verifies the schema message's flatbuffer before reading it
    expect(await clickhouseRows(d.file, 'ArrowStream')).toEqual(
      await clickhouseRows(live.get('arrow')!.file, 'ArrowStream')
    )
  })

  it('hdf5: root attribute synthetic = 1 beside columns, same values', async () => {
    const labelled = await hdf5(demo.get('hdf5')!.bytes)
    const plain = await hdf5(live.get('hdf5')!.bytes)
    expect(labelled.attrs['synthetic']).toBe(1)
    expect(labelled.attrs['columns']).toEqual(plain.attrs['columns'])
    expect(labelled.closes).toEqual(plain.closes)
  })
})

describe('on a ClickHouse server (one continuous payload per file)', () => {
  const COLUMNS: readonly ExportColumn[] = [
    { name: 'n', type: 'Int64' },
    { name: 'p', type: 'Float64' }
  ]
  const ROWS = 50_000

  /**
   * A store that answers like a server: one complete file per query, cut at arbitrary points. chDB's
   * per-block payloads are made one file first: Parquet from one block (max_block_size above the row
   * count; a server's file keeps its page indexes, which must stay valid), Arrow by joining the blocks.
   */
  function serverLike(real: Store): Store {
    const store: Store = Object.create(real)
    store.stream = async function* (sql, params, format, signal) {
      const big = format === 'Parquet' ? `${sql}, max_block_size = ${ROWS * 2}` : sql
      const chunks = real.stream(big, params, format, signal)
      const parts: Uint8Array[] = []
      for await (const c of format === 'ArrowStream' ? arrowStreamFromBlocks(chunks) : chunks) parts.push(c)
      if (format === 'Parquet') expect(parts).toHaveLength(1)
      const whole = Buffer.concat(parts)
      for (let at = 0; at < whole.length; at += 65_521) yield whole.subarray(at, at + 65_521)
    }
    Object.defineProperty(store, 'kind', { value: 'clickhouse' })
    return store
  }

  async function exported(format: 'parquet' | 'arrow', synthetic: boolean): Promise<Buffer> {
    const parts: Uint8Array[] = []
    const spec = {
      sql: `SELECT number AS n, number / 3 AS p FROM numbers(${ROWS}) ORDER BY n`,
      params: {},
      format,
      columns: COLUMNS,
      tmpDir: files.dir,
      synthetic
    }
    for await (const c of encodeExport(serverLike(srv.running.ctx.store), spec)) parts.push(c)
    return Buffer.concat(parts)
  }

  it('parquet and arrow are labelled in passing, rows intact; unlabelled they pass through', async () => {
    const pq = await exported('parquet', true)
    expect(await parquetKeyValues(pq)).toEqual({ 'tidewatch.synthetic': 'true' })
    const rows = await parquetRows(pq)
    expect(rows).toHaveLength(ROWS)
    expect(rows[ROWS - 1]).toEqual({ n: ROWS - 1, p: (ROWS - 1) / 3 })
    expect(await parquetKeyValues(await exported('parquet', false))).toEqual({})

    const arrow = await exported('arrow', true)
    expect(arrowSchemaMetadata(arrow)).toEqual(new Map([['tidewatch.synthetic', 'true']]))
    const t = tableFromIPC(arrow)
    expect(t.numRows).toBe(ROWS)
    expect(Number(t.getChild('n')!.get(ROWS - 1))).toBe(ROWS - 1)
    expect(arrowSchemaMetadata(await exported('arrow', false)).size).toBe(0)
  })
})
