/**
 * @module
 * Concurrent calls with one key share one run: a call made while a run of its key is in flight gets that
 * run's promise (its value or its error) instead of starting another. Nothing is kept once a run settles,
 * so an answer is never older than the run that was in flight when it was asked for, and the map holds at
 * most one entry per key in flight (bounded by the requests the server admits at once).
 */
export class SingleFlight<T> {
  private readonly running = new Map<string, Promise<T>>()

  /** `fn()` for `key`, or the promise of the run of `key` already in flight. */
  run(key: string, fn: () => Promise<T>): Promise<T> {
    const held = this.running.get(key)
    if (held) return held
    const p = fn().finally(() => this.running.delete(key))
    this.running.set(key, p)
    return p
  }

  /** keys in flight */
  get size(): number {
    return this.running.size
  }
}
