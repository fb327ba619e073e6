/**
 * SIGKILL during an import, then the next start on that data directory: the import journal completes the
 * interrupted slice, so trades and every candle level equal a clean import of the same file, once; a
 * second recovery changes nothing. The crash is deterministic: a child process (import-crash-child.mjs,
 * over dist/) kills itself at a chosen slice INSERT, after detaching a candle view so that the statement
 * writes the raw part and the lower levels but not that view and what cascades from it — the partial
 * state a crash between ClickHouse's parts leaves. Recovery runs in `tidewatch import` (a CLI opening the
 * directory itself) and in the server's start. Every data directory starts as a copy of one migrated, closed
 * directory: what is tested begins after the schema, so no case builds the schema again. Needs `npm run build`
 * first.
 */
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { projectRoot } from '../../engine/paths.js'
import { freePort, spawnServer, waitForHealth } from '../helpers/spawn-server.js'
import { tmpDir } from '../helpers/tmp-dir.js'
import { CLI_BIN, runNode } from '../helpers/run-node.js'
import { aggTradesCsv, HOUR, recentDay, writeZip } from '../helpers/import-files.js'

const CHILD = path.join(projectRoot(), 'test', 'helpers', 'import-crash-child.mjs')
/** 3 hours from 22:00 (a day boundary inside), 3 trades a minute: 540 lines */
const T0 = recentDay() + 22 * HOUR
/** small slices so the file makes 3 (one per hour); the crash run and the reference use the same */
const SLICE_ROWS = '100'
const ADMIN = 'import-crash-admin-token-0123456789'

const child = (...args: string[]) => runNode([CHILD, ...args], { TZ: 'UTC' })
const cli = (dataDir: string, file: string) => runNode([CLI_BIN, 'import', file], { TZ: 'UTC', DATA_DIR: dataDir })

async function dump(dataDir: string): Promise<Record<string, unknown[]>> {
  const r = await child('dump', dataDir)
  expect(r.code, r.stderr).toBe(0)
  return JSON.parse(r.stdout) as Record<string, unknown[]>
}

async function crash(dataDir: string, file: string, kill: string, nth: number, ...views: string[]): Promise<void> {
  await crashWith(SLICE_ROWS, dataDir, file, kill, nth, ...views)
}

async function crashWith(
  sliceRows: string,
  dataDir: string,
  file: string,
  kill: string,
  nth: number,
  ...views: string[]
): Promise<void> {
  const r = await child('crash', dataDir, file, sliceRows, kill, String(nth), ...views)
  expect(r.signal, r.stderr).toBe('SIGKILL')
}

/**
 * Bound of each case, ms: a case runs up to five processes that each open and migrate chDB, tens of seconds
 * apiece on a loaded 2-core machine; the cases assert outcomes, so only this bound meets the machine's speed.
 */
const CASE_MS = 300_000
/** Bound of one server start on a crashed directory (migrations, the journal's replay, the live state), ms. */
const HEALTH_MS = 150_000

const journal = (dataDir: string) => fs.readdirSync(path.join(dataDir, 'journal', 'import'))

let files: ReturnType<typeof tmpDir>
let file = ''
let clean: Record<string, unknown[]> = {}
const dirs: ReturnType<typeof tmpDir>[] = []
/** a closed data directory with the schema migrated, copied by dataDir() */
let migrated = ''
const dataDir = (): string => {
  const d = tmpDir()
  dirs.push(d)
  fs.cpSync(migrated, d.dir, { recursive: true })
  return d.dir
}

beforeAll(async () => {
  files = tmpDir('tidewatch-import-crash-')
  file = writeZip(files.dir, 'CRASHUSDT-aggTrades-2024-01-01.zip', aggTradesCsv(T0, 180, 3))
  const schema = tmpDir('tidewatch-import-crash-schema-')
  dirs.push(schema)
  const m = await child('migrate', schema.dir)
  expect(m.code, m.stderr).toBe(0)
  migrated = schema.dir
  // the reference: a clean import of the file, dumped by the importing process
  const r = await child('import', dataDir(), file, SLICE_ROWS)
  expect(r.code, r.stderr).toBe(0)
  clean = JSON.parse(r.stdout) as Record<string, unknown[]>
  expect(clean['trades']).toHaveLength(540)
  expect(clean['candles_1d']).toHaveLength(2)
})

afterAll(() => {
  for (const d of dirs) d.cleanup()
  files.cleanup()
})

