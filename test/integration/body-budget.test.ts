/**
 * The budget of buffered request bodies across connections (docs/access.md, "Bodies"), over raw sockets
 * against the real server started with BODY_MEMORY_MB=1: a body whose declared length does not fit beside
 * those in flight is refused 503 at once, unread; the budget is given back when a request ends.
 */
import net from 'node:net'
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { startTestServer, TEST_ADMIN_TOKEN } from '../helpers/server.js'
import { rawRequest } from '../helpers/raw-http.js'

const errorOf = (text: string): { code: string; message: string } =>
  (JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as { error: { code: string; message: string } }).error

describe('the budget of buffered bodies (BODY_MEMORY_MB=1)', () => {
  let small: Awaited<ReturnType<typeof startTestServer>>
  beforeAll(async () => {
    small = await startTestServer({ BODY_MEMORY_MB: '1' })
  })
  afterAll(async () => {
    await small.stop()
  })

  /** POST /v1/admin/import (buffered, 4 MiB limit) declaring `length` bytes of a JSON body padded with spaces. */
  const importHead = (length: number): string[] => [
    'POST /v1/admin/import HTTP/1.1',
    'Host: 127.0.0.1',
    `Authorization: Bearer ${TEST_ADMIN_TOKEN}`,
    'Content-Type: application/json',
    'Connection: close',
    `Content-Length: ${length}`
  ]
  const json = '{"files":["/nonexistent/body-budget"]}'
  const padded = (length: number): Buffer => Buffer.concat([Buffer.from(json), Buffer.alloc(length - json.length, ' ')])

  it('refuses a body that does not fit beside those in flight (503, unread), and takes it once they end', async () => {
    const length = 600 * 1024
    const refusedBefore = small.running.bodies().refused_busy
    // the first body is begun and held: 600 KiB of the 1 MiB budget reserved
    const first = net.connect(small.running.port, '127.0.0.1')
    let firstAnswer = ''
    first.setEncoding('latin1')
    first.on('data', (d: string) => (firstAnswer += d))
    first.on('error', () => undefined)
    first.write([...importHead(length), '', ''].join('\r\n') + json)
    await expect.poll(() => small.running.bodies().buffered_bytes).toBe(length)

    const second = await rawRequest({ port: small.running.port, head: importHead(length) })
    expect(second.status).toBe(503)
    expect(second.sentAtAnswer).toBe(0)
    expect(second.text).toMatch(/\r\nconnection: close\r\n/i)
    expect(errorOf(second.text).message).toContain('too many request bodies')
    expect(small.running.bodies().refused_busy).toBe(refusedBefore + 1)
    const health = (await (await fetch(`http://127.0.0.1:${small.running.port}/v1/health`)).json()) as {
      bodies: { refused_busy: number; buffered_bytes: number }
    }
    expect(health.bodies).toMatchObject({ refused_busy: refusedBefore + 1, buffered_bytes: length })

    // the first body completes and is answered; its reservation is given back
    first.end(padded(length).subarray(json.length))
    await expect.poll(() => firstAnswer).toMatch(/^HTTP\/1\.1 400 /)
    expect(firstAnswer).toContain('does not exist on the server')
    await expect.poll(() => small.running.bodies().buffered_bytes).toBe(0)

    const third = await rawRequest({ port: small.running.port, head: importHead(length), raw: padded(length) })
    expect(third.status).toBe(400)
    expect(third.text).toContain('does not exist on the server')
  })
})
