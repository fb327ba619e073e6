/**
 * @module
 * Reads a receiver's answer to one delivery as undici delivers it (a `Dispatcher.DispatchHandler`): the
 * status, `Retry-After`, and the first RESPONSE_EXCERPT_BYTES of the body as UTF-8. No response stream
 * is built per delivery (undici's `request` wraps every answer in a Readable: measured ~4 µs of CPU per
 * delivery more, bench/webhooks). A body is read to DRAIN_LIMIT_BYTES so the connection can be reused;
 * past that the request is aborted (the connection dropped), keeping the status and excerpt.
 */
import { StringDecoder } from 'node:string_decoder'
import type { Dispatcher } from 'undici'
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

export class AnswerHandler implements Dispatcher.DispatchHandler {
  private status: number | null = null
  private retryAfter: string | null = null
  /** body bytes kept for the excerpt (at most RESPONSE_EXCERPT_BYTES) and seen in all */
  private readonly kept: Buffer[] = []
  private keptBytes = 0
  private seen = 0
  private done = false

  constructor(private readonly finish: (a: Answer) => void) {}

  onRequestStart(): void {}

  onResponseStart(
    _c: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>
  ): void {
    if (statusCode < 200) return // informational: the answer is still to come
    this.status = statusCode
    const ra = headers['retry-after']
    this.retryAfter = typeof ra === 'string' ? ra : (ra?.[0] ?? null)
  }

  onResponseData(c: Dispatcher.DispatchController, chunk: Buffer): void {
    this.seen += chunk.length
    if (this.keptBytes < RESPONSE_EXCERPT_BYTES) {
      const part = chunk.subarray(0, RESPONSE_EXCERPT_BYTES - this.keptBytes)
      this.kept.push(part)
      this.keptBytes += part.length
    }
    if (this.seen > DRAIN_LIMIT_BYTES) c.abort(new DrainLimit(`answer longer than ${DRAIN_LIMIT_BYTES} bytes`))
  }

  onResponseEnd(): void {
    this.end(null)
  }

  onResponseError(_c: Dispatcher.DispatchController, err: Error): void {
    this.end(this.status === null && !(err instanceof DrainLimit) ? err : null)
  }

  private end(error: unknown): void {
    if (this.done) return
    this.done = true
    // the decoder holds back a character cut at the limit, so the excerpt stays valid UTF-8 within 1 KiB
    // (one chunk, the usual short answer, is decoded as it is: no copy into a new buffer)
    const kept = this.kept
    const excerpt =
      this.keptBytes === 0 ? '' : decodeExcerpt(kept.length === 1 ? kept[0]! : Buffer.concat(kept, this.keptBytes))
    this.finish({ status: this.status, retryAfter: this.retryAfter, excerpt, error })
  }
}
