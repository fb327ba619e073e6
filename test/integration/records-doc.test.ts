/**
 * Every example line of docs/records.md is accepted by a real server: each kind's examples are posted to
 * `POST /v1/admin/ingest/{kind}` (201), land in the kind's raw table, and the shell example under "Loading
 * records" loads too. So the page a newcomer copies from cannot drift from what the server takes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { KIND_SPECS, RECORD_KINDS } from '../../engine/records/fields.js'
import { ingestRecords, startTestServer } from '../helpers/server.js'
import { readRecordsDoc } from '../helpers/records-doc.js'

const doc = readRecordsDoc()
let srv: Awaited<ReturnType<typeof startTestServer>>

beforeAll(async () => {
  srv = await startTestServer()
})

afterAll(async () => {
  await srv?.stop()
})

async function rowsIn(table: string): Promise<number> {
  const [row] = await srv.running.ctx.store.query<{ n: number }>(`SELECT count() AS n FROM ${table}`)
  return Number(row!.n)
}

describe('docs/records.md examples against a real server', () => {
  it.each(RECORD_KINDS)('%s: every example line is accepted and stored', async (kind) => {
    const lines = doc.sections.get(kind)?.examples ?? []
    expect(lines.length).toBeGreaterThan(0)
    const table = KIND_SPECS[kind].table
    const before = await rowsIn(table)
    await ingestRecords(
      srv.base,
      kind,
      lines.map((l) => JSON.parse(l) as object)
    )
    expect(await rowsIn(table)).toBe(before + lines.length)
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
