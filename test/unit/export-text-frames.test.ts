/**
 * Re-framing of text exports: chDB's per-block CSVWithNames (a header per chunk) and JSONEachRow turned
 * into a JSON array at any chunk boundary (a ClickHouse server's HTTP chunks cut rows anywhere).
 */
import { describe, it, expect } from 'vitest'
import fc from 'fast-check'
import { csvFromBlocks, csvHeader } from '../../engine/export/csv-frames.js'
import { jsonArrayFromRows } from '../../engine/export/json-frames.js'
import { exportSelect, tableStructure, validateColumns } from '../../engine/export/columns.js'
import { from } from '../helpers/byte-streams.js'

async function text(it: AsyncIterable<Uint8Array>): Promise<string> {
  const parts: Uint8Array[] = []
  for await (const c of it) parts.push(c)
  return Buffer.concat(parts).toString('utf8')
}

/** Cuts `bytes` at the given offsets (sorted, deduplicated, inside the range). */
function cut(bytes: Buffer, at: number[]): Buffer[] {
  const points = [...new Set(at.map((a) => a % (bytes.length + 1)))].sort((a, b) => a - b)
  const out: Buffer[] = []
  let prev = 0
  for (const p of [...points, bytes.length]) {
    out.push(bytes.subarray(prev, p))
    prev = p
  }
  return out
}

describe('csvFromBlocks', () => {
  const header = '"ts","sym"\n'

  it('keeps the first header and drops the repeats', async () => {
    const out = await text(
      csvFromBlocks(from([header + '1,"a"\n2,"b"\n', header + '3,"c"\n', header]), csvHeader(['x']))
    )
    expect(out).toBe(header + '1,"a"\n2,"b"\n3,"c"\n')
  })

  it('writes the fallback header when the result has no chunk', async () => {
    expect(await text(csvFromBlocks(from([]), csvHeader(['ts', 'say "hi"'])))).toBe('"ts","say ""hi"""\n')
  })

  it('fails instead of dropping a data line when a chunk does not start with the header', async () => {
    await expect(text(csvFromBlocks(from([header + '1,"a"\n', '2,"b"\n']), csvHeader(['ts'])))).rejects.toThrow(
      /header/
    )
  })
})

describe('jsonArrayFromRows', () => {
  const rows = [
    { a: 1, s: 'x\ny' },
    { a: 2, s: '' },
    { a: 3, s: '[,]' }
  ]
  const ndjson = Buffer.from(rows.map((r) => JSON.stringify(r) + '\n').join(''))

  it('is one JSON array of the rows, wherever the chunks are cut', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat(), { maxLength: 12 }), async (at) => {
        const out = await text(jsonArrayFromRows(from(cut(ndjson, at))))
        expect(JSON.parse(out)).toEqual(rows)
      }),
      { seed: 7, numRuns: 300 }
    )
  })

  it('writes nothing before the first source chunk, so an immediate failure precedes any byte', async () => {
    async function* failing(): AsyncGenerator<Uint8Array> {
      throw new Error('query failed')
    }
    await expect(jsonArrayFromRows(failing()).next()).rejects.toThrow('query failed')
  })

  it('is [] for no rows', async () => {
    expect(JSON.parse(await text(jsonArrayFromRows(from([]))))).toEqual([])
    expect(JSON.parse(await text(jsonArrayFromRows(from(['']))))).toEqual([])
  })
})

describe('export columns', () => {
  it('wraps the SQL, casts each column and quotes names', () => {
    const sql = exportSelect('SELECT * FROM t ORDER BY ts;', [
      { name: 'ts', type: 'DateTime64' },
      { name: 'odd`name', type: 'Float64', nullable: true }
    ])
    expect(sql).toBe(
      "SELECT toUnixTimestamp64Milli(toDateTime64(src.`ts`, 3, 'UTC')) AS `ts`, " +
        'CAST(src.`odd\\`name` AS Nullable(Float64)) AS `odd\\`name` FROM (SELECT * FROM t ORDER BY ts) AS src'
    )
    expect(tableStructure([{ name: 'ts', type: 'DateTime64' }])).toBe('`ts` Int64')
  })

  it('rejects an empty, repeated or unknown column', () => {
    expect(() => validateColumns([])).toThrow(/at least one/)
    expect(() =>
      validateColumns([
        { name: 'a', type: 'String' },
        { name: 'a', type: 'UInt8' }
      ])
    ).toThrow(/twice/)
    expect(() => validateColumns([{ name: 'a', type: 'Decimal' as 'String' }])).toThrow(/unknown type/)
  })
})
