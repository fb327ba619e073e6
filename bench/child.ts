/**
 * @module
 * A bench child process over IPC: `next(key)` resolves with the first message holding `key`, in arrival
 * order, and rejects once the child has exited without sending it.
 */
import type { ChildProcess } from 'node:child_process'

export type ChildMsg = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any -- IPC answers

export interface BenchChild {
  readonly proc: ChildProcess
  next(key: string): Promise<ChildMsg>
}

/** Reads the IPC messages of `proc` (forked with an `ipc` stdio slot); `name` appears in the exit error. */
export function benchChild(proc: ChildProcess, name: string): BenchChild {
  const queue: ChildMsg[] = []
  let wake: (() => void) | null = null
  proc.on('message', (m: ChildMsg) => {
    queue.push(m)
    wake?.()
  })
  const next = async (key: string): Promise<ChildMsg> => {
    for (;;) {
      const i = queue.findIndex((m) => key in m)
      if (i >= 0) return queue.splice(i, 1)[0]!
      if (proc.exitCode !== null) throw new Error(`${name} exited ${proc.exitCode}`)
      // woken by a message, or after 200 ms to look at the exit code again
      await new Promise<void>((r) => {
        wake = r
        setTimeout(r, 200)
      })
    }
  }
  return { proc, next }
}
