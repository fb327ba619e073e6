/**
 * @module
 * Background liveness probe of the store, so `/v1/health` answers from memory (it is polled often and
 * must stay cheap) while still reporting a store that stopped answering. For the embedded store it also
 * reads the engine's own memory figures (`system.metrics`): memory the engine tracks and the bytes held by
 * its caches, so native memory that the JS heap does not show is visible in health.
 */
import type { Store } from '../engine/store/store.js'

/** Probe period, ms: a dead store shows in health within this time. */
const PROBE_MS = 5_000

/** `system.metrics` names read, and their key in health (MB). */
const ENGINE_METRICS: Readonly<Record<string, string>> = {
  MemoryTracking: 'tracked',
  MarkCacheBytes: 'mark_cache',
  PrimaryIndexCacheBytes: 'primary_index_cache',
  UncompressedCacheBytes: 'uncompressed_cache',
  QueryConditionCacheBytes: 'query_condition_cache',
  CompiledExpressionCacheBytes: 'compiled_expression_cache',
  QueryCacheBytes: 'query_cache'
}
const ENGINE_SQL = `SELECT metric, value FROM system.metrics WHERE metric IN (${Object.keys(ENGINE_METRICS)
  .map((m) => `'${m}'`)
  .join(', ')})`

/** The embedded engine's memory as of the last probe, MB (rounded); keys as ENGINE_METRICS' values. */
export type EngineMemory = Record<string, number>

export class StoreProbe {
  ok = true
  lastError: string | null = null
  /** the embedded engine's memory as of the last probe; null for a remote store or before the first probe */
  engineMemory: EngineMemory | null = null
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
      return
    }
    if (this.store.kind !== 'chdb') return
    try {
      const rows = await this.store.query<{ metric: string; value: number }>(ENGINE_SQL)
      const out: EngineMemory = {}
      for (const r of rows) out[ENGINE_METRICS[r.metric]!] = Math.round(Number(r.value) / 1048576)
      this.engineMemory = out
    } catch {
      // figures only: a failed read leaves the last ones (liveness is the probe above)
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
