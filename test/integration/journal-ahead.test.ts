/**
 * Journal entries written ahead of their insert (ingest/journal.ts `prepare`, called by the batcher when
 * it seals a batch): the next batch's entry is on disk while the batch before it is still being inserted,
 * each token still has one entry, a failed early write is written again by the insert, and every row is
 * stored once whatever happens in between (a crash after the early write leaves an entry `recover` inserts).
 * A batch may come as its chunks (parts): the entry is their concatenation, never joined in memory first.
 */
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { silentLogger } from '../../engine/log.js'
import type { FileInsert } from '../../engine/store/store.js'
import { encodeRecords } from '../../ingest/encode-records.js'
import { BatchJournal } from '../../ingest/journal.js'
import { IngestPipeline } from '../../ingest/pipeline.js'
import { FlakyStore } from '../helpers/flaky-store.js'
import { tradeBatch, tradeCounts, tradeRows } from '../helpers/journal-batches.js'
import type { ChdbStore } from '../../engine/store/chdb/chdb-store.js'
import { useMigratedStore } from '../helpers/migrated-store.js'

const env = useMigratedStore()

const batch = (symbol: string, n = 300) => tradeBatch('ahead', symbol, n)
const counts = (symbol: string) => tradeCounts(env.store, symbol)

const entries = (dir: string): string[] => fs.readdirSync(dir).filter((f) => f.endsWith('.batch'))

describe('journal entries written ahead', () => {
  it('prepare writes the entry once; the insert reads that entry; a crash after it is recovered', async () => {
    const dir = path.join(env.dir, 'a1')
    const journal = new BatchJournal(dir)
    const flaky = new FlakyStore(env.store)
    journal.prepare(flaky, batch('A1'))
    journal.prepare(flaky, batch('A1')) // same token: no second entry
    flaky.failInserts = 1
    await expect(journal.insert(flaky, batch('A1'))).rejects.toThrow()
    expect(entries(dir)).toHaveLength(1)
    expect(await counts('A1')).toEqual([0, 0])
    // a new process finds the entry written ahead and inserts it
    expect(await new BatchJournal(dir).recover(env.store, silentLogger())).toBe(1)
    expect(await counts('A1')).toEqual([300, 300])
    expect(entries(dir)).toEqual([])
  })

  it('an early write that failed is written again by the insert', async () => {
    const dir = path.join(env.dir, 'a2')
    const journal = new BatchJournal(dir)
    fs.rmSync(dir, { recursive: true }) // the write fails (no directory); prepare never throws
    journal.prepare(env.store, batch('A2'))
    await new Promise((r) => setTimeout(r, 50))
    fs.mkdirSync(dir)
    await journal.insert(env.store, batch('A2'))
    expect(await counts('A2')).toEqual([300, 300])
    expect(entries(dir)).toEqual([])
  })

  it('a batch given as parts: the entry holds them in order, and the file path never joins them', async () => {
    const dir = path.join(env.dir, 'a4')
    const journal = new BatchJournal(dir)
    const whole = batch('A4').data
    const cuts = [0, 1, 700, 701, 5000, whole.length]
    const parts = cuts.slice(1).map((end, k) => new Uint8Array(whole.subarray(cuts[k]!, end)))
    const parted = {
      ...batch('A4'),
      parts,
      get data(): Buffer {
        throw new Error('data read on the file path')
      }
    }
    const flaky = new FlakyStore(env.store)
    flaky.failInserts = 1
    await expect(journal.insert(flaky, parted)).rejects.toThrow('injected')
    const [file] = entries(dir)
    const entry = fs.readFileSync(path.join(dir, file!))
    const nl = entry.indexOf(10)
    expect(JSON.parse(entry.subarray(0, nl).toString()).bytes).toBe(whole.length)
    expect(entry.subarray(nl + 1).equals(whole)).toBe(true)
    await journal.insert(flaky, parted)
    expect(await counts('A4')).toEqual([300, 300])
    expect(entries(dir)).toEqual([])
  })

  it('the pipeline writes the next batch to the journal while the one before it is inserted', async () => {
    const dir = path.join(env.dir, 'a3')
    // a store whose file inserts wait for `open`: the first batch's insert is held
    let open!: () => void
    const opened = new Promise<void>((r) => (open = r))
    let started = 0
    const gated = Object.assign(Object.create(env.store) as ChdbStore, {
      insertFile: async (b: FileInsert) => {
        started++
        await opened
        await env.store.insertFile(b)
      }
    })
    const p = new IngestPipeline(
      gated,
      { batchRows: 100, flushMs: 60_000, queueRows: 1000 },
      silentLogger(),
      new BatchJournal(dir)
    )
    const rows = tradeRows('A3', 300)
    for (let i = 0; i < 300; i += 100) for (const c of encodeRecords(rows.slice(i, i + 100), true)) await p.write(c)
    p.barrier().catch(() => undefined) // seals the last batch
    // three batches sealed: the first being inserted, the other two journaled already
    const deadline = Date.now() + 10_000
    while ((entries(dir).length < 3 || started < 1) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 10))
    expect(started).toBe(1)
    expect(entries(dir)).toHaveLength(3)
    open()
    await p.barrier()
    expect(p.totals()).toMatchObject({ written: 300, failed: 0, batches: 3 })
    expect(await counts('A3')).toEqual([300, 300])
    expect(entries(dir)).toEqual([])
    await p.close(Date.now() + 5000)
  })
})
