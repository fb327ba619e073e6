import fs from 'node:fs'
import path from 'node:path'
import { describe, it, expect } from 'vitest'
import { silentLogger } from '../../engine/log.js'
import { BatchJournal, type PartialWrites } from '../../ingest/journal.js'
import type { TimeRange } from '../../engine/store/compact.js'
import { tradeRows } from '../helpers/journal-batches.js'
import { FlakyStore } from '../helpers/flaky-store.js'
import { tradeBatch, tradeCounts } from '../helpers/journal-batches.js'
import { useMigratedStore } from '../helpers/migrated-store.js'

const env = useMigratedStore()

const batch = (symbol: string, n = 300) => tradeBatch('journal', symbol, n)
const counts = (symbol: string) => tradeCounts(env.store, symbol)

describe('batch journal', () => {
  it('removes the entry once the store acknowledged the insert', async () => {
    const dir = path.join(env.dir, 'j1')
    await new BatchJournal(dir).insert(env.store, batch('J1'))
    expect(await counts('J1')).toEqual([300, 300])
    expect(fs.readdirSync(dir)).toEqual([])
  })

  it('keeps the entry of an insert interrupted after the raw part was written, and recovery completes it once', async () => {
    const dir = path.join(env.dir, 'j2')
    const flaky = new FlakyStore(env.store)
    flaky.failInserts = 1
    flaky.afterWrite = true // written, but the process "died" before the acknowledgement
    await expect(new BatchJournal(dir).insert(flaky, batch('J2'))).rejects.toThrow()
    expect(fs.readdirSync(dir)).toHaveLength(1)
    // chDB inserts by reading the entry itself, and the header says so (a replay must take the same path)
    const entry = fs.readFileSync(path.join(dir, fs.readdirSync(dir)[0]!), 'utf8')
    expect(JSON.parse(entry.slice(0, entry.indexOf('\n')))).toMatchObject({ via: 'file', dedupToken: 'journal-J2' })
    expect(await counts('J2')).toEqual([300, 300])
    expect(await new BatchJournal(dir).recover(env.store, silentLogger())).toBe(1)
    expect(fs.readdirSync(dir)).toEqual([])
    expect(await counts('J2')).toEqual([300, 300]) // replayed with its token: not doubled anywhere
  })

  it('replays an entry of an older version (no `via`) inline, the way it was first sent: not doubled', async () => {
    const dir = path.join(env.dir, 'j4')
    fs.mkdirSync(dir)
    // a bulk-size batch: at 250,000 rows the inline insert and the file path cut it into blocks differently
    const b = batch('J4', 250_000)
    await env.store.insert(b) // what an older version did before it crashed, with the entry still on disk
    const header = JSON.stringify({ ...b, data: undefined, bytes: b.data.length })
    fs.writeFileSync(path.join(dir, '1-1-0.batch'), Buffer.concat([Buffer.from(header + '\n'), b.data]))
    expect(await new BatchJournal(dir).recover(env.store, silentLogger())).toBe(1)
    // through the file path the token's block ids differ, and the batch would have been stored twice
    expect(await counts('J4')).toEqual([250_000, 250_000])
  })

  it('an insert from the entry file stores exactly what the inline insert stores', async () => {
    // the store's file path itself (the journal tests above show the journal takes it), against the inline one
    const { data, ...b } = batch('J5F')
    const file = path.join(env.dir, 'j5.batch')
    fs.writeFileSync(file, Buffer.concat([Buffer.from('{"header":"one line"}\n'), data]))
    await env.store.insertFile({ ...b, file, skipLines: 1 })
    await env.store.insert(batch('J5I'))
    const stored = (s: string) =>
      env.store.query<Record<string, unknown>>(
        `SELECT ts, exchange, market, base, quote, side, price, qty, trade_id FROM trades WHERE symbol = {s:String} ORDER BY ts, trade_id`,
        { s }
      )
    const viaFile = await stored('J5F')
    expect(viaFile).toHaveLength(300)
    expect(viaFile.map((r) => ({ ...r, base: 'X' }))).toEqual((await stored('J5I')).map((r) => ({ ...r, base: 'X' })))
  })

  it('drops an entry cut short during its own write (it was never sent)', async () => {
    const dir = path.join(env.dir, 'j3')
    fs.mkdirSync(dir)
    const b = batch('J3')
    const header = JSON.stringify({ ...b, data: undefined, bytes: b.data.length })
    fs.writeFileSync(
      path.join(dir, '1-1-0.batch'),
      Buffer.concat([Buffer.from(header + '\n'), b.data.subarray(0, 100)])
    )
    expect(await new BatchJournal(dir).recover(env.store, silentLogger())).toBe(1)
    expect(fs.readdirSync(dir)).toEqual([])
    expect(await counts('J3')).toEqual([0, 0])
  })

  it('a retried batch reuses its entry: none is left behind to replay after the dedup window', async () => {
    const dir = path.join(env.dir, 'j6')
    const journal = new BatchJournal(dir)
    const flaky = new FlakyStore(env.store)
    flaky.failInserts = 1
    flaky.afterWrite = true
    await expect(journal.insert(flaky, batch('J6'))).rejects.toThrow()
    expect(fs.readdirSync(dir)).toHaveLength(1)
    await journal.insert(flaky, batch('J6')) // the batcher's retry, same token
    expect(fs.readdirSync(dir)).toEqual([])
    expect(await counts('J6')).toEqual([300, 300])
  })

  it('a batch that failed for good is set aside, not replayed; a bad entry does not stop recovery', async () => {
    const dir = path.join(env.dir, 'j7')
    const journal = new BatchJournal(dir)
    const flaky = new FlakyStore(env.store)
    flaky.failInserts = 1
    flaky.code = 27 // CANNOT_PARSE_INPUT_ASSERTION_FAILED: bad data, not retried
    await expect(journal.insert(flaky, batch('J7'))).rejects.toThrow()
    await journal.abandon('journal-J7')
    expect(fs.readdirSync(dir)).toEqual(['failed'])
    expect(fs.readdirSync(path.join(dir, 'failed'))).toHaveLength(1)
    // an entry the store refuses as bad data (a row with too few columns), next to a good one
    const bad = { ...batch('J7B'), data: Buffer.from('not\ta\trow\n') }
    const good = batch('J7G')
    for (const [name, b] of [
      ['1-1-0.batch', bad],
      ['1-1-1.batch', good]
    ] as const) {
      const header = JSON.stringify({ ...b, data: undefined, bytes: b.data.length, via: 'file' })
      fs.writeFileSync(path.join(dir, name), Buffer.concat([Buffer.from(header + '\n'), b.data]))
    }
    expect(await new BatchJournal(dir).recover(env.store, silentLogger())).toBe(2)
    expect(await counts('J7G')).toEqual([300, 300])
    expect(fs.readdirSync(dir)).toEqual(['failed'])
    expect(fs.readdirSync(path.join(dir, 'failed'))).toHaveLength(2)
  })

  it('under a directory name with glob characters (file() would expand them) the entry is inserted inline', async () => {
    const dir = path.join(env.dir, 'gl{a,b}')
    const flaky = new FlakyStore(env.store)
    flaky.failInserts = 1
    flaky.afterWrite = true
    await expect(new BatchJournal(dir).insert(flaky, batch('J8'))).rejects.toThrow()
    const entry = fs.readFileSync(path.join(dir, fs.readdirSync(dir)[0]!), 'utf8')
    expect(JSON.parse(entry.slice(0, entry.indexOf('\n'))).via).toBeUndefined()
    expect(await counts('J8')).toEqual([300, 300])
    expect(await new BatchJournal(dir).recover(env.store, silentLogger())).toBe(1)
    expect(await counts('J8')).toEqual([300, 300])
  })

  it("a batch written after a failed attempt, and a replayed one, hand their rows' time range for a view repair", async () => {
    const noted: Array<{ table: string } & TimeRange> = []
    const partial: PartialWrites = {
      covers: (table) => table === 'trades',
      note: async (table, range) => void noted.push({ table, ...range })
    }
    const rows = tradeRows('J9')
    const range = { fromMs: rows[0]!.ts, toMs: rows[rows.length - 1]!.ts }
    const dir = path.join(env.dir, 'j9')
    const flaky = new FlakyStore(env.store)
    const journal = new BatchJournal(dir, partial)
    await journal.insert(flaky, batch('J9')) // no failed attempt: nothing to repair
    expect(noted).toEqual([])
    flaky.failInserts = 1
    flaky.afterWrite = true
    await expect(journal.insert(flaky, batch('J10'))).rejects.toThrow()
    expect(noted).toEqual([])
    await journal.insert(flaky, batch('J10'))
    expect(noted).toEqual([{ table: 'trades', ...range }])
    // an entry left by a crash is replayed and noted too
    flaky.failInserts = 1
    await expect(new BatchJournal(dir).insert(flaky, batch('J11'))).rejects.toThrow()
    expect(await new BatchJournal(dir, partial).recover(env.store, silentLogger())).toBe(1)
    expect(noted).toEqual([
      { table: 'trades', ...range },
      { table: 'trades', ...range }
    ])
    expect(fs.readdirSync(dir)).toEqual([])
  })
})