describe('SIGKILL during an import', { timeout: CASE_MS }, () => {
  it('a slice in the raw table with candle levels missing is completed by the next CLI import, once', async () => {
    const dir = dataDir()
    // the last slice (00:00, after 22:00 and 23:00 were written whole): its statement wrote trades, 1m, 5m,
    // 15m, not 1h and what cascades from it
    await crash(dir, file, 'acked', 3, 'candles_1h_mv')
    expect(journal(dir)).toHaveLength(1)
    const partial = await dump(dir)
    expect(partial['trades']).toEqual(clean['trades'])
    expect(partial['candles_15m']).toEqual(clean['candles_15m'])
    expect(partial['candles_1h']).not.toEqual(clean['candles_1h'])

    const first = await cli(dir, file)
    expect(first.code, first.stderr).toBe(0)
    expect(first.stderr).toContain('completed 1 write(s) interrupted by the last process')
    expect(journal(dir)).toEqual([])
    expect(await dump(dir)).toEqual(clean)

    const second = await cli(dir, file)
    expect(second.code, second.stderr).toBe(0)
    expect(second.stderr).not.toContain('completed')
    expect(await dump(dir)).toEqual(clean)
  })

  it('a statement killed before it was sent, or right after, is run at the next start; the import re-run adds the rest', async () => {
    for (const kill of ['journaled', 'sent']) {
      const dir = dataDir()
      await crash(dir, file, kill, 2)
      expect(journal(dir)).toHaveLength(1)
      // the recovery on its own first (a server start and stop on the directory), so the re-run below cannot
      // hide a recovery that does not replay: it writes the slices itself and would skip what is stored
      const s = spawnServer({ DATA_DIR: dir, SOURCES: 'none', ADMIN_TOKEN: ADMIN }, await freePort())
      await waitForHealth(s, (b) => b['ready'] === true, HEALTH_MS)
      s.child.kill('SIGTERM')
      expect((await s.exited).code, kill).toBe(0)
      expect(journal(dir), kill).toEqual([])
      const log = s.stdout + s.stderr
      expect(log, kill).toContain('replayed an interrupted import statement from the journal')
      expect(log, kill).toContain('completed import statements interrupted by the last stop')
      // exactly the journaled statement was run: slices 1 (22:00, written before the kill) and 2 (23:00,
      // the journaled one), 180 trades an hour; nothing of 00:00, which was never reached
      const recovered = await dump(dir)
      expect(recovered['trades'], kill).toEqual(clean['trades']!.slice(0, 360))
      expect(recovered['candles_1m'], kill).toEqual(clean['candles_1m']!.slice(0, 120))
      const again = await child('import', dir, file, SLICE_ROWS)
      expect(again.code, again.stderr).toBe(0)
      expect(journal(dir)).toEqual([])
      expect(JSON.parse(again.stdout), kill).toEqual(clean)
    }
  })

  it('a file written by one statement reading it (no staging table) is completed by the next CLI import, once', async () => {
    // slices of 1,000 rows: the file's 540 lines are one statement reading the file itself (direct-file.ts)
    for (const [kill, views] of [
      ['sent', []],
      ['acked', ['candles_1h_mv']]
    ] as const) {
      const dir = dataDir()
      await crashWith('1000', dir, file, kill, 1, ...views)
      expect(journal(dir), kill).toHaveLength(1)
      const first = await cli(dir, file)
      expect(first.code, first.stderr).toBe(0)
      expect(first.stderr, kill).toContain('completed 1 write(s) interrupted by the last process')
      expect(journal(dir), kill).toEqual([])
      expect(await dump(dir), kill).toEqual(clean)
    }
  })

  it('the server completes interrupted import statements when it starts', async () => {
    const dir = dataDir()
    await crash(dir, file, 'acked', 3, 'candles_1h_mv', 'candles_1d_mv')
    expect(journal(dir)).toHaveLength(1)
    const env = { DATA_DIR: dir, SOURCES: 'none', ADMIN_TOKEN: ADMIN }
    for (const round of [1, 2]) {
      const s = spawnServer(env, await freePort())
      await waitForHealth(s, (b) => b['ready'] === true, HEALTH_MS)
      s.child.kill('SIGTERM')
      expect((await s.exited).code).toBe(0)
      expect(journal(dir)).toEqual([])
      expect((s.stdout + s.stderr).includes('completed import statements interrupted by the last stop')).toBe(
        round === 1
      )
      expect(await dump(dir)).toEqual(clean)
    }
  })
})
