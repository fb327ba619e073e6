/**
 * Files written by one statement that reads the file itself (ingest/import/direct-file.ts), on a real chDB
 * store: no staging table is made and the rows and candles equal the staged import of the same file; a bad
 * line fails that statement while it reads, past the engine's first blocks and in minutes the store already
 * holds (rows the statement would skip), so nothing is written and the line is named as always; a file out
 * of time order, or of more rows than the statement takes (the file is not counted before it), is staged
 * and written whole. The SIGKILL case is in test/e2e/import-crash.test.ts.
 */
import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { ImportError } from '../../ingest/import/import-error.js'
import { importFiles, type ImportOptions } from '../../ingest/import/run-import.js'
import { aggTradesCsv, HOUR, recentDay, writeCsv } from '../helpers/import-files.js'
import { recording, tradeTotals, useImportStore } from '../helpers/import-store.js'

const env = useImportStore('tidewatch-import-direct-')
const DAY = recentDay()

const isSliceInsert = (sql: string): boolean =>
  sql.startsWith('INSERT INTO ') && !sql.startsWith('INSERT INTO FUNCTION')

function options(name: string, more: Partial<ImportOptions> = {}): ImportOptions {
  return {
    tmpDir: path.join(env.dataDir, `tmp-${name}`),
    journalDir: path.join(env.dataDir, `journal-${name}`),
    ...more
  }
}

const totals = (v: string) => tradeTotals(env.store, 'base', v)

/** Trades and 1m/1h candles of `base`, without the base (two markets' stores compared). */
async function content(base: string): Promise<unknown[]> {
  const trades = await env.store.query(
    `SELECT toUnixTimestamp64Milli(ts) AS ts, side, price, qty, trade_id FROM trades WHERE base = {b:String}
     ORDER BY ts, trade_id`,
    { b: base }
  )
  const candles = []
  for (const level of ['1m', '1h']) {
    candles.push(
      await env.store.query(
        `SELECT toUnixTimestamp(bucket) AS bucket, argMinMerge(open) AS open, max(high) AS high, min(low) AS low,
           argMaxMerge(close) AS close, sum(volume_base) AS v, sum(buy_volume_base) AS bv, sum(trades) AS n
         FROM candles_${level} WHERE base = {b:String} GROUP BY bucket ORDER BY bucket`,
        { b: base }
      )
    )
  }
  return [trades, ...candles]
}

const stageTables = async (): Promise<string[]> =>
  (
    await env.store.query<{ name: string }>(
      "SELECT name FROM system.tables WHERE database = currentDatabase() AND startsWith(name, 'import_stage_')"
    )
  ).map((r) => r.name)

