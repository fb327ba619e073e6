/**
 * The journals' on-disk formats are read as every version wrote them: entries written byte for byte as
 * the ingest journal, the webhook outbox and the import journal write them (literal fixtures below, not
 * produced by the code under test) are replayed by the shared recovery (engine/journal/), and the writers
 * still write those bytes.
 */
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { readEntryFile } from '../../engine/journal/entry-file.js'
import { journalName } from '../../engine/journal/replay.js'
import { silentLogger } from '../../engine/log.js'
import type { FileInsert, InsertBatch, Params, Store } from '../../engine/store/store.js'
import { recoverSegments, segmentHeader } from '../../engine/webhooks/journal-recovery.js'
import { ImportJournal } from '../../ingest/import/import-journal.js'
import { BatchJournal } from '../../ingest/journal.js'
import { tmpDir } from '../helpers/tmp-dir.js'

/** A store that records what it is asked; `fail` makes inserts throw (a retryable error: the entry stays). */
class RecordingStore {
  readonly kind = 'chdb' as const
  inserts: InsertBatch[] = []
  fileInserts: FileInsert[] = []
  commands: { sql: string; params?: Params }[] = []
  fail = false
  constructor(readonly readsFiles: boolean) {
    if (!readsFiles) (this as { insertFile?: unknown }).insertFile = undefined
  }
  async insert(b: InsertBatch): Promise<void> {
    if (this.fail) throw Object.assign(new Error('down'), { code: 'ECONNREFUSED' })
    this.inserts.push(b)
  }
  async insertFile(b: FileInsert): Promise<void> {
    if (this.fail) throw Object.assign(new Error('down'), { code: 'ECONNREFUSED' })
    this.fileInserts.push(b)
  }
  async command(sql: string, params?: Params): Promise<void> {
    this.commands.push(params === undefined ? { sql } : { sql, params })
  }
  query(): Promise<never[]> {
    return Promise.resolve([])
  }
  async *stream(): AsyncIterable<Uint8Array> {}
  async close(): Promise<void> {}
}
const asStore = (s: RecordingStore) => s as unknown as Store

const COLUMNS = ['ts', 'exchange', 'symbol']
const ROWS = '1000\tokx\tBTC\n2000\tokx\tETH\n'
const log = silentLogger()

describe('ingest journal entries', () => {
  const header = (bytes: number, extra = '') =>
    `{"table":"trades","columns":["ts","exchange","symbol"],"format":"TSV","dedupToken":"tok-1","bytes":${bytes}${extra}}\n`

  it('are written in the format of every version: header line with bytes, then the payload', async () => {
    const t = tmpDir('tw-journal-format-')
    try {
      const store = new RecordingStore(true)
      store.fail = true
      const data = Buffer.from(ROWS)
      const batch = { table: 'trades', columns: COLUMNS, format: 'TSV' as const, data, dedupToken: 'tok-1' }
      await expect(new BatchJournal(t.dir).insert(asStore(store), batch)).rejects.toThrow('down')
      const [name] = fs.readdirSync(t.dir)
      expect(name).toMatch(/^\d+-\d+-0\.batch$/)
      expect(fs.readFileSync(path.join(t.dir, name!), 'utf8')).toBe(header(data.length, ',"via":"file"') + ROWS)
    } finally {
      t.cleanup()
    }
  })

  it('of the previous format replay the way they were sent; one cut short is dropped', async () => {
    const t = tmpDir('tw-journal-format-')
    try {
      fs.writeFileSync(path.join(t.dir, '1700000000000-11-0.batch'), header(ROWS.length) + ROWS) // no via: inline
      fs.writeFileSync(
        path.join(t.dir, '1700000000000-11-1.batch'),
        header(ROWS.length, ',"via":"file","foldKeys":true') + ROWS
      )
      fs.writeFileSync(path.join(t.dir, '1700000000000-11-2.batch'), header(ROWS.length) + ROWS.slice(0, 7))
      const store = new RecordingStore(true)
      expect(await new BatchJournal(t.dir).recover(asStore(store), log)).toBe(3)
      expect(store.inserts).toEqual([
        { table: 'trades', columns: COLUMNS, format: 'TSV', dedupToken: 'tok-1', data: Buffer.from(ROWS) }
      ])
      expect(store.fileInserts).toEqual([
        {
          table: 'trades',
          columns: COLUMNS,
          format: 'TSV',
          dedupToken: 'tok-1',
          foldKeys: true,
          file: path.join(t.dir, '1700000000000-11-1.batch'),
          skipLines: 1
        }
      ])
      expect(fs.readdirSync(t.dir)).toEqual([])
    } finally {
      t.cleanup()
    }
  })
})

