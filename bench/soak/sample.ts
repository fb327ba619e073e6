/**
 * @module
 * One memory sample of the soak's server process, read from outside it: resident size and its anonymous
 * part and thread count from /proc/<pid>/status (kB there, MB here), and from `/v1/health` the JS heap (used and
 * committed) and memory outside it held by JS, the webhook queue and the embedded engine's own memory figures (tracked memory and cache bytes, MB).
 */
import fs from 'node:fs'

export interface SoakSample {
  /** minutes since the load started */
  readonly t_min: number
  readonly rss_mb: number
  readonly rss_anon_mb: number
  readonly rss_file_mb: number
  readonly threads: number
  readonly heap_used_mb: number
  /** V8 heap committed, MB */
  readonly heap_total_mb: number
  /** ArrayBuffers and other memory outside the V8 heap held by JS, MB */
  readonly external_mb: number
  readonly webhooks_pending: number
  /** memory chDB tracks (its allocations through its allocator), MB */
  readonly engine_tracked_mb: number
  /** chDB's caches (mark, primary index, query condition, compiled expressions, ...) summed, MB */
  readonly engine_caches_mb: number
}

/** `/proc/<pid>/status` fields in kB (VmRSS, RssAnon, RssFile) and Threads. */
export function procStatus(pid: number): Record<string, number> {
  const out: Record<string, number> = {}
  for (const line of fs.readFileSync(`/proc/${pid}/status`, 'utf8').split('\n')) {
    const m = /^(VmRSS|RssAnon|RssFile|Threads):\s+(\d+)/.exec(line)
    if (m) out[m[1]!] = Number(m[2])
  }
  return out
}

export async function sample(pid: number, base: string, t0: number): Promise<SoakSample> {
  const s = procStatus(pid)
  const h = (await (await fetch(`${base}/v1/health`)).json()) as {
    process: { heap_used_mb: number; heap_total_mb: number; external_mb: number }
    webhooks?: { pending?: number }
    store: { engine_memory_mb?: Record<string, number> }
  }
  const engine = h.store.engine_memory_mb ?? {}
  const mb = (kb: number | undefined): number => Math.round((kb ?? 0) / 102.4) / 10
  return {
    t_min: Math.round(((performance.now() - t0) / 60_000) * 100) / 100,
    rss_mb: mb(s['VmRSS']),
    rss_anon_mb: mb(s['RssAnon']),
    rss_file_mb: mb(s['RssFile']),
    threads: s['Threads'] ?? 0,
    heap_used_mb: h.process.heap_used_mb,
    heap_total_mb: h.process.heap_total_mb,
    external_mb: h.process.external_mb,
    webhooks_pending: h.webhooks?.pending ?? 0,
    engine_tracked_mb: engine['tracked'] ?? 0,
    engine_caches_mb: Object.entries(engine).reduce((n, [k, v]) => (k === 'tracked' ? n : n + v), 0)
  }
}

/** Least-squares slope of `y` over `t_min` for the samples with from <= t_min <= to, per minute. */
export function slope(samples: readonly SoakSample[], key: keyof SoakSample, from: number, to: number): number {
  const xs = samples.filter((s) => s.t_min >= from && s.t_min <= to)
  if (xs.length < 2) return Number.NaN
  const mx = xs.reduce((a, s) => a + s.t_min, 0) / xs.length
  const my = xs.reduce((a, s) => a + s[key], 0) / xs.length
  let num = 0
  let den = 0
  for (const s of xs) {
    num += (s.t_min - mx) * (s[key] - my)
    den += (s.t_min - mx) ** 2
  }
  return Math.round((num / den) * 100) / 100
}
