/**
 * @module
 * Writing an answer to a uWS response: status, headers and body inside `cork`; a large body with `tryEnd` +
 * `onWritable` so a slow client does not make memory grow; a streamed body chunk by chunk, the next pulled
 * once uWS drained the previous one. Never touches `res` after an abort. `tryEndBackpressure()` counts large
 * plain bodies that had to wait on `onWritable` (tests read it to know the backpressure path was taken).
 */
import uWS from 'uWebSockets.js'
import type { App } from '../app.js'
import { writeHeaders } from './header-block.js'
import { statusLine } from './status-line.js'
import type { Aborted } from './uws-body.js'
import { isStreamBody, type HttpRequest, type HttpResponse, type StreamBody } from './types.js'

/** Bodies above this are sent in backpressured pieces (tryEnd/onWritable) instead of one end(). */
const STREAM_THRESHOLD = 256 * 1024

/**
 * Process-wide, never reset. `waited`: large plain bodies whose first `tryEnd` could not write everything
 * and so waited on `onWritable`; `resumed`: `onWritable` calls that wrote more of such a body.
 */
const backpressure = { waited: 0, resumed: 0 }

/** A copy of the tryEnd/onWritable counts (see `backpressure`). */
export function tryEndBackpressure(): { readonly waited: number; readonly resumed: number } {
  return { ...backpressure }
}

/**
 * Sends a streamed body: chunked transfer encoding, one chunk written at a time, the next pulled only
 * after uWS has drained the previous one (`write` false -> wait for `onWritable`).
 */
async function sendStream(res: uWS.HttpResponse, state: Aborted, out: HttpResponse, body: StreamBody): Promise<void> {
  const it = body.stream[Symbol.asyncIterator]()
  let drained: (() => void) | null = null
  state.onAbort = () => drained?.()
  const finish = async (): Promise<void> => {
    await it.return?.()
  }
  try {
    res.cork(() => {
      res.writeStatus(statusLine(out.status))
      for (const k in out.headers) res.writeHeader(k, out.headers[k]!)
    })
    for (;;) {
      if (state.aborted) return await finish()
      const next = await it.next()
      if (state.aborted) return await finish()
      if (next.done) break
      let ok = true
      res.cork(() => {
        ok = res.write(next.value)
      })
      if (!ok) {
        await new Promise<void>((resolve) => {
          drained = resolve
          res.onWritable(() => {
            drained = null
            resolve()
            return true
          })
        })
      }
    }
    if (!state.aborted) res.cork(() => res.end())
  } catch (err) {
    body.onError?.(err)
    await finish().catch(() => undefined)
    // no final chunk: the client sees a truncated transfer instead of a short file
    if (!state.aborted) res.close()
  }
}

/**
 * Sends an answer; true when it ended the response with `end` before returning (a plain body written at
 * once: no stream, no tryEnd still waiting on onWritable, not HEAD, whose `endWithoutBody` uWS does not
 * count as an answer to the handler). `inHandler`: called inside uWS' request handler, where the response
 * is already corked (uWS corks around its handlers), so the hot synchronous path skips the cork call and
 * its closure; answers sent later (after an await) cork themselves.
 */
export function send(
  res: uWS.HttpResponse,
  state: Aborted,
  out: HttpResponse,
  head: boolean,
  inHandler = false
): boolean {
  if (state.aborted) {
    if (isStreamBody(out.body)) void out.body.stream[Symbol.asyncIterator]().return?.()
    return false
  }
  const streamed = out.body
  if (isStreamBody(streamed)) {
    if (head) {
      void streamed.stream[Symbol.asyncIterator]().return?.()
      res.cork(() => {
        res.writeStatus(statusLine(out.status))
        for (const k in out.headers) res.writeHeader(k, out.headers[k]!)
        res.endWithoutBody()
      })
      return false
    }
    void sendStream(res, state, out, streamed)
    return false
  }
  if (inHandler) return writePlain(res, state, out, head)
  let ended = false
  res.cork(() => (ended = writePlain(res, state, out, head)))
  return ended
}

/**
 * Status, headers and a string or Buffer body (corked by the caller); true when the response was ended
 * (`end`, or a tryEnd that wrote everything), false for HEAD and for a body still being written.
 */
function writePlain(res: uWS.HttpResponse, state: Aborted, out: HttpResponse, head: boolean): boolean {
  const plain = state.writeThrough === true && !head ? writtenThrough(out) : (out.body as string | Buffer)
  const close = state.closeAfter === true
  // uWS writes `200 OK` itself before the first header or the body when no status was written
  if (out.status !== 200) res.writeStatus(statusLine(out.status))
  writeHeaders(res, out.headers)
  if (typeof plain === 'string' && plain.length <= STREAM_THRESHOLD / 4) {
    // small text bodies go to uWS as strings: no intermediate Buffer
    if (head) res.endWithoutBody(Buffer.byteLength(plain), close)
    else res.end(plain, close)
    return !head
  }
  const body = typeof plain === 'string' ? Buffer.from(plain) : plain
  if (head) {
    res.endWithoutBody(body.length, close)
    return false
  }
  if (body.length <= STREAM_THRESHOLD) {
    res.end(body, close)
    return true
  }
  // offsets from onWritable are global write offsets; the body starts at `start`
  const start = res.getWriteOffset()
  const [ok, done] = res.tryEnd(body, body.length)
  if (!ok && !done) {
    backpressure.waited++
    res.onWritable((offset) => {
      if (state.aborted) return true
      backpressure.resumed++
      const [sent] = res.tryEnd(body.subarray(offset - start), body.length)
      return sent
    })
  }
  return done
}

/**
 * uWS' cork buffer, bytes (LoopData CORK_BUFFER_SIZE in uWS 20.30): a response larger than this is written
 * to the socket at once instead of when the handler returns.
 */
const CORK_BUFFER_BYTES = 16 * 1024

/** A Content-Length uWS 20.30 can frame a body by: 1 to 9 digits. Other values (a 1 GiB length has 10) make
 * it close the connection once the handler returns, dropping whatever the handler wrote while corked. */
export const UWS_LENGTH = /^[0-9]{1,9}$/

/**
 * A JSON answer padded with trailing spaces (still the same JSON) past CORK_BUFFER_BYTES, so that uWS writes
 * it before the handler returns: for requests whose Content-Length uWS will not take (UWS_LENGTH), which
 * would otherwise be closed without the 413 or 400 that explains why.
 */
export function writtenThrough(out: HttpResponse): string | Buffer {
  const body = out.body as string | Buffer
  if (!(out.headers['content-type'] ?? '').startsWith('application/json')) return body
  const text = typeof body === 'string' ? body : body.toString('utf8')
  return text.length > CORK_BUFFER_BYTES ? text : text.padEnd(CORK_BUFFER_BYTES + 1, ' ')
}

/**
 * The answer when a request failed outside the application's own error handling (`handle` settles with an
 * error response and never rejects, so this is a bug): the error catalogue's answer (a 500) if the response
 * can still take one, else the connection is closed. Never throws: an unhandled rejection would end the
 * process, and with it every other connection.
 */
export function answerFailure(
  res: uWS.HttpResponse,
  state: Aborted,
  app: App,
  err: unknown,
  where: Pick<HttpRequest, 'method' | 'path'>,
  head: boolean
): void {
  try {
    send(res, state, app.errorResponse(err, where), head)
  } catch {
    try {
      res.close()
    } catch {
      // already gone
    }
  }
}
