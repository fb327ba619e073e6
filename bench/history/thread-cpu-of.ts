/**
 * @module
 * CPU seconds of another process's threads grouped by thread name (Linux `/proc/<pid>/task/<tid>/stat`,
 * utime + stime): which of the server's threads an export's time went to (the main thread that encodes and
 * sends, chDB's query pipeline threads, its background merges `MergeMutate`; `node`: threads the runtime
 * starts unnamed, V8's platform workers (in an export, profiled with perf: concurrent marking and sweeping of
 * its garbage collections) and libuv's pool).
 * Threads that start and end between two snapshots are not counted. Elsewhere than Linux: empty.
 */
import fs from 'node:fs'
import { statCpuMs } from '../http/cpu.js'

/** thread id -> [thread name, CPU ms so far] */
export type ThreadCpuSnapshot = ReadonlyMap<string, readonly [string, number]>

export function threadCpuOf(pid: number): ThreadCpuSnapshot {
  const snap = new Map<string, readonly [string, number]>()
  let tids: string[]
  try {
    tids = fs.readdirSync(`/proc/${pid}/task`)
  } catch {
    return snap
  }
  for (const tid of tids) {
    try {
      const file = `/proc/${pid}/task/${tid}/stat`
      const stat = fs.readFileSync(file, 'utf8')
      // "<tid> (<name>) ...": the name may hold spaces, so cut at the last ')'
      let name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))
      if (tid === String(pid)) name = 'main'
      snap.set(tid, [name, statCpuMs(file)])
    } catch {
      // the thread ended since the listing
    }
  }
  return snap
}

/** CPU seconds per thread name between two snapshots (threads under 0.01 s left out), largest first. */
export function threadCpuDiff(before: ThreadCpuSnapshot, after: ThreadCpuSnapshot): Record<string, number> {
  const by = new Map<string, number>()
  for (const [tid, [name, ms]] of after) {
    const d = ms - (before.get(tid)?.[1] ?? 0)
    // pool threads carry their index (e.g. `QueryPipelineEx`): grouped by the name as the kernel keeps it
    by.set(name, (by.get(name) ?? 0) + d)
  }
  return Object.fromEntries(
    [...by]
      .filter(([, ms]) => ms >= 10)
      .sort((a, b) => b[1] - a[1])
      .map(([name, ms]) => [name, Math.round(ms / 10) / 100])
  )
}
