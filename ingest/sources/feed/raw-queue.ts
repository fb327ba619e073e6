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
    const w = this.waiter
    this.waiter = undefined
    w?.()
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

  /** Resolves when a message is waiting, after `ms`, or on abort (one consumer). */
  wait(ms: number, signal: AbortSignal): Promise<void> {
    if (this.size > 0 || signal.aborted) return Promise.resolve()
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(t)
        signal.removeEventListener('abort', done)
        this.waiter = undefined
        resolve()
      }
      const t = setTimeout(done, ms)
      signal.addEventListener('abort', done)
      this.waiter = done
    })
  }
}
