/**
 * Integer cells the engine's integer input would take (ingest/import/stage-sql.ts reads integers as text
 * through `to<Type>OrNull`), on a real chDB store, on both paths: the statement that reads the file itself
 * (direct-file.ts) and the staging table. An empty cell (read as 0 by the typed input), a value past
 * 2^64 - 1 (it wraps: 2^64 + 1000 reads as 1000), a negative in an unsigned column, a value past a narrow
 * column's type (`funding_interval_hours`, UInt8: 256 reads as 0), a quoted integer (read as the number
 * by the typed input; refused by the scan) and a number too large for a Float64
 * (read as infinity) are each refused with their line and the byte scan's reason, and nothing is written.
 */
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { ImportError } from '../../ingest/import/import-error.js'
import { importFiles, type ImportOptions } from '../../ingest/import/run-import.js'
import { aggTradesCsv, HOUR, recentDay, writeCsv, writeGzip } from '../helpers/import-files.js'
import { recording, tradeTotals, useImportStore } from '../helpers/import-store.js'

const env = useImportStore('tidewatch-import-integers-')
const DAY = recentDay()
const U64 = 'must be a non-negative integer up to 18446744073709551615'

type Path = 'direct' | 'staged'
const PATHS: readonly Path[] = ['direct', 'staged']

let runs = 0
function options(path_: Path): ImportOptions {
  const name = `r${++runs}`
  return {
    tmpDir: path.join(env.dataDir, `tmp-${name}`),
    journalDir: path.join(env.dataDir, `journal-${name}`),
    ...(path_ === 'staged' && { directRows: 0 })
  }
}

/** Imports `file` on `path_`: the error, and whether the statement reading the file itself ran. */
async function refusal(file: string, path_: Path): Promise<{ err: unknown; direct: boolean }> {
  const sent: string[] = []
  const err = await importFiles(recording(env.store, sent), [file], options(path_)).catch((e: unknown) => e)
  return { err, direct: sent.some((s) => /^INSERT INTO \w+\b[\s\S]*CustomSeparated/.test(s)) }
}

/** An aggTrades file (180 rows after the header) whose data line `line` (1-based, the header is line 1) is `edit`ed. */
function aggTrades(base: string, line: number, edit: (l: string) => string): string {
  const lines = aggTradesCsv(DAY + 8 * HOUR, 60, 3)
    .trimEnd()
    .split('\n')
  lines[line - 1] = edit(lines[line - 1]!)
  return writeCsv(env.filesDir, `${base}USDT-aggTrades-2024-01-01.csv`, lines.join('\n') + '\n')
}

/** Replaces cell `i` (0-based) of a CSV line. */
const cell = (i: number, value: string) => (l: string) =>
  l
    .split(',')
    .map((c, k) => (k === i ? value : c))
    .join(',')

const CASES = [
  { name: 'an empty agg_trade_id', tag: 'E', line: 40, edit: cell(0, ''), reason: `agg_trade_id ${U64}` },
  {
    name: 'an agg_trade_id of 2^64 + 1000 (wraps to 1000)',
    tag: 'W',
    line: 41,
    edit: cell(0, '18446744073709552616'),
    reason: `agg_trade_id ${U64}`
  },
  {
    name: 'a first_trade_id of 2^64 (a column only the read checks)',
    tag: 'F',
    line: 120,
    edit: cell(3, '18446744073709551616'),
    reason: `first_trade_id ${U64}`
  },
  { name: 'a quoted agg_trade_id', tag: 'Q', line: 60, edit: cell(0, '"1060"'), reason: `agg_trade_id ${U64}` },
  { name: 'an empty last_trade_id', tag: 'L', line: 7, edit: cell(4, ''), reason: `last_trade_id ${U64}` },
  { name: 'a negative last_trade_id', tag: 'N', line: 150, edit: cell(4, '-5'), reason: `last_trade_id ${U64}` },
  {
    name: 'a transact_time of 2^64 plus a time (wraps to that time)',
    tag: 'T',
    line: 100,
    edit: (l: string) => cell(5, (18446744073709551616n + BigInt(l.split(',')[5]!)).toString())(l),
    reason: `transact_time ${U64}`
  },
  {
    name: 'a price of 400 digits (infinity as a Float64)',
    tag: 'P',
    line: 99,
    edit: cell(1, '9'.repeat(400)),
    reason: 'price must be a non-negative number'
  }
] as const

