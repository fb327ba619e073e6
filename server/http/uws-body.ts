/**
 * @module
 * Reading request bodies off uWS responses, within the in-flight bound (body-budget.ts):
 * - `readBuffered`: into memory, for bodies of a few MiB at most. A declared length was reserved by the
 *   caller before the first byte; a chunked body reserves each piece as it arrives.
 * - `spoolBody`: to a temp file (mode 0600), for large bodies (admin NDJSON). The socket is paused while
 *   more than SPOOL_BUFFER_BYTES wait to be written, so memory stays flat however fast the client sends;
 *   the body's SHA-1 is computed on the way (the ingest dedup token).
 * Both resolve with an ApiError instead of a body when the body is over the limit or does not fit; the
 * caller then answers and stops reading (uws-server.ts `refuse`; uWS would otherwise go on reading the rest).
 * uWS reuses a chunk's memory after the callback returns: every kept chunk is copied.
 */
import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import type uWS from 'uWebSockets.js'
import { ApiError } from '../../engine/errors.js'
import { SPOOL_BUFFER_BYTES, type BodyBudget } from './body-budget.js'

/** The abort state of one request (uws-server.ts). */
export interface Aborted {
  aborted: boolean
  /** called once when the client goes away */
  onAbort?: () => void
  /** the answer ends with Connection: close (uws-server.ts) */
  closeAfter?: boolean
  /** the answer must reach the socket before the handler returns (uws-server.ts, writtenThrough) */
  writeThrough?: boolean
}

/** A body written to a temp file; the file is removed when the request ends. */
export interface SpooledBody {
  readonly path: string
  readonly bytes: number
  /** SHA-1 of the body, hex */
  readonly sha1: string
}

export function tooLarge(limit: number): ApiError {
  return new ApiError('payload_too_large', `the body is larger than ${limit} bytes`)
}

/** The answer when the in-flight bound is reached (a client should retry, or wait for others to finish). */
export function bodiesBusy(): ApiError {
  return new ApiError('unavailable', 'too many request bodies are being received right now; retry shortly', {
    headers: { 'retry-after': '1' }
  })
}

/** Bytes of the budget one buffered body holds; the caller releases `held` once its request has ended. */
export interface Reservation {
  held: number
}

/**
 * Reads a body into memory. `hold` starts with what the caller reserved (the declared length), or 0 for a
 * chunked body, whose pieces are reserved here as they arrive.
 */
export function readBuffered(
  res: uWS.HttpResponse,
  state: Aborted,
  limit: number,
  budget: BodyBudget,
  hold: Reservation
): Promise<Buffer | ApiError> {
  return new Promise((resolve) => {
    const parts: Buffer[] = []
    let size = 0
    let settled = false
    const settle = (out: Buffer | ApiError): void => {
      settled = true
      parts.length = 0
      resolve(out)
    }
    const prior = state.onAbort
    state.onAbort = () => {
      if (!settled) settle(new ApiError('invalid_body', 'the client went away'))
      prior?.()
    }
    res.onData((chunk, isLast) => {
      if (state.aborted || settled) return
      const n = chunk.byteLength
      budget.read(n)
      size += n
      if (size > limit) return settle(tooLarge(limit))
      if (size > hold.held) {
        if (!budget.reserve(size - hold.held)) return settle(bodiesBusy())
        hold.held = size
      }
      parts.push(Buffer.from(chunk.slice(0)))
      if (isLast) settle(Buffer.concat(parts, size))
    })
  })
}

/** A fresh temp file name in `dir`. */
function spoolPath(dir: string): string {
  return path.join(dir, `${crypto.randomUUID()}.body`)
}

export function removeSpool(file: string): void {
  fs.rm(file, { force: true }, () => undefined)
}

/** Streams a body to a temp file in `dir` (the caller holds a spool slot of the budget). */
export function spoolBody(
  res: uWS.HttpResponse,
  state: Aborted,
  limit: number,
  budget: BodyBudget,
  dir: string
): Promise<SpooledBody | ApiError> {
  return new Promise((resolve) => {
    const file = spoolPath(dir)
    const out = fs.createWriteStream(file, { flags: 'wx', mode: 0o600, highWaterMark: SPOOL_BUFFER_BYTES })
    const hash = crypto.createHash('sha1')
    let size = 0
    let settled = false
    let paused = false
    const fail = (err: ApiError): void => {
      if (settled) return
      settled = true
      out.destroy()
      removeSpool(file)
      resolve(err)
    }
    out.on('error', (cause) =>
      fail(
        new ApiError('unavailable', 'the server could not store the body; retry shortly', {
          cause,
          headers: { 'retry-after': '5' }
        })
      )
    )
    out.on('drain', () => {
      if (paused && !state.aborted && !settled) {
        paused = false
        res.resume()
      }
    })
    const prior = state.onAbort
    state.onAbort = () => {
      fail(new ApiError('invalid_body', 'the client went away'))
      prior?.()
    }
    res.onData((chunk, isLast) => {
      if (state.aborted || settled) return
      const n = chunk.byteLength
      budget.read(n)
      size += n
      if (size > limit) return fail(tooLarge(limit))
      const copy = Buffer.from(chunk.slice(0))
      hash.update(copy)
      if (!out.write(copy) && !isLast && !paused) {
        paused = true
        res.pause()
      }
      if (isLast) {
        out.end(() => {
          if (settled) return
          settled = true
          resolve({ path: file, bytes: size, sha1: hash.digest('hex') })
        })
      }
    })
  })
}
