/**
 * @module
 * Process figures for `/v1/health`: resident memory and event-loop lag. Lag is measured directly: a timer
 * due every SAMPLE_MS records how late it fired; percentiles cover the last complete WINDOW_MS window
 * (bounded: WINDOW_MS / SAMPLE_MS samples), so a stall shows for one window.
 */
import { performance } from 'node:perf_hooks'

/** Length of one measurement window, ms. */
const WINDOW_MS = 10_000
/** Lag sampling period, ms; a stall shorter than this can be missed. */
const SAMPLE_MS = 20
/** Memory is read every this many samples (1 s): reading it costs a /proc read, too dear per request. */
const MEMORY_EVERY = 50

export interface ProcessStats {
  readonly rss_mb: number
  readonly heap_used_mb: number
  /** V8 heap committed (used plus free space it keeps), MB: resident even when `heap_used_mb` falls after a collection */
  readonly heap_total_mb: number
  /** memory of ArrayBuffers and other objects outside the V8 heap that JS holds, MB */
  readonly external_mb: number
  /** event-loop lag over the last complete window, ms */
  readonly event_loop_delay_ms: { readonly p50: number; readonly p99: number; readonly max: number }
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}

export class ProcessMonitor {
  private samples: number[] = []
  private windowStart = performance.now()
  private expected = performance.now() + SAMPLE_MS
  private last = { p50: 0, p99: 0, max: 0 }
  private memory = { rss_mb: 0, heap_used_mb: 0, heap_total_mb: 0, external_mb: 0 }
  private tick = 0
  private readonly timer: NodeJS.Timeout

  constructor() {
    this.readMemory()
    this.timer = setInterval(() => this.sample(), SAMPLE_MS)
    this.timer.unref()
  }

  private readMemory(): void {
    const mem = process.memoryUsage()
    const mb = (n: number): number => Math.round(n / 1048576)
    this.memory = {
      rss_mb: mb(mem.rss),
      heap_used_mb: mb(mem.heapUsed),
      heap_total_mb: mb(mem.heapTotal),
      external_mb: mb(mem.external)
    }
  }

  private sample(): void {
    if (++this.tick % MEMORY_EVERY === 0) this.readMemory()
    const now = performance.now()
    this.samples.push(Math.max(0, now - this.expected))
    this.expected = now + SAMPLE_MS
    if (now - this.windowStart >= WINDOW_MS) {
      const sorted = this.samples.sort((a, b) => a - b)
      const round = (x: number): number => Math.round(x * 100) / 100
      this.last = {
        p50: round(percentile(sorted, 50)),
        p99: round(percentile(sorted, 99)),
        max: round(sorted.at(-1) ?? 0)
      }
      this.samples = []
      this.windowStart = now
    }
  }

  /** Memory as of the last second, lag of the last complete window. */
  stats(): ProcessStats {
    return { ...this.memory, event_loop_delay_ms: this.last }
  }

  stop(): void {
    clearInterval(this.timer)
  }
}
