/**
 * The input of the statement that reads a file itself (stage-sql.ts `directInputSettings`, CustomSeparated
 * with the CSV escaping rule), on a real chDB store: it is stricter than the staging table's CSV input, so
 * a file only the CSV input reads (quoted prices, blanks before a number) is refused by that read with
 * nothing written, staged, and written whole with the same rows as its plain twin; a file neither reads (a
 * `\N` cell, a line with a cell too many) writes nothing and is named at its line.
 */
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { ImportError } from '../../ingest/import/import-error.js'
import { importFiles, type ImportOptions } from '../../ingest/import/run-import.js'
import { aggTradesCsv, HOUR, recentDay, writeCsv } from '../helpers/import-files.js'
import { recording, tradeTotals, useImportStore } from '../helpers/import-store.js'

const env = useImportStore('tidewatch-import-direct-format-')
const DAY = recentDay()

const options = (name: string): ImportOptions => ({
  tmpDir: path.join(env.dataDir, `tmp-${name}`),
  journalDir: path.join(env.dataDir, `journal-${name}`)
})

const trades = (base: string) =>
  env.store.query<{ ts: number; side: string; price: number; qty: number; trade_id: string }>(
    `SELECT toUnixTimestamp64Milli(ts) AS ts, side, price, qty, trade_id FROM trades WHERE base = {b:String}
     ORDER BY ts, trade_id`,
    { b: base }
  )

const stages = (sent: string[]) => sent.filter((s) => s.startsWith('CREATE TABLE import_stage_'))

describe('the input of the statement reading a file', () => {
  it('a file only the CSV input reads (quoted prices, a blank) is refused by that read, staged, written whole', async () => {
    const csv = aggTradesCsv(DAY + HOUR, 120, 3)
    const lines = csv.trimEnd().split('\n')
    // every price quoted, and a blank before one line's quantity: the CSV input reads the same numbers
    // (integers are read as text and parsed strictly, so a quoted id is refused by both inputs)
    const odd = lines.map((l, i) => (i === 0 ? l : l.replace(/^(\d+),([^,]+),/, '$1,"$2",')))
    odd[50] = odd[50]!.replace(/^(\d+,"[^"]+",)/, '$1 ')
    const plain = writeCsv(env.filesDir, 'FMTAUSDT-aggTrades-2024-01-01.csv', csv)
    const quoted = writeCsv(env.filesDir, 'FMTBUSDT-aggTrades-2024-01-01.csv', odd.join('\n') + '\n')

    const sentPlain: string[] = []
    await importFiles(recording(env.store, sentPlain), [plain], options('a'))
    expect(stages(sentPlain)).toEqual([])
    const sent: string[] = []
    const [result] = await importFiles(recording(env.store, sent), [quoted], options('b'))
    // the statement reading the file ran first and was refused; the staging table then read the file
    expect(sent.findIndex((s) => /^INSERT INTO trades\b[\s\S]*CustomSeparated/.test(s))).toBeGreaterThanOrEqual(0)
    expect(stages(sent)).toHaveLength(1)
    expect(result).toMatchObject({ rows: 360 })
    expect(await trades('FMTB')).toEqual(await trades('FMTA'))
    expect(await tradeTotals(env.store, 'base', 'FMTB')).toEqual({ raw: 360, m1: 360, h1: 360, d1: 360 })
  })

  it('a \\N cell, read as 0 by default, is refused with its line; nothing written', async () => {
    const lines = aggTradesCsv(DAY + 4 * HOUR, 60, 3)
      .trimEnd()
      .split('\n')
    lines[20] = lines[20]!.replace(/^\d+,/, '\\N,')
    const f = writeCsv(env.filesDir, 'FMTCUSDT-aggTrades-2024-01-01.csv', lines.join('\n') + '\n')
    const err = await importFiles(env.store, [f], options('c')).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ImportError)
    expect(err).toMatchObject({
      line: 21,
      reason: expect.stringMatching(/^agg_trade_id must be a non-negative integer/)
    })
    expect(await tradeTotals(env.store, 'base', 'FMTC')).toEqual({ raw: 0, m1: 0, h1: 0, d1: 0 })
  })

  it('a line with a cell too many (taken by the last word cell) is refused with its line; nothing written', async () => {
    const lines = aggTradesCsv(DAY + 6 * HOUR, 60, 3)
      .trimEnd()
      .split('\n')
    lines[100] = `${lines[100]!},true`
    const f = writeCsv(env.filesDir, 'FMTDUSDT-aggTrades-2024-01-01.csv', lines.join('\n') + '\n')
    const err = await importFiles(env.store, [f], options('d')).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ImportError)
    expect(err).toMatchObject({ line: 101, reason: expect.stringMatching(/columns/) })
    expect(await tradeTotals(env.store, 'base', 'FMTD')).toEqual({ raw: 0, m1: 0, h1: 0, d1: 0 })
  })
})