describe('integer cells the typed integer input would take', () => {
  for (const p of PATHS) {
    for (const c of CASES) {
      it(`${p}: ${c.name} is refused with its line; nothing written`, async () => {
        const base = `INT${c.tag}${p === 'direct' ? 'D' : 'S'}`
        const f = aggTrades(base, c.line, c.edit)
        const before = await tradeTotals(env.store, 'base', base)
        const { err, direct } = await refusal(f, p)
        expect(err).toBeInstanceOf(ImportError)
        expect(err).toMatchObject({ file: f, line: c.line, reason: expect.stringContaining(c.reason) })
        expect(direct).toBe(p === 'direct')
        expect(await tradeTotals(env.store, 'base', base)).toEqual(before)
        expect(before).toEqual({ raw: 0, m1: 0, h1: 0, d1: 0 })
      })
    }

    it(`${p}: a funding_interval_hours of 256 (UInt8: wraps to 0) is refused with its line; nothing written`, async () => {
      const symbol = `INTU${p === 'direct' ? 'D' : 'S'}USDT`
      const rows = Array.from({ length: 12 }, (_, i) => `${DAY + i * 8 * HOUR},${i === 5 ? 256 : 8},0.0001`)
      const csv = ['calc_time,funding_interval_hours,last_funding_rate', ...rows].join('\n') + '\n'
      const f = writeCsv(env.filesDir, `${symbol}-fundingRate-2024-01.csv`, csv)
      const { err, direct } = await refusal(f, p)
      expect(err).toMatchObject({
        file: f,
        line: 7,
        reason: expect.stringContaining('funding_interval_hours must be a non-negative integer up to 255')
      })
      expect(direct).toBe(p === 'direct')
      const [n] = await env.store.query<{ n: number }>('SELECT count() AS n FROM funding WHERE symbol = {s:String}', {
        s: symbol
      })
      expect(Number(n!.n)).toBe(0)
    })
  }

  it('an optional integer (Tardis funding_timestamp) may be empty; past 2^64 - 1 or `\\N` it is refused', async () => {
    const us = (ms: number) => ms * 1000
    const file = (name: string, bad: string | null) => {
      const rows = Array.from({ length: 10 }, (_, i) => {
        const t = DAY + i * HOUR
        const next = i === 6 && bad !== null ? bad : i % 2 ? '' : String(us(DAY + 8 * HOUR))
        return `binance-futures,${name}USDT,${us(t)},${us(t)},${next},0.0001,,,,,20`
      })
      const head =
        'exchange,symbol,timestamp,local_timestamp,funding_timestamp,funding_rate,predicted_funding_rate,open_interest,last_price,index_price,mark_price'
      return writeGzip(
        env.filesDir,
        `binance-futures_derivative_ticker_2024-01-01_${name}.csv.gz`,
        [head, ...rows].join('\n') + '\n'
      )
    }
    const funding = async (name: string) =>
      Number(
        (
          await env.store.query<{ n: number }>('SELECT count() AS n FROM funding WHERE symbol = {s:String}', {
            s: `${name}USDT`
          })
        )[0]!.n
      )
    for (const bad of ['18446744073709551616', '\\N']) {
      const name = bad === '\\N' ? 'INTON' : 'INTOW'
      const f = file(name, bad)
      const err = await importFiles(env.store, [f], options('staged')).catch((e: unknown) => e)
      expect(err).toMatchObject({ file: f, line: 8, reason: expect.stringContaining(`funding_timestamp ${U64}`) })
      expect(await funding(name)).toBe(0)
    }
    await importFiles(env.store, [file('INTOK', null)], options('staged'))
    expect(await funding('INTOK')).toBe(10)
  })

  it('the largest values of the types are read exactly, on both paths', async () => {
    for (const p of PATHS) {
      const base = `INTM${p === 'direct' ? 'D' : 'S'}`
      const f = aggTrades(base, 2, cell(0, '18446744073709551615'))
      await importFiles(env.store, [f], options(p))
      const [t] = await env.store.query<{ id: string }>(
        'SELECT trade_id AS id FROM trades WHERE base = {b:String} ORDER BY ts, trade_id LIMIT 1',
        { b: base }
      )
      expect(t!.id).toBe('18446744073709551615')
      expect((await tradeTotals(env.store, 'base', base)).raw).toBe(180)
    }
  })
})
