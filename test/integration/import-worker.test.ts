/**
 * The read phase of an import runs in a worker thread beside the checksum (docs/import.md): what the caller sees
 * is what it saw when both ran on the main thread, one after the other. A file failing both the checksum
 * and a line check reports the checksum; a stop during the read phase rejects with the stop's reason and
 * leaves neither rows nor slice files; the worker's ImportError keeps its file, line and reason.
 */
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { ImportError } from '../../ingest/import/import-error.js'
import { importFiles } from '../../ingest/import/run-import.js'
import { useImportStore } from '../helpers/import-store.js'
import { aggTradesCsv, recentDay, writeCsv, writeZip } from '../helpers/import-files.js'

const env = useImportStore('tidewatch-import-worker-')
const DAY = recentDay()

const trades = async (base: string): Promise<number> =>
  Number(
    (await env.store.query<{ n: number }>('SELECT count() AS n FROM trades WHERE base = {b:String}', { b: base }))[0]!.n
  )

describe('the import read phase in a worker thread', () => {
  it('a checksum mismatch is reported before a bad line of the same file', async () => {
    const lines = aggTradesCsv(DAY, 3, 3).split('\n')
    lines[5] = '1,2,3'
    const f = writeZip(env.filesDir, 'WKAUSDT-aggTrades-2024-01-01.zip', lines.join('\n'), { checksum: 'bad' })
    const err = await env.run([f]).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ImportError)
    expect(err).toMatchObject({ file: f, line: 0, reason: expect.stringMatching(/checksum mismatch/) })
    expect(await trades('WKA')).toBe(0)
  })

  it('a bad line found by the worker is an ImportError naming the file and line', async () => {
    const lines = aggTradesCsv(DAY, 40, 50).split('\n')
    lines[1500] = lines[1500]!.replace(/,(true|false)$/, ',perhaps')
    const f = writeCsv(env.filesDir, 'WKBUSDT-aggTrades-2024-01-01.csv', lines.join('\n'))
    const err = await env.run([f]).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ImportError)
    expect(err).toMatchObject({ file: f, line: 1501, reason: expect.stringMatching(/is_buyer_maker .*perhaps/) })
    expect((err as Error).message).toMatch(/WKBUSDT-aggTrades-2024-01-01\.csv, line 1501: .*nothing from this file/)
    expect(await trades('WKB')).toBe(0)
  })

  it('a stop during the read phase rejects with its reason; nothing written, no slice left', async () => {
    const f = writeCsv(env.filesDir, 'WKCUSDT-aggTrades-2024-01-01.csv', aggTradesCsv(DAY, 600, 400))
    const abort = new AbortController()
    const tmp = path.join(env.dataDir, 'tmp-stop')
    const err = await importFiles(env.store, [f], {
      tmpDir: tmp,
      journalDir: path.join(env.dataDir, 'journal', 'import'),
      signal: abort.signal,
      onProgress: (p) => {
        if (p.phase === 'reading') abort.abort(new Error('stopped by the test'))
      }
    }).catch((e: unknown) => e)
    expect((err as Error).message).toBe('stopped by the test')
    expect(fs.readdirSync(tmp)).toEqual([])
    expect(await trades('WKC')).toBe(0)
  })

  it('a good file imports whole through the worker', async () => {
    const f = writeCsv(env.filesDir, 'WKDUSDT-aggTrades-2024-01-01.csv', aggTradesCsv(DAY, 90, 20))
    const [result] = await env.run([f])
    expect(result).toMatchObject({ rows: 1800, source: 'binance', checksum: false })
    expect(await trades('WKD')).toBe(1800)
  })
})
