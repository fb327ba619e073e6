/**
 * `tidewatch import` (bin/tidewatch.js over dist/) as a user runs it: into an idle data directory it opens
 * itself, and through the running server when the server holds the directory's lock; exit codes 0
 * (imported), 1 (a bad file: the message names file and line, nothing of it written), 2 (usage).
 * Needs `npx tsc -p tsconfig.json` first.
 */
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ChdbStore } from '../../engine/store/chdb/chdb-store.js'
import { freePort, spawnServer, waitForHealth, type Spawned } from '../helpers/spawn-server.js'
import { tmpDir } from '../helpers/tmp-dir.js'
import { CLI_BIN, runNode } from '../helpers/run-node.js'
import { aggTradesCsv, klinesCsv, recentDay, writeZip, HOUR } from '../helpers/import-files.js'

/**
 * Bound of each case and of the server's start, ms: a case runs up to four processes that each open and
 * migrate chDB, tens of seconds apiece on a loaded 2-core machine; the cases assert outcomes, so only this
 * bound meets the machine's speed.
 */
const CASE_MS = 300_000

/** `tidewatch import ...args` over a clean environment plus `env` */
const cli = (args: readonly string[], env: Record<string, string>) => runNode([CLI_BIN, 'import', ...args], env)
const ADMIN = 'cli-import-admin-token-0123456789'
const DAY = recentDay()

let files: ReturnType<typeof tmpDir>
let trades = ''
let klines = ''
let bad = ''

beforeAll(() => {
  files = tmpDir('tidewatch-cli-import-')
  trades = writeZip(files.dir, 'CLIUSDT-aggTrades-2024-01-01.zip', aggTradesCsv(DAY, 30, 20), { checksum: 'good' })
  klines = writeZip(files.dir, 'CLIUSDT-1m-2024-01-01.zip', klinesCsv(DAY, 120))
  const lines = aggTradesCsv(DAY + 5 * HOUR, 10, 10).split('\n')
  lines[42] = lines[42] + ',oops'
  bad = writeZip(files.dir, 'CLIUSDT-aggTrades-2024-01-02.zip', lines.join('\n'))
})

afterAll(() => files.cleanup())

interface Stored {
  /** rows in trades */
  raw: number
  /** 1m buckets, and the sums over them of trades and base volume */
  n: number
  t: number
  vol: number
}

/** What an idle data directory holds of CLIUSDT, read with the store opened here (no process holds it). */
async function stored(dataDir: string): Promise<Stored> {
  const store = new ChdbStore({ path: dataDir, poolSize: 1 })
  try {
    const [c] = await store.query<Stored>(
      `SELECT (SELECT count() FROM trades WHERE symbol = 'CLIUSDT') AS raw,
              (SELECT count() FROM (SELECT bucket FROM candles_1m WHERE symbol = 'CLIUSDT' GROUP BY bucket)) AS n,
              (SELECT sum(trades) FROM candles_1m WHERE symbol = 'CLIUSDT') AS t,
              (SELECT round(sum(volume_base), 6) FROM candles_1m WHERE symbol = 'CLIUSDT') AS vol`
    )
    return c!
  } finally {
    await store.close()
  }
}

