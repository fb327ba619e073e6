/**
 * @module
 * The bounded buffer between venue sockets and the normalizer. Sockets cannot be slowed without the venue
 * disconnecting us, so when the buffer is full a message is dropped and counted (`dropped` in
 * `/v1/health`); a dropped trade also shows up as an aggTrade id gap and is backfilled over REST.
 */

/** A venue message as received: channel `ws` or the REST path, its text and its receive time. */
export interface RawMessage {
  readonly channel: string
  readonly text: string
  /** receive time, epoch ms */
  readonly recvTs: number
}

export class RawQueue {
  private readonly ring: (RawMessage | undefined)[]
  private head = 0
  private size = 0
  private waiter: (() => void) | undefined
  /** messages refused because the queue was full */
  dropped = 0

  constructor(readonly capacity: number) {
    this.ring = new Array<RawMessage | undefined>(capacity)
  }

  get length(): number {
    return this.size
  }

  /** Adds a message; false (and counted) when the queue is full. */
  push(msg: RawMessage): boolean {
    if (this.size === this.capacity) {
      this.dropped++
      return false
    }
    this.ring[(this.head + this.size) % this.capacity] = msg
    this.size++
    if (this.waiter) this.wake()
    return true
  }

  shift(): RawMessage | undefined {
    if (this.size === 0) return undefined
    const msg = this.ring[this.head]
    this.ring[this.head] = undefined
    this.head = (this.head + 1) % this.capacity
    this.size--
    return msg
  }

  /** the signal whose abort wakes the consumer (one listener for its whole life, not one per wait) */
  private hooked: AbortSignal | null = null

  /**
   * Resolves when a message is waiting or `signal` aborted (one consumer). No timer and no listener per
   * wait: a wait is taken once per drained batch, up to once per message at a quiet rate.
   */
  wait(signal: AbortSignal): Promise<void> {
    if (this.size > 0 || signal.aborted) return Promise.resolve()
    if (this.hooked !== signal) {
      this.hooked = signal
      signal.addEventListener('abort', () => this.wake(), { once: true })
    }
    return new Promise((resolve) => (this.waiter = resolve))
  }

  private wake(): void {
    const w = this.waiter
    this.waiter = undefined
    w?.()
  }
}
