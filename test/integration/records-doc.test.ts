/**
 * Every example line of docs/records.md is accepted by a real server: each kind's examples are posted to
 * `POST /v1/admin/ingest/{kind}` (201), land in the kind's raw table, and the shell example under "Loading
 * records" loads too. So the page a newcomer copies from cannot drift from what the server takes.
 */
import { describe, expect, it } from 'vitest'
import { KIND_SPECS, RECORD_KINDS } from '../../engine/records/fields.js'
import { ingestRecords } from '../helpers/server.js'
import { readRecordsDoc } from '../helpers/records-doc.js'
import { sharedServer } from '../helpers/shared-server.js'

const doc = readRecordsDoc()
const srv = sharedServer()

/** Rows of `table` at the examples' times (epoch ms): the store is shared, so only these are counted. */
async function rowsIn(table: string, times: readonly number[]): Promise<number> {
  const [row] = await srv.query<{ n: number }>(
    `SELECT count() AS n FROM ${table} WHERE toUnixTimestamp64Milli(ts) IN {times:Array(Int64)}`,
    { times }
  )
  return Number(row!.n)
}

describe('docs/records.md examples against a real server', () => {
  it.each(RECORD_KINDS)('%s: every example line is accepted and stored', async (kind) => {
    const lines = doc.sections.get(kind)?.examples ?? []
    expect(lines.length).toBeGreaterThan(0)
    const table = KIND_SPECS[kind].table
    const records = lines.map((l) => JSON.parse(l) as { ts: number })
    const times = records.map((r) => r.ts)
    const before = await rowsIn(table, times)
    await ingestRecords(srv.base, kind, records)
    expect(await rowsIn(table, times)).toBe(before + lines.length)
  })

  it('the shell example under "Loading records" loads as trades', async () => {
    expect(doc.shellTrades.length).toBeGreaterThan(0)
    await ingestRecords(
      srv.base,
      'trade',
      doc.shellTrades.map((l) => JSON.parse(l) as object)
    )
  })
})
