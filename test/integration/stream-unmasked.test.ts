/**
 * What the push stream's WebSocket layer (uWebSockets.js 20.30.0, npm:@trufflesuite/uws-js-unofficial) does
 * with an unmasked client frame, over a raw socket against the real server. RFC 6455 section 5.1: "The server
 * MUST close the connection upon receiving a frame that is not masked." This build does not: it reads every
 * client frame as masked, takes the first four payload bytes as the masking key and waits for four more
 * payload bytes than the frame has, then delivers the payload XORed with that "key" as a message; JavaScript
 * never sees the mask bit (the message handler gets the payload only), so the service cannot enforce the
 * rule (docs/stream.md, "Unmasked client frames"; uNetworking/uWebSockets issue 691 was closed as invalid).
 * The test pins this so an upgraded uWS that closes on the unmasked frame fails it: then update the docs.
 * It watches OBSERVE_MS for the absence of an answer, far past any answer here.
 */
import crypto from 'node:crypto'
import net from 'node:net'
import { describe, it, expect, beforeAll } from 'vitest'
import { createKey, sharedServer } from '../helpers/shared-server.js'

/** How long a connection is watched for an answer that should not come, ms. */
const OBSERVE_MS = 1_500

/** the shared server (vitest.config.ts, SHARED_SERVER_FILES): this file only opens connections of its own key */
const srv = sharedServer()
let key = ''

beforeAll(async () => {
  key = await createKey(srv.base, 'trader', 'stream-unmasked')
})

/** A text frame (FIN set) with a payload under 126 bytes, masked with a random key or not at all. */
function textFrame(text: string, masked: boolean): Buffer {
  const payload = Buffer.from(text)
  if (!masked) return Buffer.concat([Buffer.from([0x81, payload.length]), payload])
  const mask = crypto.randomBytes(4)
  const body = Buffer.from(payload.map((b, i) => b ^ mask[i % 4]!))
  return Buffer.concat([Buffer.from([0x81, 0x80 | payload.length]), mask, body])
}

/** Text payloads of the server's unmasked, unfragmented frames in `buf` (the server never masks). */
function serverTexts(buf: Buffer): string[] {
  const out: string[] = []
  let at = 0
  while (at + 2 <= buf.length) {
    let len = buf[at + 1]! & 0x7f
    let start = at + 2
    if (len === 126) {
      len = buf.readUInt16BE(at + 2)
      start = at + 4
    }
    if (start + len > buf.length) break
    if ((buf[at]! & 0x0f) === 1) out.push(buf.subarray(start, start + len).toString('utf8'))
    at = start + len
  }
  return out
}

interface Conn {
  readonly socket: net.Socket
  /** bytes received after the 101 head */
  received(): Buffer
  closed(): boolean
}

/** Opens /v1/stream over a raw socket and waits for the 101 and the welcome frame. */
function openStream(): Promise<Conn> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(srv.port, '127.0.0.1')
    let head = Buffer.alloc(0)
    let frames = Buffer.alloc(0)
    let upgraded = false
    let closed = false
    const conn: Conn = { socket, received: () => frames, closed: () => closed }
    socket.on('error', () => undefined)
    socket.on('close', () => (closed = true))
    socket.on('data', (d: Buffer) => {
      if (upgraded) {
        frames = Buffer.concat([frames, d])
      } else {
        head = Buffer.concat([head, d])
        const end = head.indexOf('\r\n\r\n')
        if (end < 0) return
        if (!head.subarray(0, 12).toString().startsWith('HTTP/1.1 101')) return reject(new Error(head.toString()))
        upgraded = true
        frames = head.subarray(end + 4)
      }
      if (serverTexts(frames).some((t) => t.includes('"welcome"'))) resolve(conn)
    })
    socket.write(
      [
        'GET /v1/stream HTTP/1.1',
        'Host: 127.0.0.1',
        'Upgrade: websocket',
        'Connection: Upgrade',
        `Sec-WebSocket-Key: ${crypto.randomBytes(16).toString('base64')}`,
        'Sec-WebSocket-Version: 13',
        `X-API-Key: ${key}`,
        '',
        ''
      ].join('\r\n')
    )
  })
}

const pongs = (c: Conn, id: string): string[] =>
  serverTexts(c.received()).filter((t) => t.includes('"pong"') && t.includes(`"id":"${id}"`))

describe('an unmasked client frame on /v1/stream (uWS 20.30)', () => {
  it('answers a masked ping (the control case)', async () => {
    const c = await openStream()
    c.socket.write(textFrame('{"op":"ping","id":"m"}', true))
    await expect.poll(() => pongs(c, 'm')).toHaveLength(1)
    c.socket.destroy()
  })

  it('is not closed on: the frame is misread as masked and waits for four more bytes', async () => {
    const c = await openStream()
    const before = c.received().length
    c.socket.write(textFrame('{"op":"ping","id":"u"}', false))
    await new Promise((r) => setTimeout(r, OBSERVE_MS))
    // neither answered nor closed: RFC 6455 wants the connection closed here
    expect(c.closed()).toBe(false)
    expect(c.received().length).toBe(before)
    // four more bytes complete the misread frame: its payload, "unmasked" with '{"op', is delivered as a
    // garbled message, which the protocol answers as not JSON; the ping is never answered
    c.socket.write(Buffer.from('    '))
    await expect.poll(() => serverTexts(c.received()).slice(-1)).toEqual([expect.stringContaining('invalid_message')])
    expect(pongs(c, 'u')).toEqual([])
    expect(c.closed()).toBe(false)
    c.socket.destroy()
  })
})
