/**
 * No work before access (docs/access.md, "Bodies"), over raw sockets against the real server: a request to
 * a route that takes a body is refused from its headers (401, 413) without a byte of its body read, and the
 * answer says Connection: close; an ambiguous length answers 400 and closes at once; admin NDJSON bodies are
 * spooled to a temp file, at most a few at once (503 past that).
 * "Not read" is shown two ways: the answer arrives while the client has sent none (or not all) of the
 * body, and the server's body counter (`bodies().read_bytes`) does not move.
 */
import fs from 'node:fs'
import path from 'node:path'
import net from 'node:net'
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { startTestServer, TEST_ADMIN_TOKEN, ndjson } from '../helpers/server.js'
import { rawRequest, type RawAnswer, type RawRequest } from '../helpers/raw-http.js'

const MiB = 1024 * 1024

let srv: Awaited<ReturnType<typeof startTestServer>>
let port = 0

beforeAll(async () => {
  srv = await startTestServer()
  port = srv.running.port
})
afterAll(async () => {
  await srv.stop()
})

const ingestHead = (length: number | string, ...extra: string[]): string[] => [
  'POST /v1/admin/ingest/trade HTTP/1.1',
  'Host: 127.0.0.1',
  'Content-Type: application/x-ndjson',
  `Content-Length: ${length}`,
  ...extra
]

const errorOf = (text: string): { code: string; message: string; param?: string } =>
  (JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as { error: { code: string; message: string } }).error

/**
 * Sends `reqs` at once (each on its own socket) and checks that each was refused from its headers alone:
 * `status`, the answer saying Connection: close, and not one body byte read by the server (its counter
 * unchanged). The answers are returned for the case's own checks.
 */
async function refusedUnread(status: number, ...reqs: Omit<RawRequest, 'port'>[]): Promise<RawAnswer[]> {
  const before = srv.running.bodies().read_bytes
  const seen = await Promise.all(reqs.map((r) => rawRequest({ port, ...r })))
  for (const s of seen) {
    expect(s.status).toBe(status)
    expect(s.text).toMatch(/\r\nconnection: close\r\n/i)
  }
  expect(srv.running.bodies().read_bytes).toBe(before)
  return seen
}

/** Sends a request of ambiguous length: answered 400 invalid_request and the connection closed at once. */
async function refusedAmbiguous(head: string[], raw?: string): Promise<RawAnswer> {
  const seen = await rawRequest({ port, head, untilClose: true, ...(raw === undefined ? {} : { raw }) })
  expect(seen.status).toBe(400)
  expect(errorOf(seen.text).code).toBe('invalid_request')
  expect(seen.closed).toBe(true)
  return seen
}

describe('access is checked before a body is read', () => {
  it('answers an unauthenticated 250 MB admin body with 401 from its headers alone, and closes', async () => {
    // nothing of the body is sent: the answer can only come from the headers
    const [seen] = await refusedUnread(401, { head: ingestHead(250_000_000) })
    expect(seen!.sentAtAnswer).toBe(0)
    expect(errorOf(seen!.text).code).toBe('unauthorized')
  })

  it('answers concurrent senders with a wrong token before they finish, and reads none of their bodies', async () => {
    // each declares 200 MiB and sends the first MiB, then waits: only an answer from the headers can come
    // (a client still writing when the refused connection closes may see a reset first: docs/access.md)
    const sender = { head: ingestHead(200 * MiB, 'Authorization: Bearer wrong-token'), bodyBytes: MiB }
    const seen = await refusedUnread(401, sender, sender, sender)
    for (const s of seen) expect(s.sentAtAnswer).toBeLessThanOrEqual(MiB)
  })

  it('refuses a keyed route with an unknown key before its body (401, nothing read)', async () => {
    const [seen] = await refusedUnread(401, {
      head: ['POST /v1/webhooks HTTP/1.1', 'Host: 127.0.0.1', 'X-API-Key: tw_live_nope', 'Content-Length: 10000']
    })
    expect(seen!.sentAtAnswer).toBe(0)
  })

  it('lets a client still uploading (fetch) read the 401 instead of a reset', async () => {
    const before = srv.running.bodies().read_bytes
    const res = await fetch(`${srv.base}/v1/admin/ingest/trade`, {
      method: 'POST',
      headers: { authorization: 'Bearer wrong-token' },
      body: Buffer.alloc(64 * MiB, 'x')
    })
    expect(res.status).toBe(401)
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('unauthorized')
    expect(srv.running.bodies().read_bytes).toBe(before)
  })

  it('still reads and ingests an authorized body', async () => {
    const body = ndjson([
      {
        ts: 1_700_000_000_000,
        exchange: 'binance',
        market: 'perp',
        symbol: 'BTCUSDT',
        base: 'BTC',
        quote: 'USDT',
        side: 'buy',
        price: 50_000,
        qty: 0.1,
        trade_id: 'body-access-1'
      }
    ])
    const res = await fetch(`${srv.base}/v1/admin/ingest/trade`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
      body
    })
    expect(res.status).toBe(201)
    expect((await res.json()) as unknown).toMatchObject({ rows: 1 })
  })
})

