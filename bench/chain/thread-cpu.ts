/**
 * @module
 * Where a benchmark process's CPU goes, per kind of thread (Linux `/proc/self/task/<tid>/stat`, utime + stime
 * in clock ticks of 1/100 s): the main thread (JavaScript and its GC pauses), chDB's background merges
 * (`MergeMutate` threads), chDB's own threads (`store`: parsing, views, part writing) and the other threads
 * named `node` (`node_threads`: V8's GC helpers and the libuv workers that make chDB's calls; what chDB runs
 * on its calling thread is counted here, not in `store`). The decode benchmark prints it per
 * run (bench/chain/decode-variant.ts), so a run shows which side a change moved (docs/sources.md, "Decode path,
 * 2026-11-24: what the store's side costs"). Threads that ended between two snapshots are not counted; elsewhere than Linux every figure
 * is null.
 */
import fs from 'node:fs'

/** CPU-seconds per kind of thread */
export interface ThreadCpu {
  readonly main: number
  readonly store: number
  readonly merges: number
  readonly node_threads: number
}

/** a snapshot: thread id -> [kind, CPU ticks so far]; null where /proc is missing */
export type ThreadSnapshot = ReadonlyMap<string, readonly [keyof ThreadCpu, number]> | null

const TASKS = '/proc/self/task'
/** USER_HZ: clock ticks per second of /proc's utime and stime (100 on Linux) */
const TICKS_PER_S = 100

function kindOf(tid: string, name: string): keyof ThreadCpu {
  if (tid === String(process.pid)) return 'main'
  if (name.startsWith('MergeMutate')) return 'merges'
  if (name === 'node' || name.startsWith('V8 ') || name.startsWith('libuv')) return 'node_threads'
  return 'store'
}

export function threadSnapshot(): ThreadSnapshot {
  let tids: string[]
  try {
    tids = fs.readdirSync(TASKS)
  } catch {
    return null
  }
  const snap = new Map<string, readonly [keyof ThreadCpu, number]>()
  for (const tid of tids) {
    let stat: string
    try {
      stat = fs.readFileSync(`${TASKS}/${tid}/stat`, 'utf8')
    } catch {
      continue // the thread ended since the listing
    }
    // "<tid> (<name>) <state> ...": the name may hold spaces and parentheses, so cut at the last ')'
    const close = stat.lastIndexOf(')')
    const name = stat.slice(stat.indexOf('(') + 1, close)
    const fields = stat.slice(close + 2).split(' ')
    // fields[0] is the state (stat field 3): utime and stime are stat fields 14 and 15
    snap.set(tid, [kindOf(tid, name), Number(fields[11]) + Number(fields[12])])
  }
  return snap
}

/** CPU-seconds per kind of thread between two snapshots (threads new since `before` count from 0) */
export function threadCpuBetween(before: ThreadSnapshot, after: ThreadSnapshot): ThreadCpu | null {
  if (before === null || after === null) return null
  const ticks: Record<keyof ThreadCpu, number> = { main: 0, store: 0, merges: 0, node_threads: 0 }
  for (const [tid, [kind, t]] of after) ticks[kind] += t - (before.get(tid)?.[1] ?? 0)
  const s = (k: keyof ThreadCpu): number => Math.round((ticks[k] / TICKS_PER_S) * 100) / 100
  return { main: s('main'), store: s('store'), merges: s('merges'), node_threads: s('node_threads') }
}
