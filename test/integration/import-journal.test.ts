/**
 * The import journal in process, on a real chDB store: an acknowledged statement leaves no entry; a
 * statement that failed after ClickHouse wrote it keeps its entry (with its own link to the slice file and
 * its frozen coverage keys), and the next import run completes it first, without writing it twice; an
 * entry whose statement was never recorded is dropped. The SIGKILL cases are in test/e2e/import-crash.test.ts.
 */
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { silentLogger } from '../../engine/log.js'
import type { Store } from '../../engine/store/store.js'
import { StoreError } from '../../engine/store/store-error.js'
import { FAILED_REPLAY_MAX_AGE_MS, ImportJournal } from '../../ingest/import/import-journal.js'
import { importFiles } from '../../ingest/import/run-import.js'
import { aggTradesCsv, HOUR, recentDay, writeCsv } from '../helpers/import-files.js'
import { tradeTotals, useImportStore, withCommand } from '../helpers/import-store.js'

const env = useImportStore('tidewatch-import-journal-')
const DAY = recentDay()

/**
 * The store, where slice INSERT number `nth` fails after the engine wrote it (the answer was lost), and so
 * does every INSERT after it when `persist` (the import's own retries fail too).
 */
function failingAfterWrite(inner: Store, nth: number, persist = true): Store {
  let inserts = 0
  return withCommand(inner, async (sql, params) => {
    await inner.command(sql, params)
    const insert = sql.startsWith('INSERT INTO ') && !sql.startsWith('INSERT INTO FUNCTION')
    if (insert && (++inserts === nth || (persist && inserts > nth))) {
      throw new StoreError('Code: 252. injected failure', 252, 'transient')
    }
  })
}

const totals = (v: string) => tradeTotals(env.store, 'symbol', v)

describe('import journal', () => {
  it('keeps the entry of a statement that failed after it was written; the next run completes it, once', async () => {
    const journalDir = path.join(env.dataDir, 'j1')
    const opts = { tmpDir: path.join(env.dataDir, 'tmp'), journalDir, sliceRows: 100 }
    const file = writeCsv(env.filesDir, 'JRNAUSDT-aggTrades-2024-01-01.csv', aggTradesCsv(DAY + 2 * HOUR, 180, 2))
    await expect(importFiles(failingAfterWrite(env.store, 2), [file], opts)).rejects.toThrow(/injected/)
    const entries = fs.readdirSync(journalDir)
    expect(entries).toHaveLength(1)
    expect(fs.readdirSync(path.join(journalDir, entries[0]!)).sort()).toEqual([
      'entry.json',
      'failed.json',
      'keys.native',
      'slice.csv'
    ])
    expect(fs.readdirSync(opts.tmpDir)).toEqual([]) // the import's own slices are gone; the entry has its link
    expect(await totals('JRNAUSDT')).toEqual({ raw: 240, m1: 240, h1: 240, d1: 240 })

    await importFiles(env.store, [file], opts)
    expect(fs.readdirSync(journalDir)).toEqual([])
    expect(await totals('JRNAUSDT')).toEqual({ raw: 360, m1: 360, h1: 360, d1: 360 })
  })

  it('replays an entry whose data directory was moved since: the statement reads the entry where it is now', async () => {
    const before = path.join(env.dataDir, 'moved-from')
    const opts = { tmpDir: path.join(env.dataDir, 'tmp-moved'), journalDir: before, sliceRows: 100 }
    const file = writeCsv(env.filesDir, 'JRNMUSDT-aggTrades-2024-01-01.csv', aggTradesCsv(DAY + 2 * HOUR, 180, 2))
    await expect(importFiles(failingAfterWrite(env.store, 2), [file], opts)).rejects.toThrow(/injected/)
    expect(fs.readdirSync(before)).toHaveLength(1)
    const after = path.join(env.dataDir, 'moved-to')
    fs.renameSync(before, after) // the old paths no longer exist
    await importFiles(env.store, [file], { ...opts, journalDir: after })
    expect(fs.readdirSync(after)).toEqual([])
    expect(await totals('JRNMUSDT')).toEqual({ raw: 360, m1: 360, h1: 360, d1: 360 })
  })

  it('retries a statement that failed once after it was written, at once: no entry left, written once', async () => {
    const journalDir = path.join(env.dataDir, 'j3')
    const opts = { tmpDir: path.join(env.dataDir, 'tmp3'), journalDir, sliceRows: 100 }
    const file = writeCsv(env.filesDir, 'JRNBUSDT-aggTrades-2024-01-01.csv', aggTradesCsv(DAY + 2 * HOUR, 180, 2))
    await importFiles(failingAfterWrite(env.store, 2, false), [file], opts)
    expect(fs.readdirSync(journalDir)).toEqual([])
    expect(await totals('JRNBUSDT')).toEqual({ raw: 360, m1: 360, h1: 360, d1: 360 })
  })

  it('sets aside, without replaying, a failed entry older than the dedup window can be trusted for', async () => {
    const journalDir = path.join(env.dataDir, 'j4')
    const opts = { tmpDir: path.join(env.dataDir, 'tmp4'), journalDir, sliceRows: 100 }
    const file = writeCsv(env.filesDir, 'JRNCUSDT-aggTrades-2024-01-01.csv', aggTradesCsv(DAY + 2 * HOUR, 180, 2))
    await expect(importFiles(failingAfterWrite(env.store, 2), [file], opts)).rejects.toThrow(/injected/)
    const [entry] = fs.readdirSync(journalDir)
    const stale = Date.now() - FAILED_REPLAY_MAX_AGE_MS - 1000
    fs.writeFileSync(path.join(journalDir, entry!, 'failed.json'), JSON.stringify({ at: stale }))
    const before = await totals('JRNCUSDT')
    expect(await new ImportJournal(journalDir).recover(env.store, silentLogger())).toBe(0)
    expect(fs.readdirSync(journalDir)).toEqual([])
    expect(fs.readdirSync(path.join(env.dataDir, 'abandoned'))).toEqual([entry])
    expect(await totals('JRNCUSDT')).toEqual(before) // nothing replayed
  })

  it('drops an entry whose statement was never recorded, and removes an acknowledged one', async () => {
    const dir = path.join(env.dataDir, 'j2')
    const journal = new ImportJournal(dir)
    const slice = writeCsv(env.filesDir, 'slice.csv', '1,2\n')
    const entry = journal.open(slice)
    expect(fs.existsSync(entry.slice)).toBe(true)
    expect(await new ImportJournal(dir).recover(env.store, silentLogger())).toBe(0)
    expect(fs.readdirSync(dir)).toEqual([])

    const done = journal.open(slice)
    await journal.run(env.store, done, { table: 'none', token: 't', sql: 'SELECT 1', params: {} })
    expect(fs.readdirSync(dir)).toEqual([])
  })
})
