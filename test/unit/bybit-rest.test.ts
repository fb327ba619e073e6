import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { silentLogger } from '../../engine/log.js'
import { RawQueue } from '../../ingest/sources/feed/raw-queue.js'
import { BybitRest, accountRatioPath, instrumentsPath } from '../../ingest/sources/bybit/rest.js'

let server: http.Server
let base = ''
let hits = 0

beforeAll(async () => {
  // Bybit's answer to too many requests from one IP: 403 "access too frequent", no Retry-After
  server = http.createServer((_req, res) => {
    hits++
    res.writeHead(403, { 'content-type': 'text/plain' })
    res.end('access too frequent')
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()))
})

describe('Bybit REST', () => {
  it('a 403 counts as rate limited and pauses every request for the ban (nothing more is sent)', async () => {
    const queue = new RawQueue(10)
    const rest = new BybitRest({ baseUrl: base, log: silentLogger(), queue })
    expect(await rest.fetch('/v5/market/time', new AbortController().signal)).toBeNull()
    expect(rest.client).toMatchObject({ rateLimited: 1, errors: 1 })
    const stop = new AbortController()
    const second = rest.fetch('/v5/market/time', stop.signal)
    await new Promise((r) => setTimeout(r, 50))
    stop.abort()
    expect(await second).toBeNull()
    expect(hits).toBe(1)
    expect(queue.length).toBe(0)
  })

  it('builds the documented request paths', () => {
    expect(instrumentsPath('')).toBe('/v5/market/instruments-info?category=linear&limit=1000')
    expect(instrumentsPath('a=1&b')).toBe('/v5/market/instruments-info?category=linear&limit=1000&cursor=a%3D1%26b')
    expect(accountRatioPath('1000PEPEUSDT')).toBe(
      '/v5/market/account-ratio?category=linear&symbol=1000PEPEUSDT&period=5min&limit=1'
    )
  })
})
