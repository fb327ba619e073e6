/**
 * The engine reads and checks an import file in a staging table before anything is written
 * (ingest/import/stage-file.ts): a rule only the engine applies refuses the file with its line and reason,
 * nothing of the file is written, and no staging table outlives the file, written or refused. The rules the
 * byte scan shares are covered by import-bad-input.test.ts (their messages are the scan's).
 */
import { describe, expect, it } from 'vitest'
import { ImportError } from '../../ingest/import/import-error.js'
import { useImportStore } from '../helpers/import-store.js'
import { aggTradesCsv, recentDay, writeCsv, writeGzip } from '../helpers/import-files.js'

const env = useImportStore('tidewatch-import-engine-')
const DAY = recentDay()

const trades = async (base: string): Promise<number> =>
  Number(
    (await env.store.query<{ n: number }>('SELECT count() AS n FROM trades WHERE base = {b:String}', { b: base }))[0]!.n
  )

const stages = async (): Promise<string[]> =>
  (
    await env.store.query<{ name: string }>(
      "SELECT name FROM system.tables WHERE database = currentDatabase() AND startsWith(name, 'import_stage_')"
    )
  ).map((r) => r.name)

describe('the engine checks an import file before writing it', () => {
  it('a price the engine reads as infinity is refused with its line; nothing written, no staging table left', async () => {
    const lines = aggTradesCsv(DAY, 20, 5).split('\n')
    // the byte scan passes `1e400` (a decimal); the engine reads it as inf and the validation query refuses it
    lines[42] = lines[42]!.replace(/^(\d+),[^,]+,/, '$1,1e400,')
    const f = writeCsv(env.filesDir, 'ENGAUSDT-aggTrades-2024-01-01.csv', lines.join('\n'))
    const err = await env.run([f]).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ImportError)
    expect(err).toMatchObject({
      file: f,
      line: 43,
      reason: expect.stringMatching(/^price must be a non-negative number/)
    })
    expect(await trades('ENGA')).toBe(0)
    expect(await stages()).toEqual([])
  })

  it('a column the staging table does not keep is still checked by the load: a bad first_trade_id writes nothing', async () => {
    const lines = aggTradesCsv(DAY, 20, 5).split('\n')
    lines[30] = lines[30]!.replace(/^(\d+),([^,]+),([^,]+),\d+,/, '$1,$2,$3,abc,')
    const f = writeCsv(env.filesDir, 'ENGCUSDT-aggTrades-2024-01-01.csv', lines.join('\n'))
    const err = await env.run([f]).catch((e: unknown) => e)
    expect(err).toMatchObject({
      file: f,
      line: 31,
      reason: expect.stringMatching(/^first_trade_id must be a non-negative integer/)
    })
    expect(await trades('ENGC')).toBe(0)
    expect(await stages()).toEqual([])
  })

  it('a gzip file is read by the engine itself, markets from its rows; a good file leaves no staging table', async () => {
    const rows = Array.from({ length: 120 }, (_, i) => {
      const us = (DAY + i * 1000) * 1000
      return `binance-futures,ENGBUSDT,${us},${us + 5},${i + 1},${i % 2 ? 'sell' : 'buy'},100.5,0.25`
    })
    const csv = ['exchange,symbol,timestamp,local_timestamp,id,side,price,amount', ...rows].join('\n') + '\n'
    const f = writeGzip(env.filesDir, 'binance-futures_trades_2024-01-01_ENGBUSDT.csv.gz', csv)
    const [result] = await env.run([f])
    expect(result).toMatchObject({ rows: 120, source: 'tardis' })
    expect(await trades('ENGB')).toBe(120)
    expect(await stages()).toEqual([])
  })
})
