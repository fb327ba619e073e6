/**
 * The uWS adapter's backpressure path for large plain bodies (server/http/uws-server.ts `writePlain`: `tryEnd`
 * returns not-done, the rest is written from `onWritable`), forced on a real socket: a raw client sends a GET
 * for a 64 MiB body and stops reading until the adapter's counter shows the response waited on `onWritable`,
 * then reads everything. Proves the body arrives whole and in order (status 200, Content-Length, SHA-256 of a
 * pattern where every 4-byte word holds its own index, so a repeated, skipped or moved piece shows), and that
 * a client that goes away mid-body neither throws (an unhandled error fails the run) nor wedges the server:
 * the next requests, small and large, are answered normally. The app is a stand-in; the sockets are real.
 */
import { createHash } from 'node:crypto'
import net from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { App } from '../../server/app.js'
import { startHttpServer, tryEndBackpressure, type HttpServer } from '../../server/http/uws-server.js'
import type { HttpResponse } from '../../server/http/types.js'

/** 64 MiB: more than the loopback send and unread receive buffers can hold (Linux maxima: 4 + 32 MiB here) */
const BODY_BYTES = 64 * 1024 * 1024
/** how long a condition the server must reach may take before the test fails (a bound, not a timing) */
const WAIT_MS = 10_000

/** word i (4 bytes) holds i: content and order are both checked by one hash */
const BODY = patternBody()
const BODY_SHA = sha256(BODY)

let server: HttpServer

/** routes: /big answers BODY, anything else a small 'ok' */
const app = {
  match(method: string, path: string) {
    return { route: { path, method, maxBodyBytes: 0 }, params: {} }
  },
  handle(req: { path: string }): HttpResponse {
    if (req.path === '/big') return { status: 200, headers: { 'content-type': 'application/octet-stream' }, body: BODY }
    return { status: 200, headers: { 'content-type': 'text/plain' }, body: 'ok' }
  },
  errorResponse(): HttpResponse {
    return { status: 500, headers: {}, body: 'unexpected' }
  }
} as unknown as App

beforeAll(async () => {
  server = await startHttpServer(app, '127.0.0.1', 0)
})
afterAll(() => server.close())

function patternBody(): Buffer {
  const words = new Uint32Array(BODY_BYTES / 4)
  for (let i = 0; i < words.length; i++) words[i] = i
  return Buffer.from(words.buffer)
}

function sha256(b: Buffer): string {
  return createHash('sha256').update(b).digest('hex')
}

/** polls until `cond` holds; fails after WAIT_MS */
async function until(what: string, cond: () => boolean): Promise<void> {
  const deadline = Date.now() + WAIT_MS
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 5))
  }
}

interface RawResponse {
  status: number
  contentLength: number
  body: Buffer
}

/**
 * A GET on its own socket that reads nothing until `readAll`: the socket is paused before it connects, so
 * the server's writes pile up in the kernel buffers. Returns the socket (still paused) and the response,
 * which settles once Content-Length bytes of body have arrived (the body is cut there).
 */
function pausedGet(path: string): { socket: net.Socket; response: Promise<RawResponse> } {
  const socket = net.connect(server.port, '127.0.0.1')
  const chunks: Buffer[] = []
  const response = new Promise<RawResponse>((resolve, reject) => {
    let received = 0
    let head: { status: number; contentLength: number; bodyStart: number } | null = null
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk)
      received += chunk.length
      if (!head) {
        const all = Buffer.concat(chunks)
        const end = all.indexOf('\r\n\r\n')
        if (end < 0) return
        const lines = all.subarray(0, end).toString('latin1').split('\r\n')
        const length = lines.find((l) => /^content-length:/i.test(l))?.split(':')[1]
        head = { status: Number(lines[0]!.split(' ')[1]), contentLength: Number(length ?? NaN), bodyStart: end + 4 }
        chunks.splice(0, chunks.length, all)
      }
      if (received - head.bodyStart >= head.contentLength) {
        const body = Buffer.concat(chunks).subarray(head.bodyStart, head.bodyStart + head.contentLength)
        socket.destroy()
        resolve({ status: head.status, contentLength: head.contentLength, body })
      }
    })
    // armed by readAll: a body that stops short (a wedged or miscounted write) fails instead of hanging
    socket.on('timeout', () => socket.destroy(new Error(`no data for ${WAIT_MS} ms after ${received} bytes`)))
    socket.on('error', reject)
    socket.on('close', () => reject(new Error(`connection closed after ${received} bytes`)))
  })
  socket.pause()
  socket.on('connect', () => socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`))
  return { socket, response }
}

/** resumes a paused client and waits for its whole response; WAIT_MS without any data fails it */
function readAll(get: ReturnType<typeof pausedGet>): Promise<RawResponse> {
  get.socket.setTimeout(WAIT_MS)
  get.socket.resume()
  return get.response
}

describe('uWS adapter: a large body under backpressure (tryEnd not done, then onWritable)', () => {
  it('arrives whole and in order after the client stalled reading', async () => {
    const before = tryEndBackpressure()
    const get = pausedGet('/big')
    await until('the response to wait on onWritable', () => tryEndBackpressure().waited > before.waited)
    // the client has not read the body yet: the server met a full socket, not a slow-but-reading client
    expect(get.socket.bytesRead).toBeLessThan(BODY_BYTES)
    const res = await readAll(get)
    expect(res.status).toBe(200)
    expect(res.contentLength).toBe(BODY_BYTES)
    expect(res.body.length).toBe(BODY_BYTES)
    expectPattern(res.body)
    const after = tryEndBackpressure()
    expect(after.waited - before.waited).toBe(1)
    expect(after.resumed).toBeGreaterThan(before.resumed)
  })

  it('a client that goes away mid-body: nothing throws, and the server answers the next requests normally', async () => {
    for (let i = 0; i < 2; i++) {
      const before = tryEndBackpressure()
      const { socket, response } = pausedGet('/big')
      response.catch(() => undefined) // the client's own side of the destroy is not under test
      await until('the response to wait on onWritable', () => tryEndBackpressure().waited > before.waited)
      socket.destroy()
      await until('the client socket to close', () => socket.closed)
    }
    const small = await fetch(`http://127.0.0.1:${server.port}/ok`)
    expect(small.status).toBe(200)
    expect(await small.text()).toBe('ok')
    // and a large body still goes through the backpressure path whole
    const before = tryEndBackpressure()
    const get = pausedGet('/big')
    await until('the response to wait on onWritable', () => tryEndBackpressure().waited > before.waited)
    const res = await readAll(get)
    expect(res.status).toBe(200)
    expect(res.body.length).toBe(BODY_BYTES)
    expectPattern(res.body)
  })
})

/** the received body hashes like the pattern; on a mismatch the message names the first differing byte */
function expectPattern(got: Buffer): void {
  const sha = sha256(got)
  if (sha === BODY_SHA) return
  const n = Math.min(got.length, BODY.length)
  let at = 0
  while (at < n && got[at] === BODY[at]) at++
  expect(sha, `body differs from the pattern first at byte ${at} (word ${Math.floor(at / 4)}) of ${got.length}`).toBe(
    BODY_SHA
  )
}