describe('webhook outbox segments', () => {
  const name = 'webhook_attempts.1700000000000-22-abcd1234.00000000.tsv'
  const header = (_dir?: string) =>
    `{"table":"webhook_attempts","columns":["ts","exchange","symbol"],` +
    `"dedupToken":"webhook_attempts:journal:${name}","via":"file"}\n`

  it('have the header of every version', () => {
    const store = asStore(new RecordingStore(true))
    const line = JSON.stringify(segmentHeader(store, 'webhook_attempts', COLUMNS, path.join('/x', name))) + '\n'
    expect(line).toBe(header('/x'))
  })

  it('of the previous format load whole lines once; a partial last line is cut off the file', async () => {
    const t = tmpDir('tw-journal-format-')
    try {
      const file = path.join(t.dir, name)
      fs.writeFileSync(file, header(t.dir) + ROWS + '3000\tok')
      fs.writeFileSync(path.join(t.dir, 'webhook_attempts.1700000000000-22-abcd1234.00000001.tsv'), header(t.dir))
      const store = new RecordingStore(true)
      expect(await recoverSegments(asStore(store), t.dir, 'webhook_attempts', 'mine.', log)).toBe(2)
      expect(store.fileInserts).toEqual([
        {
          table: 'webhook_attempts',
          columns: COLUMNS,
          format: 'TSV',
          dedupToken: `webhook_attempts:journal:${name}`,
          file,
          skipLines: 1
        }
      ])
      expect(fs.readdirSync(t.dir)).toEqual([])
    } finally {
      t.cleanup()
    }
  })

  it('inline: the payload sent is the whole lines after the header', async () => {
    const t = tmpDir('tw-journal-format-')
    try {
      const file = path.join(t.dir, name)
      fs.writeFileSync(file, header(t.dir).replace('"via":"file"', '"via":"inline"') + ROWS + '30')
      expect(readEntryFile(file)?.lines).toBe(2)
      expect(fs.readFileSync(file, 'utf8').endsWith(ROWS)).toBe(true)
      const store = new RecordingStore(false)
      expect(await recoverSegments(asStore(store), t.dir, 'webhook_attempts', 'mine.', log)).toBe(2)
      expect(store.inserts.map((b) => b.data.toString())).toEqual([ROWS])
    } finally {
      t.cleanup()
    }
  })
})

describe('import journal entries', () => {
  it('of the previous format replay their statement, relocated; one without a statement is removed', async () => {
    const t = tmpDir('tw-journal-format-')
    try {
      const journal = path.join(t.dir, 'journal', 'import')
      const entry = path.join(journal, '1700000000000-33-000000')
      fs.mkdirSync(entry, { recursive: true })
      const stmt = {
        table: 'trades',
        token: 'imp-1',
        sql: "INSERT INTO trades SELECT * FROM file('/old/place/slice.csv')",
        params: { a: 1 },
        dir: '/old/place'
      }
      fs.writeFileSync(path.join(entry, 'entry.json'), JSON.stringify(stmt))
      fs.mkdirSync(path.join(journal, '1700000000000-33-000001'))
      const store = new RecordingStore(true)
      expect(await new ImportJournal(journal).recover(asStore(store), log)).toBe(1)
      expect(store.commands).toEqual([
        { sql: `INSERT INTO trades SELECT * FROM file('${entry}/slice.csv')`, params: { a: 1 } }
      ])
      expect(fs.readdirSync(journal)).toEqual([])
    } finally {
      t.cleanup()
    }
  })
})

describe('journal names', () => {
  it('are creation time, process and sequence, sorting by time', () => {
    expect(journalName(7)).toMatch(new RegExp(`^\\d{13}-${process.pid}-7$`))
    expect(journalName(7, 6)).toMatch(new RegExp(`^\\d{13}-${process.pid}-000007$`))
  })
})