describe('declared lengths and framing', () => {
  it('answers a declared length over the limit (1 GiB) with 413 at once and closes', async () => {
    const [seen] = await refusedUnread(413, { head: ingestHead(2 ** 30, `Authorization: Bearer ${TEST_ADMIN_TOKEN}`) })
    expect(seen!.sentAtAnswer).toBe(0)
    expect(errorOf(seen!.text)).toMatchObject({ code: 'payload_too_large' })
  })

  it('answers two differing Content-Length headers with 400 invalid_request and closes', async () => {
    const seen = await refusedAmbiguous(
      [
        'POST /v1/admin/keys HTTP/1.1',
        'Host: 127.0.0.1',
        `Authorization: Bearer ${TEST_ADMIN_TOKEN}`,
        'Content-Length: 16',
        'Content-Length: 17'
      ],
      '{"plan":"free"} '
    )
    expect(errorOf(seen.text).message).toContain('16 and 17')
  })

  it('refuses them on a route that takes no body too', async () => {
    await refusedAmbiguous(['GET /v1/health HTTP/1.1', 'Host: 127.0.0.1', 'Content-Length: 0', 'Content-Length: 40'])
  })

  it('never serves a request smuggled behind two Content-Lengths', async () => {
    // uWS frames by the first (0): the bytes after the head would be a second request
    const seen = await rawRequest({
      port,
      head: ['GET /v1/health HTTP/1.1', 'Host: 127.0.0.1', 'Content-Length: 0', 'Content-Length: 40'],
      raw: 'GET /v1/openapi.json HTTP/1.1\r\nHost: x\r\n\r\n',
      untilClose: true
    })
    expect(seen.closed).toBe(true)
    expect(seen.text).not.toMatch(/HTTP\/1\.1 200 /)
    expect(seen.text).not.toContain('openapi')
  })

  it('refuses a Content-Length that is not a number of bytes with 400', async () => {
    await refusedAmbiguous([
      'POST /v1/admin/keys HTTP/1.1',
      'Host: 127.0.0.1',
      `Authorization: Bearer ${TEST_ADMIN_TOKEN}`,
      'Content-Length: 5x'
    ])
  })

  it('Content-Length beside Transfer-Encoding: the HTTP layer closes the connection unanswered', async () => {
    // uWS 20.30 refuses this pair itself, before any handler runs (docs/access.md): nothing is served
    const seen = await rawRequest({
      port,
      head: [
        'POST /v1/admin/keys HTTP/1.1',
        'Host: 127.0.0.1',
        `Authorization: Bearer ${TEST_ADMIN_TOKEN}`,
        'Content-Length: 5',
        'Transfer-Encoding: chunked'
      ],
      raw: '0\r\n\r\n',
      untilClose: true
    })
    expect(seen).toMatchObject({ status: 0, text: '', closed: true })
  })

  it('accepts repeated copies of one Content-Length', async () => {
    const body = '{"plan":"free"}'
    const seen = await rawRequest({
      port,
      head: [
        'POST /v1/admin/keys HTTP/1.1',
        'Host: 127.0.0.1',
        `Authorization: Bearer ${TEST_ADMIN_TOKEN}`,
        'Connection: close',
        `Content-Length: ${body.length}`,
        `Content-Length: ${body.length}, ${body.length}`
      ],
      raw: body
    })
    expect(seen.status).toBe(201)
  })
})

describe('spooled admin bodies', () => {
  it('spool to a file under DATA_DIR/tmp/bodies, removed once answered; a line over 1 MiB is refused', async () => {
    const spoolDir = path.join(srv.dataDir, 'tmp', 'bodies')
    // one unbroken 3 MiB "line": refused by line length, not gathered into memory as one string
    const body = Buffer.alloc(3 * MiB, 'x')
    const res = await fetch(`${srv.base}/v1/admin/ingest/trade`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
      body
    })
    expect(res.status).toBe(400)
    const err = ((await res.json()) as { error: { code: string; message: string; line: number } }).error
    expect(err).toMatchObject({ code: 'invalid_record', line: 1 })
    expect(err.message).toContain('longer than 1048576 characters')
    await expect.poll(() => fs.readdirSync(spoolDir)).toEqual([])
  })

  it('holds at most 4 at once: a fifth admin body in flight is refused 503 at once', async () => {
    const total = 8 * MiB
    const head = ingestHead(total, `Authorization: Bearer ${TEST_ADMIN_TOKEN}`).concat('Connection: close')
    // four bodies begun, not finished: each holds a spool slot
    const open = Array.from({ length: 4 }, () => {
      const s = net.connect(port, '127.0.0.1')
      s.on('error', () => undefined)
      s.write([...head, '', ''].join('\r\n') + 'x')
      return s
    })
    await expect.poll(() => srv.running.bodies().spooling, { timeout: 10_000 }).toBe(4)
    const refused = await rawRequest({ port, head })
    expect(refused.status).toBe(503)
    expect(refused.text).toMatch(/\r\nretry-after: 1\r\n/i)
    expect(errorOf(refused.text).code).toBe('unavailable')
    for (const s of open) s.destroy()
    await expect.poll(() => srv.running.bodies().spooling, { timeout: 10_000 }).toBe(0)
    await expect.poll(() => fs.readdirSync(path.join(srv.dataDir, 'tmp', 'bodies'))).toEqual([])
  })
})
