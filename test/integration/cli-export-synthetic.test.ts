/**
 * `tidewatch export` (cli/main.ts in process) against a server that labels its export synthetic (header
 * `x-tidewatch-synthetic: true`): the file is written under the name asked for, and stderr warns before
 * the download and again with the file name. Without the header, no warning.
 */
import fs from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { main } from '../../cli/main.js'
import { tmpDir } from '../helpers/tmp-dir.js'

const CSV = '"timestamp","close"\n1700000000000,10\n'
const out = tmpDir()
let server: http.Server
let base = ''

beforeAll(async () => {
  // answers like /v1/backtest/export; `?symbols=DEMO` labelled synthetic, anything else not
  server = http.createServer((req, res) => {
    const synthetic = new URL(req.url ?? '/', 'http://x').searchParams.get('symbols') === 'DEMO'
    res.writeHead(200, {
      'content-type': 'text/csv; charset=utf-8',
      'x-export-max-rows': '1',
      ...(synthetic && { 'x-tidewatch-synthetic': 'true' })
    })
    res.end(CSV)
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  await new Promise((r) => server.close(r))
  out.cleanup()
})

async function exportTo(symbols: string, file: string): Promise<{ code: number; stderr: string }> {
  let stderr = ''
  const io = { out: () => undefined, err: (t: string) => void (stderr += t) }
  const argv = ['export', '--symbols', symbols, '--timeframe', '1m', '--lookback', '1d', '--format', 'csv']
  const code = await main([...argv, '--out', file, '--key', 'k', '--url', base], {}, io)
  return { code, stderr }
}

describe('tidewatch export of synthetic data', () => {
  it('writes the file as asked and warns that it is synthetic, before and after', async () => {
    const file = path.join(out.dir, 'btc.csv')
    const r = await exportTo('DEMO', file)
    expect(r.code, r.stderr).toBe(0)
    expect(fs.readFileSync(file, 'utf8')).toBe(CSV)
    expect(r.stderr).toMatch(/warning: the server holds SYNTHETIC demo data .*do not trade on it/)
    expect(r.stderr).toContain(`wrote ${file} (SYNTHETIC demo data)`)
    expect(r.stderr.indexOf('warning')).toBeLessThan(r.stderr.indexOf('wrote'))
  })

  it('says nothing of the kind without the header', async () => {
    const file = path.join(out.dir, 'live.csv')
    const r = await exportTo('BTC', file)
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).not.toMatch(/SYNTHETIC|warning/)
    expect(r.stderr).toContain(`wrote ${file}\n`)
  })
})
