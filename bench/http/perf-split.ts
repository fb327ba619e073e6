/**
 * @module
 * Where a server's main thread spends its time during a load round, from Linux `perf` (optional: the hot
 * reads bench uses it with `BENCH_READ_PERF=1` when `perf` is on PATH). `perf record -g -t <main thread>`
 * samples the thread for the round; each sample's call stack puts it in one group:
 *
 * - `request JS`: under uWS' request handler with a JavaScript frame (the adapter, access, validation, the
 *   route's handler, writing the answer, and the V8 builtins they call);
 * - `request native`: under uWS' request handler without a JavaScript frame (uWS.js' argument conversion,
 *   entering and leaving JavaScript);
 * - `socket and kernel`: uWS' socket loop outside the handler, syscalls, libc and the kernel's TCP path;
 * - `timers`, `libuv completions` (store queries, file I/O, workers), `immediates`: the server's own work
 *   beside the requests (the demo feed, the signal engine, stream ticks);
 * - `other`: the rest (GC outside a request, V8's foreground tasks, unresolved frames).
 *
 * Divided by the round's requests, each group gives µs per request. The server must run with
 * `--perf-basic-prof` for JavaScript frames to have names.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'

/** Sampling frequency, Hz: ~3,000 samples per busy second, light enough not to move the figures. */
const PERF_HZ = 2999

export type PerfGroup =
  'request JS' | 'request native' | 'socket and kernel' | 'timers' | 'libuv completions' | 'immediates' | 'other'

/** Whether `perf` can be run (installed, and allowed by perf_event_paranoid or root). */
export function perfAvailable(): boolean {
  try {
    execFileSync('perf', ['--version'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

/** Starts sampling thread `tid` into `file` for `seconds`; resolves when perf has written the file. */
export function perfRecord(tid: number, file: string, seconds: number): Promise<void> {
  const args = ['record', '-F', String(PERF_HZ), '-g', '-t', String(tid), '-o', file, '--', 'sleep', String(seconds)]
  const child: ChildProcess = spawn('perf', args, { stdio: 'ignore' })
  return new Promise((resolve) => child.once('exit', () => resolve()))
}

/** The group of one sample, from its frames (leaf first). */
export function groupOf(frames: readonly string[]): PerfGroup {
  const has = (re: RegExp): boolean => frames.some((f) => re.test(f))
  if (has(/uWS_App_get/)) return has(/JS:/) ? 'request JS' : 'request native'
  // V8's own tasks (a scavenge or a marking step run as a foreground task) wake the loop like a completion
  if (has(/FlushForegroundTasks/)) return 'other'
  if (has(/uv__run_timers|RunTimers/)) return 'timers'
  if (has(/uv__work_done|uv__async_io|MakeLibuvRequestCallback/)) return 'libuv completions'
  if (has(/CheckImmediate|uv__run_check/)) return 'immediates'
  if (has(/JS:|Scavenge|MarkCompact/)) return 'other'
  // syscalls, libc and the kernel, uWS' loop: stacks through them are cut short (no frame pointers)
  return 'socket and kernel'
}

/** The samples of a `perf record` file as `perf script` prints them. */
export function perfScript(file: string): string {
  return execFileSync('perf', ['script', '-i', file], {
    maxBuffer: 1 << 30,
    stdio: ['ignore', 'pipe', 'ignore']
  }).toString()
}

/** CPU µs per request of each group in a `perf record` file; `requests` served during the recording. */
export function perfSplit(file: string, requests: number): Record<PerfGroup, number> {
  const text = perfScript(file)
  const out: Record<PerfGroup, number> = {
    'request JS': 0,
    'request native': 0,
    'socket and kernel': 0,
    timers: 0,
    'libuv completions': 0,
    immediates: 0,
    other: 0
  }
  for (const sample of text.split('\n\n')) {
    const lines = sample.split('\n').filter((l) => l.trim() !== '')
    if (lines.length === 0) continue
    // "node 123 4567.89:     333444 cpu-clock:ppp:": the sample's period in ns
    const period = Number(/:\s+(\d+)\s+cpu-clock/.exec(lines[0]!)?.[1] ?? 1e9 / PERF_HZ)
    out[groupOf(lines.slice(1).map((l) => l.trim()))] += period / 1000
  }
  for (const k of Object.keys(out) as PerfGroup[]) out[k] = Math.round((out[k] / requests) * 100) / 100
  return out
}