describe('a file written by one statement reading it', () => {
  it('makes no staging table, writes one statement, and stores what the staged import stores', async () => {
    const csv = aggTradesCsv(DAY + HOUR, 180, 3)
    const direct = writeCsv(env.filesDir, 'DIRAUSDT-aggTrades-2024-01-01.csv', csv)
    const staged = writeCsv(env.filesDir, 'DIRBUSDT-aggTrades-2024-01-01.csv', csv)
    const sent: string[] = []
    const [result] = await importFiles(recording(env.store, sent), [direct], options('a'))
    expect(sent.filter((s) => s.startsWith('CREATE TABLE import_stage_'))).toEqual([])
    expect(sent.filter(isSliceInsert)).toHaveLength(1)
    expect(result).toMatchObject({ rows: 540, from: DAY + HOUR, to: DAY + HOUR + 179 * 60_000 + 2000 })

    const sentStaged: string[] = []
    await importFiles(recording(env.store, sentStaged), [staged], options('b', { directRows: 0 }))
    expect(sentStaged.filter((s) => s.startsWith('CREATE TABLE import_stage_'))).toHaveLength(1)
    expect(await content('DIRA')).toEqual(await content('DIRB'))
    expect(await totals('DIRA')).toEqual({ raw: 540, m1: 540, h1: 540, d1: 540 })

    // again: everything is covered, nothing written
    await importFiles(env.store, [direct], options('a'))
    expect(await totals('DIRA')).toEqual({ raw: 540, m1: 540, h1: 540, d1: 540 })
  })

  it('a bad last line past the first read blocks writes nothing; the line is named as always', async () => {
    // 200,000 rows (~12 MB): several of the engine's read blocks and parsing chunks before the bad line
    const lines = aggTradesCsv(DAY + 2 * HOUR, 2000, 100)
      .trimEnd()
      .split('\n')
    const last = lines.length - 1
    lines[last] = lines[last]!.replace(/^(\d+),[^,]+,/, '$1,-1,')
    const f = writeCsv(env.filesDir, 'DIRCUSDT-aggTrades-2024-01-01.csv', lines.join('\n') + '\n')
    const err = await importFiles(env.store, [f], options('c')).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ImportError)
    expect(err).toMatchObject({ line: last + 1, reason: expect.stringMatching(/^price must be a non-negative number/) })
    expect(await totals('DIRC')).toEqual({ raw: 0, m1: 0, h1: 0, d1: 0 })
    expect(fs.readdirSync(path.join(env.dataDir, 'journal-c'))).toEqual([])
    expect(await stageTables()).toEqual([])
  })

  it('a bad line in minutes the store holds (rows the statement skips) is still refused; nothing written', async () => {
    const lines = aggTradesCsv(DAY + 2 * HOUR, 2000, 100)
      .trimEnd()
      .split('\n')
    // the first 1,000 minutes are stored first
    const held = writeCsv(env.filesDir, 'DIRDUSDT-aggTrades-2024-01-01.csv', lines.slice(0, 100_001).join('\n') + '\n')
    await importFiles(env.store, [held], options('d'))
    const before = await totals('DIRD')
    expect(before.raw).toBe(100_000)
    // minute 10, line 1,002: held, so the statement's coverage filter would drop its row
    lines[1001] = lines[1001]!.replace(/^(\d+),[^,]+,/, '$1,-1,')
    const f = writeCsv(env.filesDir, 'DIRDUSDT-aggTrades-2024-01-02.csv', lines.join('\n') + '\n')
    const err = await importFiles(env.store, [f], options('d')).catch((e: unknown) => e)
    expect(err).toMatchObject({ line: 1002, reason: expect.stringMatching(/^price must be a non-negative number/) })
    expect(await totals('DIRD')).toEqual(before)
    expect(fs.readdirSync(path.join(env.dataDir, 'journal-d'))).toEqual([])
  })

  it('a .CHECKSUM beside a plain CSV is verified before the statement: a mismatch sends it not; a match counts the rows', async () => {
    const csv = aggTradesCsv(DAY + 12 * HOUR, 60, 3)
    const sidecar = (f: string, digest: string) => fs.writeFileSync(`${f}.CHECKSUM`, `${digest}  ${path.basename(f)}\n`)
    const sha = crypto.createHash('sha256').update(csv).digest('hex')
    const bad = writeCsv(env.filesDir, 'DIRGUSDT-aggTrades-2024-01-01.csv', csv)
    sidecar(bad, sha.replace(/^./, sha[0] === '0' ? '1' : '0'))
    const sent: string[] = []
    const err = await importFiles(recording(env.store, sent), [bad], options('g')).catch((e: unknown) => e)
    expect(err).toMatchObject({ line: 0, reason: expect.stringMatching(/^checksum mismatch/) })
    expect(sent.filter(isSliceInsert)).toEqual([])
    expect(await totals('DIRG')).toEqual({ raw: 0, m1: 0, h1: 0, d1: 0 })

    const good = writeCsv(env.filesDir, 'DIRHUSDT-aggTrades-2024-01-01.csv', csv)
    sidecar(good, sha)
    const [result] = await importFiles(env.store, [good], options('h'))
    expect(result).toMatchObject({ rows: 180, checksum: true })
    expect(await totals('DIRH')).toEqual({ raw: 180, m1: 180, h1: 180, d1: 180 })
  })

  it('a file of more rows than the statement takes (not counted before it) is refused by it, staged, written whole', async () => {
    const lines = aggTradesCsv(DAY + 10 * HOUR, 180, 3)
      .trimEnd()
      .split('\n')
    // long first and last lines: the file's size over their length says fewer rows than it holds
    const pad = (l: string) =>
      l.replace(/^(\d+),([0-9.]+),/, (_, id: string, p: string) => `${id},${Number(p).toFixed(40)},`)
    lines[1] = pad(lines[1]!)
    lines[lines.length - 1] = pad(lines.at(-1)!)
    const f = writeCsv(env.filesDir, 'DIRFUSDT-aggTrades-2024-01-01.csv', lines.join('\n') + '\n')
    const sent: string[] = []
    const [result] = await importFiles(recording(env.store, sent), [f], options('f', { directRows: 539 }))
    // the statement reading the file ran (and refused it by its row bound), then the staging table
    expect(sent.filter(isSliceInsert)[0]).toMatch(/_row < 539\b/)
    expect(sent.filter((s) => s.startsWith('CREATE TABLE import_stage_'))).toHaveLength(1)
    expect(result).toMatchObject({ rows: 540 })
    expect(await totals('DIRF')).toEqual({ raw: 540, m1: 540, h1: 540, d1: 540 })
    expect(fs.readdirSync(path.join(env.dataDir, 'journal-f'))).toEqual([])
    expect(await stageTables()).toEqual([])
  })

  it('a file out of time order (a row before its first line) is staged and written whole', async () => {
    const lines = aggTradesCsv(DAY + 8 * HOUR, 120, 3)
      .trimEnd()
      .split('\n')
    const first = lines.splice(1, 1)[0]! // the earliest row, moved to the end
    lines.push(first)
    const f = writeCsv(env.filesDir, 'DIREUSDT-aggTrades-2024-01-01.csv', lines.join('\n') + '\n')
    const sent: string[] = []
    const [result] = await importFiles(recording(env.store, sent), [f], options('e'))
    expect(sent.filter((s) => s.startsWith('CREATE TABLE import_stage_'))).toHaveLength(1)
    expect(result).toMatchObject({ rows: 360, from: DAY + 8 * HOUR, to: DAY + 8 * HOUR + 119 * 60_000 + 2000 })
    expect(await totals('DIRE')).toEqual({ raw: 360, m1: 360, h1: 360, d1: 360 })
    expect(fs.readdirSync(path.join(env.dataDir, 'journal-e'))).toEqual([])
    expect(await stageTables()).toEqual([])
  })
})
