/**
 * @module
 * Background liveness probe of the store, so `/v1/health` answers from memory (it is polled often and
 * must stay cheap) while still reporting a store that stopped answering.
 */
import type { Store } from '../engine/store/store.js'

/** Probe period, ms: a dead store shows in health within this time. */
const PROBE_MS = 5_000

export class StoreProbe {
  ok = true
  lastError: string | null = null
  private timer: NodeJS.Timeout | undefined

  constructor(private readonly store: Store) {}

  async probe(): Promise<void> {
    try {
      await this.store.query('SELECT 1 AS ok')
      this.ok = true
      this.lastError = null
    } catch (err) {
      this.ok = false
      this.lastError = (err as Error).message
    }
  }

  start(): void {
    this.timer = setInterval(() => void this.probe(), PROBE_MS)
    this.timer.unref()
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer)
  }
}
