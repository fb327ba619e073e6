/**
 * @module
 * The one counting semaphore of the service: at most `permits` holders at once and at most `maxWaiters`
 * callers waiting, so nothing queues without limit. A caller that finds the line full is refused at once
 * (`acquire` rejects with `SemaphoreFullError`); `tryAcquire` takes a permit only when one is free (no
 * wait). A release hands its permit straight to the longest waiter (first come, first served).
 * Used by the chDB session pool, password hashing, the export slots and the worker pool.
 */

/** `acquire` found `maxWaiters` callers already waiting. */
export class SemaphoreFullError extends Error {
  constructor(readonly maxWaiters: number) {
    super(`too many waiters (${maxWaiters})`)
    this.name = 'SemaphoreFullError'
  }
}

export class Semaphore {
  private available: number
  private readonly waiters: Array<() => void> = []

  constructor(
    /** holders at once */
    readonly permits: number,
    /** callers allowed to wait at once (0: never wait) */
    private readonly maxWaiters: number
  ) {
    this.available = permits
  }

  /** Waits for a permit; rejects at once with `SemaphoreFullError` when the line is full. */
  async acquire(): Promise<void> {
    if (this.available > 0) {
      this.available--
      return
    }
    if (this.waiters.length >= this.maxWaiters) throw new SemaphoreFullError(this.maxWaiters)
    await new Promise<void>((resolve) => this.waiters.push(resolve))
  }

  /** Takes a permit if one is free now; false otherwise (nothing taken, no wait). */
  tryAcquire(): boolean {
    if (this.available <= 0) return false
    this.available--
    return true
  }

  /** Gives a permit back: to the longest waiter, else to the pool. Call once per permit taken. */
  release(): void {
    const next = this.waiters.shift()
    if (next) next()
    else this.available++
  }

  /** Runs `fn` holding a permit (released when it settles). */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    await this.acquire()
    try {
      return await fn()
    } finally {
      this.release()
    }
  }

  /** Permits held now. */
  get inUse(): number {
    return this.permits - this.available
  }

  /** Callers waiting now. */
  get waiting(): number {
    return this.waiters.length
  }
}
