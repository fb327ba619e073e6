/**
 * `tidewatch export` (bin/tidewatch.js over dist/) against the built server: a complete file appears only
 * when the transfer ended complete; an error answer or a transfer cut short leaves neither the file nor a
 * part file, exit code 1. Needs `npm run build` first.
 */
import fs from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort, spawnServer, waitForHealth, type Spawned } from '../helpers/spawn-server.js'
import { tmpDir } from '../helpers/tmp-dir.js'
import { CLI_BIN, runNode } from '../helpers/run-node.js'

const ADMIN = 'cli-export-admin-token-0123456789'
const HOUR = 3_600_000

/** `tidewatch ...args` over a clean environment plus `env` */
const cli = (args: readonly string[], env: Record<string, string>) => runNode([CLI_BIN, ...args], env)

describe('tidewatch export', () => {
  let tmp: ReturnType<typeof tmpDir>
  let out: ReturnType<typeof tmpDir>
  let server: Spawned
  let key = ''
  const H0 = Math.floor(Date.now() / HOUR) * HOUR - 3 * HOUR

  beforeAll(async () => {
    tmp = tmpDir()
    out = tmpDir()
    server = spawnServer({ DATA_DIR: tmp.dir, SOURCES: 'none', ADMIN_TOKEN: ADMIN }, await freePort())
    await waitForHealth(server)
    const auth = { authorization: `Bearer ${ADMIN}` }
    const created = await fetch(`${server.base}/v1/admin/keys`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ plan: 'pro', name: 'quant' })
    })
    key = ((await created.json()) as { key: string }).key
    const trades = Array.from({ length: 120 }, (_, i) =>
      JSON.stringify({
        exchange: 'binance',
        symbol: 'CLXUSDT',
        base: 'CLX',
        market: 'perp',
        quote: 'USDT',
        side: 'buy',
        ts: H0 + i * 60_000 + 5,
        price: 10 + i,
        qty: 1,
        trade_id: String(i)
      })
    )
    const res = await fetch(`${server.base}/v1/admin/ingest/trade`, {
      method: 'POST',
      headers: auth,
      body: trades.join('\n')
    })
    expect(res.status).toBe(201)
  })

  afterAll(async () => {
    if (server.child.exitCode === null && server.child.signalCode === null) {
      server.child.kill('SIGTERM')
      await server.exited
    }
    tmp.cleanup()
    out.cleanup()
  })

  const args = (file: string, format = 'csv') => [
    'export',
    '--symbols',
    'CLX',
    '--timeframe',
    '1m',
    '--lookback',
    '1d',
    '--format',
    format,
    '--out',
    file
  ]

  it('writes the whole file and reports progress', async () => {
    const file = path.join(out.dir, 'clx.csv')
    const r = await cli(args(file), { TIDEWATCH_URL: server.base, TIDEWATCH_API_KEY: key })
    expect(r.code, r.stderr).toBe(0)
    const lines = fs.readFileSync(file, 'utf8').trim().split('\n')
    expect(lines).toHaveLength(121)
    expect(lines[1]!.startsWith(`${H0},"binance","CLXUSDT","CLX",10,`)).toBe(true)
    expect(r.stderr).toMatch(/120 rows/)
    expect(r.stderr).toMatch(/MB\/s/)
    expect(fs.readdirSync(out.dir)).toEqual(['clx.csv'])
  })

  it('leaves nothing behind when the server answers an error', async () => {
    const file = path.join(out.dir, 'denied.parquet')
    const r = await cli(args(file, 'parquet'), { TIDEWATCH_URL: server.base, TIDEWATCH_API_KEY: 'tw_live_nope_x' })
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/tidewatch: /)
    expect(fs.existsSync(file)).toBe(false)
    expect(fs.readdirSync(out.dir).filter((f) => f.startsWith('denied'))).toEqual([])
  })

  it('leaves nothing behind when the transfer is cut short', async () => {
    // a server that starts a chunked body and then drops the connection
    const cut = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/csv' })
      res.write('"timestamp","exchange"\n1,"binance"\n')
      setTimeout(() => res.socket?.destroy(), 100)
    })
    await new Promise<void>((r) => cut.listen(0, '127.0.0.1', r))
    try {
      const file = path.join(out.dir, 'cut.csv')
      const port = (cut.address() as AddressInfo).port
      const r = await cli(args(file), { TIDEWATCH_URL: `http://127.0.0.1:${port}`, TIDEWATCH_API_KEY: key })
      expect(r.code).toBe(1)
      expect(r.stderr).toMatch(/cut short/)
      expect(fs.readdirSync(out.dir).filter((f) => f.startsWith('cut'))).toEqual([])
    } finally {
      cut.close()
    }
  })

  it('refuses bad flags with usage (exit 2)', async () => {
    const r = await cli(
      ['export', '--symbols', 'CLX', '--timeframe', '1m', '--lookback', '1d', '--format', 'xlsx', '--out', 'x'],
      {
        TIDEWATCH_API_KEY: key
      }
    )
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/--format must be one of/)
  })
})
