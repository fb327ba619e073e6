/**
 * @module
 * A counting semaphore with a bounded wait queue: at most `permits` holders at once, at most `maxWaiters`
 * callers waiting; past that `acquire` rejects at once instead of queueing without limit.
 */

export class Semaphore {
  private available: number
  private readonly waiters: Array<() => void> = []

  constructor(
    permits: number,
    private readonly maxWaiters: number
  ) {
    this.available = permits
  }

  async acquire(): Promise<void> {
    if (this.available > 0) {
      this.available--
      return
    }
    if (this.waiters.length >= this.maxWaiters) throw new Error(`too many waiters (${this.maxWaiters})`)
    await new Promise<void>((resolve) => this.waiters.push(resolve))
  }

  release(): void {
    const next = this.waiters.shift()
    if (next) next()
    else this.available++
  }
}
