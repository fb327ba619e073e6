/**
 * @module
 * The block span of the next eth_getLogs call. Providers refuse large spans or large answers with messages
 * of their own ("query returned more than 10000 results", "block range is too wide", "range too large",
 * "limit exceeded", -32005), and a node asked for too much may simply not answer in time (the chain client's
 * "no answer within", viem's "took too long"). On such an error the span halves (down to 1 block); after
 * GROW_AFTER calls in a row without one it doubles again, up to `max`. Any other error is not a size problem
 * and is rethrown, as is a rate limit (HTTP 429, "too many requests": asking for less would only ask more often).
 */

/** spans that succeed in a row before the span doubles */
export const GROW_AFTER = 4

/** error texts of providers and nodes that mean "ask for less" (lower-case substrings) */
const SIZE_ERRORS = [
  'more than',
  'too many',
  'range',
  'too large',
  'too big',
  'limit exceeded',
  'exceed',
  'response size',
  'query timeout',
  '-32005',
  // a span the node could not answer in time: the chain client's timeout, viem's, a provider's
  'no answer within',
  'took too long',
  'timed out'
]

/**
 * phrases of a rate limit: never a size problem, even where they say "too many" or "exceeded". The status 429
 * is read from the error's `status` or `code`, never from its text: viem's message quotes the request body,
 * whose block numbers and id may hold the digits 429
 */
const RATE_LIMITS = ['too many requests', 'rate limit', 'request budget']

/** True when the error (or a cause) says the span or the answer was too large, false when one is a rate limit. */
export function isRangeError(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e !== undefined && e !== null && depth < 6; depth++) {
    const text =
      `${(e as { message?: string }).message ?? ''} ${(e as { details?: string }).details ?? ''} ${String((e as { code?: unknown }).code ?? '')}`.toLowerCase()
    const status = (e as { status?: unknown }).status
    if (status === 429 || (e as { code?: unknown }).code === 429) return false
    if (RATE_LIMITS.some((s) => text.includes(s))) return false
    if (SIZE_ERRORS.some((s) => text.includes(s))) return true
    e = (e as { cause?: unknown }).cause
  }
  return false
}

export class RangeChunker {
  /** current span, blocks */
  span: number
  private streak = 0
  /** times the span was halved */
  halvings = 0

  constructor(
    readonly max: number,
    initial = max
  ) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`max span must be an integer >= 1, got ${max}`)
    this.span = Math.min(Math.max(1, initial), max)
  }

  /** `fetch(from, to)` over [from, to] in spans; returns each span's results in order. */
  async run<T>(
    from: number,
    to: number,
    fetch: (from: number, to: number) => Promise<T>,
    each: (r: T, from: number, to: number) => void | Promise<void>
  ): Promise<void> {
    let at = from
    while (at <= to) {
      const end = Math.min(to, at + this.span - 1)
      let result: T
      try {
        result = await fetch(at, end)
      } catch (err) {
        if (!isRangeError(err) || this.span === 1) throw err
        this.span = Math.max(1, Math.floor(this.span / 2))
        this.streak = 0
        this.halvings += 1
        continue
      }
      await each(result, at, end)
      at = end + 1
      if (++this.streak >= GROW_AFTER && this.span < this.max) {
        this.span = Math.min(this.max, this.span * 2)
        this.streak = 0
      }
    }
  }
}
