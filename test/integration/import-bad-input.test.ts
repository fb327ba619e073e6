/**
 * History import of bad input into a real chDB store (truncated zip, wrong columns, another layout's header, a
 * bad cell, checksum mismatch, truncated gzip): the import stops naming file and line, with nothing of that
 * file written, and files before it in the list stay imported.
 */
import { describe, expect, it } from 'vitest'
import type { Params } from '../../engine/store/store.js'
import { ImportError } from '../../ingest/import/import-error.js'
import { firstRow, useImportStore } from '../helpers/import-store.js'
import { aggTradesCsv, recentDay, tardisMicros as us, writeCsv, writeGzip, writeZip } from '../helpers/import-files.js'

const env = useImportStore('tidewatch-import-files-')
const DAY = recentDay()
const one = <T>(sql: string, params?: Params): Promise<T> => firstRow<T>(env.store, sql, params)

describe('bad input writes nothing and names file and line', () => {
  async function expectImportError(list: string[], match: { line: number; reason: RegExp }): Promise<ImportError> {
    const err = await env.run(list).then(
      () => null,
      (e: unknown) => e
    )
    expect(err).toBeInstanceOf(ImportError)
    const e = err as ImportError
    expect(e.file).toBe(list.at(-1))
    expect(e.line).toBe(match.line)
    expect(e.reason).toMatch(match.reason)
    expect(e.message).toContain(list.at(-1)!)
    return e
  }
  const count = (base: string) =>
    one<{ n: number }>(
      `SELECT (SELECT count() FROM trades WHERE base = {b:String}) + (SELECT count() FROM candles_1m WHERE base = {b:String}) AS n`,
      { b: base }
    )

  it('a truncated zip', async () => {
    const f = writeZip(env.filesDir, 'JJJUSDT-aggTrades-2024-01-01.zip', aggTradesCsv(DAY, 30, 10))
    const fs = await import('node:fs')
    const bytes = fs.readFileSync(f)
    fs.writeFileSync(f, bytes.subarray(0, Math.floor(bytes.length * 0.7)))
    await expectImportError([f], { line: 0, reason: /not a complete zip file/ })
    expect(await count('JJJ')).toEqual({ n: 0 })
  })

  it('a CSV with the wrong columns, late in the file', async () => {
    const lines = aggTradesCsv(DAY, 30, 10).split('\n')
    lines[250] = '1,2,3'
    const f = writeZip(env.filesDir, 'KKKUSDT-aggTrades-2024-01-01.zip', lines.join('\n'))
    const e = await expectImportError([f], { line: 251, reason: /expected 7 columns/ })
    expect(e.message).toMatch(
      /KKKUSDT-aggTrades-2024-01-01\.zip, line 251: expected 7 columns .* nothing from this file was written/
    )
    expect(await count('KKK')).toEqual({ n: 0 })
  })

  it('a header of another layout', async () => {
    const f = writeCsv(env.filesDir, 'LLLUSDT-1m-2024-01-01.csv', aggTradesCsv(DAY, 2, 2))
    await expectImportError([f], { line: 1, reason: /expected the binance 1m klines columns/ })
  })

  it('a bad cell names the column', async () => {
    const lines = aggTradesCsv(DAY, 2, 2).split('\n')
    lines[3] = lines[3]!.replace(/,(true|false)$/, ',maybe')
    const e = await expectImportError([writeCsv(env.filesDir, 'LLLUSDT-aggTrades-2024-01-01.csv', lines.join('\n'))], {
      line: 4,
      reason: /is_buyer_maker must be true or false/
    })
    expect(e.reason).toContain('maybe')
  })

  it('a checksum mismatch', async () => {
    const f = writeZip(env.filesDir, 'MMMUSDT-aggTrades-2024-01-01.zip', aggTradesCsv(DAY, 3, 3), { checksum: 'bad' })
    await expectImportError([f], { line: 0, reason: /checksum mismatch/ })
    expect(await count('MMM')).toEqual({ n: 0 })
  })

  it('a truncated gzip', async () => {
    const csv = ['exchange,symbol,timestamp,local_timestamp,id,side,price,amount']
    for (let i = 0; i < 5000; i++)
      csv.push(`binance-futures,NNNUSDT,${us(DAY + i * 100)},${us(DAY + i * 100)},${i},buy,1.5,2`)
    const f = writeGzip(env.filesDir, 'binance-futures_trades_2024-01-01_NNNUSDT.csv.gz', csv.join('\n'))
    const fs = await import('node:fs')
    const bytes = fs.readFileSync(f)
    fs.writeFileSync(f, bytes.subarray(0, Math.floor(bytes.length * 0.6)))
    const e = await expectImportError([f], { line: 0, reason: /gzip data is truncated or corrupt .*after line \d+/ })
    expect(e.message).toContain('nothing from this file was written')
    expect(await count('NNN')).toEqual({ n: 0 })
  })

  it('a file list stops at the bad file; files before it stay imported', async () => {
    const good = writeZip(env.filesDir, 'OOOUSDT-aggTrades-2024-01-01.zip', aggTradesCsv(DAY, 2, 2))
    const bad = writeCsv(
      env.filesDir,
      'OOOUSDT-aggTrades-2024-01-02.csv',
      aggTradesCsv(DAY + 86_400_000, 2, 2).replace(/,true\n/, ',true,extra\n')
    )
    await expectImportError([good, bad], { line: 2, reason: /expected 7 columns/ })
    expect(await one(`SELECT count() AS n FROM trades WHERE base = 'OOO'`)).toEqual({ n: 4 })
  })
})
