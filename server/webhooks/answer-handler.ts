/**
 * @module
 * Reads a receiver's answer to one delivery as undici's core delivers it (its handler interface, called
 * directly: see AnswerHandler): the status, `Retry-After`, and the first RESPONSE_EXCERPT_BYTES of the body as UTF-8. No response stream
 * is built per delivery (undici's `request` wraps every answer in a Readable: measured ~4 µs of CPU per
 * delivery more, bench/webhooks). A body is read to DRAIN_LIMIT_BYTES so the connection can be reused;
 * past that the request is aborted (the connection dropped), keeping the status and excerpt.
 */
import { StringDecoder } from 'node:string_decoder'
import { RESPONSE_EXCERPT_BYTES } from '../../engine/webhooks/transport.js'

/** Body bytes read past the excerpt before the connection is dropped instead of drained. */
export const DRAIN_LIMIT_BYTES = 64 * 1024

/** What the handler learned; `error` is set only when no answer came (`status` null). */
export interface Answer {
  readonly status: number | null
  readonly retryAfter: string | null
  readonly excerpt: string
  /** the failure before any answer (connect, TLS, timeout, reset, refused address) */
  readonly error: unknown
}

/**
 * One decoder for every excerpt (single-threaded, used synchronously): a new StringDecoder per answer
 * allocates a buffer of its own. `end()` after each write drops what the write held back (a character cut
 * at the limit) and resets it, so each excerpt decodes as by a fresh decoder.
 */
const decoder = new StringDecoder('utf8')

/** `new StringDecoder('utf8').write(bytes)`: UTF-8 text without a trailing incomplete character. */
export function decodeExcerpt(bytes: Buffer): string {
  const text = decoder.write(bytes)
  decoder.end()
  return text
}

/** The answer-too-long abort: the status and excerpt stand, it is no error of the attempt. */
class DrainLimit extends Error {}

/** `retry-after` as bytes: raw header names are compared to it without building a header object. */
const RETRY_AFTER = Buffer.from('retry-after', 'latin1')

/**
 * The answer's `Retry-After` from undici's raw headers (name, value, name, value, ...; Buffers, or strings
 * in some paths): the first header of that name in any case, as latin1 text, else null. The same as
 * undici's `parseHeaders(raw)['retry-after']` (its first value when repeated), without the object and a
 * string per header that building it costs per delivery (test/unit/webhook-fast-paths.test.ts).
 */
export function retryAfterOf(raw: readonly (Buffer | string | string[])[]): string | null {
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!
    if (name.length !== RETRY_AFTER.length) continue
    const same =
      typeof name === 'string'
        ? name.toLowerCase() === 'retry-after'
        : Buffer.isBuffer(name) && asciiLowerEquals(name, RETRY_AFTER)
    if (!same) continue
    const v = raw[i + 1]!
    return typeof v === 'string' ? v : Array.isArray(v) ? (v[0] ?? null) : v.toString('latin1')
  }
  return null
}

/** `a` equals the lower-case ASCII `lower` ignoring ASCII case (what undici's header-name lookup does). */
function asciiLowerEquals(a: Buffer, lower: Buffer): boolean {
  for (let i = 0; i < lower.length; i++) {
    const c = a[i]!
    if ((c >= 0x41 && c <= 0x5a ? c | 0x20 : c) !== lower[i]) return false
  }
  return true
}

/**
 * undici's handler interface as its core calls it (onConnect, onHeaders, onData, onComplete, onError):
 * a handler with the newer `onRequestStart`/`onResponseStart` methods is wrapped per request by undici
 * (an UnwrapHandler and its controller, and every answer's headers and trailers parsed into objects);
 * this one is called directly, and reads the one header it needs from the raw list.
 */
export class AnswerHandler {
  private status: number | null = null
  private retryAfter: string | null = null
  /**
   * body bytes kept for the excerpt (at most RESPONSE_EXCERPT_BYTES in all): the first chunk, and every
   * chunk kept in order once there is more than one (no array for the usual one-chunk answer)
   */
  private first: Buffer | null = null
  private more: Buffer[] | null = null
  private keptBytes = 0
  private seen = 0
  private done = false
  private abort: ((reason?: Error) => void) | null = null

  constructor(private readonly finish: (a: Answer) => void) {}

  onConnect(abort: (reason?: Error) => void): void {
    this.abort = abort
  }

  onHeaders(statusCode: number, rawHeaders: (Buffer | string | string[])[]): boolean {
    if (statusCode < 200) return true // informational: the answer is still to come
    this.status = statusCode
    this.retryAfter = retryAfterOf(rawHeaders)
    return true
  }

  onData(chunk: Buffer): boolean {
    this.seen += chunk.length
    const room = RESPONSE_EXCERPT_BYTES - this.keptBytes
    if (room > 0) {
      // a chunk that fits whole is kept as it is (the same bytes as a subarray of all of it)
      const part = chunk.length <= room ? chunk : chunk.subarray(0, room)
      if (this.first === null) this.first = part
      else (this.more ??= [this.first]).push(part)
      this.keptBytes += part.length
    }
    if (this.seen > DRAIN_LIMIT_BYTES) this.abort?.(new DrainLimit(`answer longer than ${DRAIN_LIMIT_BYTES} bytes`))
    return true
  }

  onComplete(): void {
    this.end(null)
  }

  onError(err: Error): void {
    this.end(this.status === null && !(err instanceof DrainLimit) ? err : null)
  }

  private end(error: unknown): void {
    if (this.done) return
    this.done = true
    // the decoder holds back a character cut at the limit, so the excerpt stays valid UTF-8 within 1 KiB
    // (one chunk, the usual short answer, is decoded as it is: no copy into a new buffer)
    const excerpt =
      this.keptBytes === 0
        ? ''
        : decodeExcerpt(this.more === null ? this.first! : Buffer.concat(this.more, this.keptBytes))
    this.finish({ status: this.status, retryAfter: this.retryAfter, excerpt, error })
  }
}
