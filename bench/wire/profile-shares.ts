/**
 * @module
 * Where the server's main thread spends a wire benchmark phase: reads the `--cpu-prof` profile of a run
 * with BENCH_WIRE_PROFILE=1 and the run's results (their `phase_windows`, on the machine's monotonic clock,
 * which V8's profile timestamps share on Linux), and prints, per phase, the share of busy samples (idle
 * left out) by source file (self time) and the functions with the largest inclusive share.
 * Shares, not rates: the machine is shared, so a sample count per second says little; a share of the
 * samples says what the thread does when it runs.
 *
 *   node dist/bench/wire/profile-shares.js [profile.cpuprofile] [wire.json | all]
 * Defaults: the newest profile in bench/results/wire-profile/, bench/results/wire.json; `all` takes the
 * whole profile as one window.
 */
import fs from 'node:fs'
import path from 'node:path'
import { projectRoot } from '../../engine/paths.js'

interface CallFrame {
  readonly functionName: string
  readonly url: string
  readonly lineNumber: number
}

interface ProfileNode {
  readonly id: number
  readonly callFrame: CallFrame
  readonly children?: readonly number[]
}

interface Profile {
  readonly nodes: readonly ProfileNode[]
  /** µs */
  readonly startTime: number
  readonly samples: readonly number[]
  /** µs between samples */
  readonly timeDeltas: readonly number[]
}

interface Window {
  readonly phase: string
  readonly from_mono_ms: number
  readonly to_mono_ms: number
}

/** Frames that are not work of the thread. */
const IDLE = new Set(['(idle)'])
/** Lines shown per table. */
const TOP = Number(process.env['TOP'] ?? 25)

/** A short name for a script: the part after the project root or node_modules, or the builtin's name. */
function fileOf(url: string): string {
  if (url === '') return '(native or V8)'
  const nm = url.lastIndexOf('node_modules/')
  if (nm >= 0) return url.slice(nm + 'node_modules/'.length)
  const dist = url.lastIndexOf('/dist/')
  if (dist >= 0) return url.slice(dist + '/dist/'.length)
  return url.replace(/^file:\/\//, '')
}

function newest(dir: string): string {
  const files = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => path.join(dir, f))
  if (files.length === 0) throw new Error(`no .cpuprofile in ${dir}`)
  return files.sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs)[0]!
}

function main(): void {
  const results = path.join(projectRoot(), 'bench', 'results')
  const profileFile = process.argv[2] ?? newest(path.join(results, 'wire-profile'))
  const wireFile = process.argv[3] ?? path.join(results, 'wire.json')
  const profile = JSON.parse(fs.readFileSync(profileFile, 'utf8')) as Profile
  // `all`: the whole profile as one window (a profile of the in-process micro bench, bench/wire/path-cpu.ts)
  const wire =
    wireFile === 'all'
      ? { phase_windows: [{ phase: 'all', from_mono_ms: 0, to_mono_ms: Infinity }] }
      : (JSON.parse(fs.readFileSync(wireFile, 'utf8')) as { phase_windows: Window[] })
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const parent = new Map<number, number>()
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id)
  const label = (f: CallFrame): string => `${f.functionName || '(anonymous)'} ${fileOf(f.url)}:${f.lineNumber + 1}`

  const phases = [...new Set(wire.phase_windows.map((w) => w.phase))]
  for (const phase of phases) {
    const spans = wire.phase_windows
      .filter((w) => w.phase === phase)
      .map((w) => [w.from_mono_ms * 1000, w.to_mono_ms * 1000])
    /** self time by file, a builtin's (JSON.parse, a native call) charged to the file that called it */
    const self = new Map<string, number>()
    /** self time by function, a builtin named with its caller */
    const selfFn = new Map<string, number>()
    const inclusive = new Map<string, number>()
    let busy = 0
    let idle = 0
    let t = profile.startTime
    for (let i = 0; i < profile.samples.length; i++) {
      t += profile.timeDeltas[i]!
      if (!spans.some(([a, b]) => t >= a! && t < b!)) continue
      const node = byId.get(profile.samples[i]!)!
      if (IDLE.has(node.callFrame.functionName)) {
        idle++
        continue
      }
      busy++
      let js: ProfileNode | undefined = node
      while (js !== undefined && js.callFrame.url === '') js = byId.get(parent.get(js.id) ?? -1)
      const fileKey = js ? fileOf(js.callFrame.url) : node.callFrame.functionName || '(native or V8)'
      self.set(fileKey, (self.get(fileKey) ?? 0) + 1)
      const fnKey =
        node.callFrame.url === '' && js
          ? `${node.callFrame.functionName || '(native)'} <- ${label(js.callFrame)}`
          : label(node.callFrame)
      selfFn.set(fnKey, (selfFn.get(fnKey) ?? 0) + 1)
      const seen = new Set<string>()
      for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
        const l = label(byId.get(id)!.callFrame)
        if (seen.has(l)) continue
        seen.add(l)
        inclusive.set(l, (inclusive.get(l) ?? 0) + 1)
      }
    }
    const pct = (n: number): string => `${((100 * n) / Math.max(1, busy)).toFixed(1)}%`.padStart(6)
    const busyShare = ((100 * busy) / Math.max(1, busy + idle)).toFixed(1)
    console.log(`\n## ${phase}: ${busy} busy samples, ${idle} idle (${busyShare}% of the window's samples busy)`)
    console.log('\nself time by file:')
    for (const [k, n] of [...self].sort((a, b) => b[1] - a[1]).slice(0, TOP)) console.log(`${pct(n)}  ${k}`)
    console.log('\nself time by function:')
    for (const [k, n] of [...selfFn].sort((a, b) => b[1] - a[1]).slice(0, TOP)) console.log(`${pct(n)}  ${k}`)
    console.log('\ninclusive time by function:')
    for (const [k, n] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, TOP * 2)) console.log(`${pct(n)}  ${k}`)
  }
}

main()
