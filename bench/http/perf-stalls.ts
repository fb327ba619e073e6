/**
 * @module
 * The main thread's background slices during a load round, from the same `perf record` file as
 * perf-split.ts: a slice is a run of consecutive samples outside the request path (timers, libuv
 * completions, immediates, GC and other work outside uWS' handler). While a slice runs no request is
 * served, so every request in flight waits for it: long slices make the tail latency, whatever their share
 * of the CPU. Lengths are CPU time of the thread (samples x period), so a slice is not lengthened by the
 * thread being descheduled on a loaded machine. Each slice is named by its outermost frame from the
 * project's code (`dist/`), else `GC` or its group. A slice also ends where the thread was off the CPU
 * (two samples further apart in time than their period and a half: idle, or descheduled on a loaded
 * machine), so background work separated only by idle time does not count as one slice far from
 * saturation; a slice descheduled midway counts as two, so on a loaded machine lengths are lower bounds.
 */
import { groupOf, perfScript } from './perf-split.js'

/** Slice lengths counted, CPU ms (a slice of at least this many). */
const LENGTHS_MS = [0.5, 1, 2, 5, 10] as const
/** Names listed at most, by CPU in slices of 1 ms or more. */
const NAMES_MAX = 12

export interface PerfStalls {
  /** slices of at least each length, per second of the round: `{">=1ms": 3.2, ...}` */
  readonly per_s: Record<string, number>
  /** CPU ms in slices of 1 ms or more, per second of the round */
  readonly ms_per_s_over_1ms: number
  /** the longest slice, CPU ms */
  readonly longest_ms: number
  /** by name, slices of 1 ms or more: count and CPU ms per second of the round, and the longest (ms) */
  readonly by_name: Record<string, { per_s: number; ms_per_s: number; longest_ms: number }>
}

interface Sample {
  /** the sample's period, ns of the thread's CPU time */
  readonly ns: number
  /** when it was taken, ns (perf's clock) */
  readonly at: number
  readonly frames: readonly string[]
}

/** Off-CPU time that ends a slice: a gap between samples beyond this share of the period. */
const OFF_CPU_GAP = 1.5

const BACKGROUND = new Set(['timers', 'libuv completions', 'immediates', 'other'])

/** The name of a slice's sample: its outermost project frame (`JS:*pass file:///.../dist/x.js:1:2`). */
function nameOf(frames: readonly string[]): string {
  for (let i = frames.length - 1; i >= 0; i--) {
    const m = /JS:[*~^]?(\S*) file:\/\/\/\S*?\/dist\/(\S+?):\d+:\d+/.exec(frames[i]!)
    if (m) return `${m[1] || '(anonymous)'} ${m[2]}`
  }
  if (frames.some((f) => /Scavenge|MarkCompact|Heap::CollectGarbage/.test(f))) return 'GC'
  return groupOf(frames)
}

/** Parses `perf script` text into samples (period ns and frames, leaf first), in time order. */
export function perfSamples(text: string): Sample[] {
  const out: Sample[] = []
  for (const block of text.split('\n\n')) {
    const lines = block.split('\n').filter((l) => l.trim() !== '')
    if (lines.length === 0) continue
    // "node 123 4567.891234:     333444 cpu-clock:ppp:": time in s, period in ns
    const head = /\s(\d+)\.(\d+):\s+(\d+)\s+cpu-clock/.exec(lines[0]!)
    if (!head) continue
    const at = Number(head[1]) * 1e9 + Number(head[2]!.padEnd(9, '0').slice(0, 9))
    out.push({ ns: Number(head[3]), at, frames: lines.slice(1).map((l) => l.trim()) })
  }
  return out
}

/** The background slices of a round of `seconds`, from its samples (perfSamples). */
export function perfStalls(samples: readonly Sample[], seconds: number): PerfStalls {
  const slices: { ms: number; names: Map<string, number> }[] = []
  let cur: { ms: number; names: Map<string, number> } | null = null
  let prevAt = -Infinity
  for (const s of samples) {
    const offCpu = s.at - prevAt > s.ns * OFF_CPU_GAP
    prevAt = s.at
    if (offCpu && cur) {
      slices.push(cur)
      cur = null
    }
    if (!BACKGROUND.has(groupOf(s.frames))) {
      if (cur) slices.push(cur)
      cur = null
      continue
    }
    cur ??= { ms: 0, names: new Map() }
    const ms = s.ns / 1e6
    cur.ms += ms
    const name = nameOf(s.frames)
    cur.names.set(name, (cur.names.get(name) ?? 0) + ms)
  }
  if (cur) slices.push(cur)
  const r = (x: number): number => Math.round(x * 100) / 100
  const perS = Object.fromEntries(
    LENGTHS_MS.map((l) => [`>=${l}ms`, r(slices.filter((x) => x.ms >= l).length / seconds)])
  )
  const long = slices.filter((x) => x.ms >= 1)
  const byName = new Map<string, { n: number; ms: number; longest: number }>()
  for (const x of long) {
    // a slice is named by where most of its CPU went
    const name = [...x.names].sort((a, b) => b[1] - a[1])[0]![0]
    const e = byName.get(name) ?? { n: 0, ms: 0, longest: 0 }
    e.n++
    e.ms += x.ms
    e.longest = Math.max(e.longest, x.ms)
    byName.set(name, e)
  }
  return {
    per_s: perS,
    ms_per_s_over_1ms: r(long.reduce((a, x) => a + x.ms, 0) / seconds),
    longest_ms: r(Math.max(0, ...slices.map((x) => x.ms))),
    by_name: Object.fromEntries(
      [...byName]
        .sort((a, b) => b[1].ms - a[1].ms)
        .slice(0, NAMES_MAX)
        .map(([k, e]) => [k, { per_s: r(e.n / seconds), ms_per_s: r(e.ms / seconds), longest_ms: r(e.longest) }])
    )
  }
}

/** The background slices of a `perf record` file of a round of `seconds`. */
export function perfStallsOf(file: string, seconds: number): PerfStalls {
  return perfStalls(perfSamples(perfScript(file)), seconds)
}
