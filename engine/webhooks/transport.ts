/**
 * @module
 * What delivery needs from HTTP (server/webhooks/undici-transport.ts implements it; tests pass fakes): POST
 * these bytes with these headers, and report the status or the error, the time taken and the start of the
 * answer. A transport never throws for a receiver's failure: refused addresses, timeouts, resets and TLS
 * errors are results with `error` set.
 */

export interface DeliveryRequest {
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: Buffer
  /** no answer within this time is a failure, ms */
  readonly timeoutMs: number
}

export interface DeliveryResult {
  /** the receiver's status; null when there was no answer */
  readonly status: number | null
  /** why there was no answer (e.g. `timeout after 10000 ms`, `refused: 127.0.0.1 is a loopback address`); null when there was one */
  readonly error: string | null
  /** from the start of the attempt to the end of the answer (or the failure), ms */
  readonly durationMs: number
  /** the first bytes of the answer's body, at most RESPONSE_EXCERPT_BYTES of UTF-8 */
  readonly excerpt: string
  /** the answer's Retry-After header, if any */
  readonly retryAfter: string | null
}

/** Longest response excerpt kept per attempt, bytes (<= 1 KiB, docs/webhooks.md). */
export const RESPONSE_EXCERPT_BYTES = 1_024

export interface WebhookTransport {
  send(req: DeliveryRequest): Promise<DeliveryResult>
  close(): Promise<void>
}