describe('tidewatch import into an idle data directory', { timeout: CASE_MS }, () => {
  let data: ReturnType<typeof tmpDir>
  /** the store after the first run, which the later runs must not change */
  let first: Stored | undefined
  beforeAll(() => (data = tmpDir()))
  afterAll(() => data.cleanup())

  it('imports files, prints one summary per file, exit 0; a second run is a no-op that also succeeds', async () => {
    const r = await cli([trades, klines], { DATA_DIR: data.dir })
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(
      /imported .*CLIUSDT-aggTrades-2024-01-01\.zip: binance aggTrades \(USD-M futures\), 600 rows.*-> trades, checksum verified/
    )
    expect(r.stdout).toMatch(/imported .*CLIUSDT-1m-2024-01-01\.zip: binance 1m klines, 120 rows.*-> candles_1m/)
    first = await stored(data.dir)
    // trades first: minutes 0-29 from its 600 trades (20 a minute), the klines' 7 trades a minute for 30-119 only
    expect(first).toMatchObject({ raw: 600, n: 120, t: 30 * 20 + 90 * 7 })
    const again = await cli([trades], { DATA_DIR: data.dir })
    expect(again.code, again.stderr).toBe(0)
    expect(await stored(data.dir)).toEqual(first)
    // the data directory was released: nothing left locked, no temp files left
    expect(fs.existsSync(path.join(data.dir, 'tidewatch.lock'))).toBe(false)
    expect(fs.readdirSync(path.join(data.dir, 'tmp', 'import'))).toEqual([])
  })

  it('a bad file: exit 1, the message names the file and line', async () => {
    const r = await cli([bad], { DATA_DIR: data.dir })
    expect(r.code).toBe(1)
    expect(r.stderr).toContain(`${bad}, line 43: expected 7 columns`)
    expect(r.stderr).toContain('nothing from this file was written')
    expect(first).toBeDefined()
    expect(await stored(data.dir)).toEqual(first)
  })

  it('usage errors exit 2', async () => {
    expect((await cli([], { DATA_DIR: data.dir })).code).toBe(2)
    expect((await cli([trades, '--market', 'futures'], { DATA_DIR: data.dir })).code).toBe(2)
    const missing = await cli([path.join(files.dir, 'nope.zip')], { DATA_DIR: data.dir })
    expect(missing.code).toBe(2)
    expect(missing.stderr).toMatch(/no such file/)
  })
})

describe('tidewatch import while the server runs', { timeout: CASE_MS }, () => {
  let data: ReturnType<typeof tmpDir>
  let server: Spawned
  let port = 0

  beforeAll(async () => {
    data = tmpDir()
    port = await freePort()
    server = spawnServer({ DATA_DIR: data.dir, SOURCES: 'none', ADMIN_TOKEN: ADMIN }, port)
    await waitForHealth(server, (b) => b['ready'] === true, CASE_MS)
  }, CASE_MS)

  afterAll(async () => {
    if (server.child.exitCode === null && server.child.signalCode === null) {
      server.child.kill('SIGTERM')
      await server.exited
    }
    data.cleanup()
  })

  it('goes through the server when it holds the data directory, and writes nothing of a bad file', async () => {
    const env = { DATA_DIR: data.dir, PORT: String(port), ADMIN_TOKEN: ADMIN }
    const r = await cli([klines, trades], env)
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toMatch(/in use by the server; importing through http:\/\/127\.0\.0\.1/)
    expect(r.stdout.match(/^imported /gm)).toHaveLength(2)
    const again = await cli([klines, trades], env)
    expect(again.code, again.stderr).toBe(0)
    const failed = await cli([bad], env)
    expect(failed.code).toBe(1)
    expect(failed.stderr).toContain(`${bad}, line 43: expected 7 columns`)
    // an explicit --url with a wrong token is refused by the server
    const denied = await cli([trades, '--url', `http://127.0.0.1:${port}`, '--token', 'wrong-token-0123456789'], {
      DATA_DIR: data.dir
    })
    expect(denied.code).toBe(1)

    server.child.kill('SIGTERM')
    await server.exited
    const store = new ChdbStore({ path: data.dir, poolSize: 1 })
    try {
      // klines came first: minutes 0-119 are kline candles, so the trades (minutes 0-29) were skipped
      const [c] = await store.query<{ n: number; t: number; raw: number }>(
        `SELECT (SELECT count() FROM (SELECT bucket FROM candles_1m WHERE symbol = 'CLIUSDT' GROUP BY bucket)) AS n,
                (SELECT sum(trades) FROM candles_1m WHERE symbol = 'CLIUSDT') AS t,
                (SELECT count() FROM trades WHERE symbol = 'CLIUSDT') AS raw`
      )
      expect(c).toEqual({ n: 120, t: 120 * 7, raw: 0 })
    } finally {
      await store.close()
    }
  })
})
