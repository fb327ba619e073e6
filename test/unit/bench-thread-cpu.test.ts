import os from 'node:os'
import { describe, expect, it } from 'vitest'
import { threadCpuBetween, threadSnapshot, type ThreadSnapshot } from '../../bench/chain/thread-cpu.js'

// The decode benchmark's CPU per kind of thread (bench/chain/thread-cpu.ts): the difference of two snapshots,
// and on Linux the main thread's own CPU read from /proc.
describe('bench thread CPU', () => {
  it('sums each kind of thread between two snapshots, new threads from 0, in seconds', () => {
    const before: ThreadSnapshot = new Map([
      ['1', ['main', 100]],
      ['2', ['store', 50]],
      ['3', ['node_threads', 7]]
    ] as const)
    const after: ThreadSnapshot = new Map([
      ['1', ['main', 250]],
      ['2', ['store', 80]],
      ['4', ['store', 12]],
      ['5', ['merges', 30]]
    ] as const)
    // thread 3 ended between the snapshots: its CPU is not counted
    expect(threadCpuBetween(before, after)).toEqual({ main: 1.5, store: 0.42, merges: 0.3, node_threads: 0 })
    expect(threadCpuBetween(null, after)).toBeNull()
    expect(threadCpuBetween(before, null)).toBeNull()
  })

  it.runIf(os.platform() === 'linux')("reads the main thread's CPU from /proc", () => {
    const s0 = threadSnapshot()
    expect(s0).not.toBeNull()
    expect(s0!.get(String(process.pid))?.[0]).toBe('main')
    const c0 = process.cpuUsage()
    const t0 = Date.now()
    // CPU on this (the main) thread until the process has used 300 ms of user time, at most 20 s of wall time
    let x = 0
    while (process.cpuUsage(c0).user < 300_000 && Date.now() - t0 < 20_000) {
      for (let i = 0; i < 100_000; i++) x = (x + i * 7) % 1_000_003
    }
    const cpu = process.cpuUsage(c0)
    const split = threadCpuBetween(s0, threadSnapshot())!
    expect(x).toBeGreaterThanOrEqual(0)
    // the loop's CPU shows on the main thread, and never more than the whole process used (ticks of 10 ms)
    expect(split.main).toBeGreaterThanOrEqual(0.2)
    expect(split.main).toBeLessThanOrEqual((cpu.user + cpu.system) / 1e6 + 0.02)
  })
})
