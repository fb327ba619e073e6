/**
 * @module
 * CPU time of a process' main thread, from /proc (Linux): the thread that runs uWebSockets.js and every
 * request handler. Measured around a load round, divided by the requests served, it gives CPU µs per
 * request, which, unlike req/s, does not depend on whether the load generator or the server saturates
 * first on a shared machine. Background threads (the store's merges, workers) are not counted.
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'

let ticksPerSecond: number | undefined

/** Clock ticks per second of /proc's CPU times (`getconf CLK_TCK`, 100 on Linux). */
function hz(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100
    } catch {
      ticksPerSecond = 100
    }
  }
  return ticksPerSecond
}

/** User + system CPU in a /proc `stat` file (a process's or one thread's), ms. */
export function statCpuMs(file: string): number {
  const stat = fs.readFileSync(file, 'utf8')
  // fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return ((Number(rest[11]) + Number(rest[12])) * 1000) / hz()
}

/** User + system CPU of the main thread of `pid`, ms; NaN where /proc is not available. */
export function mainThreadCpuMs(pid: number): number {
  try {
    return statCpuMs(`/proc/${pid}/task/${pid}/stat`)
  } catch {
    return Number.NaN
  }
}

/** User + system CPU of every thread of `pid` (the store's merges, workers, the thread pool too), ms; NaN where /proc is not available. */
export function processCpuMs(pid: number): number {
  try {
    return statCpuMs(`/proc/${pid}/stat`)
  } catch {
    return Number.NaN
  }
}
