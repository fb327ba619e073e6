/**
 * A run of several files reads the next file while the current one is written (run-import.ts), on a real
 * chDB store: the read ahead really overlaps the write, the stored rows are those of one file after the
 * other, progress stays in file order, a bad next file stops the run only after the current file is
 * written whole, and a failed write stops the read ahead and leaves no slice behind.
 */
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import type { Store } from '../../engine/store/store.js'
import { sha256File } from '../../ingest/import/checksum.js'
import { ImportError } from '../../ingest/import/import-error.js'
import { importFiles, type ImportProgress } from '../../ingest/import/run-import.js'
import { useImportStore } from '../helpers/import-store.js'
import { aggTradesCsv, recentDay, writeCsv, writeZip } from '../helpers/import-files.js'

const env = useImportStore('tidewatch-import-ahead-')
const DAY = recentDay()

/** the read phases' directories (one per file being read or waiting to be written) */
function readDirs(tmpDir: string): string[] {
  return fs.existsSync(tmpDir) ? fs.readdirSync(tmpDir).filter((n) => n.startsWith('import-')) : []
}

/**
 * The test's store, whose first trades insert waits (up to 10 s) until a second read directory exists:
 * proof that the next file is being read while this one is written. `fail` makes that insert throw.
 */
function watchingStore(tmpDir: string, fail = false): { store: Store; sawAhead: () => boolean } {
  let waited = false
  let ahead = false
  const store = Object.create(env.store) as Store
  store.command = async (sql, params) => {
    if (!waited && sql.startsWith('INSERT INTO trades')) {
      waited = true
      for (let i = 0; i < 1000 && !ahead; i++) {
        ahead = readDirs(tmpDir).length >= 2
        if (!ahead) await new Promise((r) => setTimeout(r, 10))
      }
      if (fail) throw new Error('the store refused the write')
    }
    return env.store.command(sql, params)
  }
  return { store, sawAhead: () => ahead }
}

async function trades(base: string): Promise<number> {
  const [row] = await env.store.query<{ n: number }>(`SELECT count() AS n FROM trades WHERE base = {b:String}`, {
    b: base
  })
  return Number(row!.n)
}

function dirs(name: string): { tmpDir: string; journalDir: string } {
  return { tmpDir: path.join(env.dataDir, `${name}-tmp`), journalDir: path.join(env.dataDir, `${name}-journal`) }
}

describe('several files: the next is read while the current one is written', () => {
  it('overlaps the next read with the write, writes every file whole, reports in file order', async () => {
    const files = [0, 1, 2].map((d) =>
      writeZip(env.filesDir, `PPPUSDT-aggTrades-2024-01-0${d + 1}.zip`, aggTradesCsv(DAY + d * 86_400_000, 5, 3))
    )
    const { tmpDir, journalDir } = dirs('ahead')
    const { store, sawAhead } = watchingStore(tmpDir)
    const seen: ImportProgress[] = []
    const results = await importFiles(store, files, { tmpDir, journalDir, onProgress: (p) => seen.push(p) })
    expect(sawAhead()).toBe(true)
    expect(results.map((r) => r.rows)).toEqual([15, 15, 15])
    expect(await trades('PPP')).toBe(45)
    // one file at a time for the progress line: indexes never go back, each file ends with `done`
    const indexes = seen.map((p) => p.index)
    expect(indexes).toEqual([...indexes].sort((a, b) => a - b))
    for (const i of [0, 1, 2]) expect(seen.filter((p) => p.index === i).at(-1)!.phase).toBe('done')
    expect(readDirs(tmpDir)).toEqual([])
  })

  it('a bad next file found during the write: the current file is written whole, then the run stops', async () => {
    const good = writeZip(env.filesDir, 'QQQUSDT-aggTrades-2024-01-01.zip', aggTradesCsv(DAY, 4, 2))
    const bad = writeCsv(
      env.filesDir,
      'QQQUSDT-aggTrades-2024-01-02.csv',
      aggTradesCsv(DAY + 86_400_000, 2, 2).replace(/,true\n/, ',true,extra\n')
    )
    const { tmpDir, journalDir } = dirs('bad-next')
    const { store, sawAhead } = watchingStore(tmpDir)
    const err = await importFiles(store, [good, bad], { tmpDir, journalDir }).catch((e: unknown) => e)
    expect(sawAhead()).toBe(true) // the bad file was being read while the good one was written
    expect(err).toBeInstanceOf(ImportError)
    expect((err as ImportError).file).toBe(bad)
    expect(await trades('QQQ')).toBe(8)
    expect(readDirs(tmpDir)).toEqual([])
  })

  it('a failed write stops the read ahead and removes its slices; nothing of the next file is written', async () => {
    const files = [0, 1].map((d) =>
      writeZip(env.filesDir, `RRRUSDT-aggTrades-2024-01-0${d + 1}.zip`, aggTradesCsv(DAY + d * 86_400_000, 3, 2))
    )
    const { tmpDir, journalDir } = dirs('failed-write')
    const { store, sawAhead } = watchingStore(tmpDir, true)
    await expect(importFiles(store, files, { tmpDir, journalDir })).rejects.toThrow(/refused the write/)
    expect(sawAhead()).toBe(true)
    expect(await trades('RRR')).toBe(0)
    expect(readDirs(tmpDir)).toEqual([])
  })

  it("the read ahead's checksum stops with the run: sha256File honours its signal", async () => {
    const file = writeCsv(env.filesDir, 'SSSUSDT-aggTrades-2024-01-01.csv', aggTradesCsv(DAY, 2, 2))
    expect(await sha256File(file)).toMatch(/^[0-9a-f]{64}$/)
    await expect(sha256File(file, AbortSignal.abort())).rejects.toThrow(/abort/i)
  })
})
