/**
 * The process's worker threads go through one bounded pool: a spawn past its permits waits for a thread to
 * end, a spawn past the waiting line is refused, a worker's end (an error or an unasked exit) is reported
 * once and never after its owner terminated it, and a streamed worker's messages arrive in order with its
 * end last. Real threads running small worker modules written to a temporary directory.
 */
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { SemaphoreFullError } from '../../engine/runtime/semaphore.js'
import { WorkerPool, type StreamItem, type WorkerEnd } from '../../ingest/workers/worker-pool.js'
import { tmpDir } from '../helpers/tmp-dir.js'
import { until } from '../helpers/until.js'

const tmp = tmpDir()
afterAll(() => tmp.cleanup())

function workerFile(name: string, body: string): string {
  const file = path.join(tmp.dir, name)
  fs.writeFileSync(file, `import { parentPort, workerData } from 'node:worker_threads'\n${body}\n`)
  return file
}

/** answers each message with it doubled; runs until terminated */
const ECHO = workerFile('echo.mjs', `parentPort.on('message', (n) => parentPort.postMessage(n * 2))`)
/** sends workerData.count numbers, then exits with code 3 */
const COUNT = workerFile(
  'count.mjs',
  `for (let i = 0; i < workerData.count; i++) parentPort.postMessage(i)\nprocess.exit(3)`
)
/** throws once it is sent anything */
const THROW = workerFile('throw.mjs', `parentPort.on('message', () => { throw new Error('boom') })`)

describe('worker pool', () => {
  it('bounds the threads: a spawn past the permits waits for one to end, past the line is refused', async () => {
    const pool = new WorkerPool(1, 1)
    const answers: number[] = []
    const handlers = { message: (n: number) => answers.push(n), end: () => {} }
    const first = await pool.spawn<number, number>({ file: ECHO }, handlers)
    let secondStarted = false
    const second = pool.spawn<number, number>({ file: ECHO }, handlers).then((w) => {
      secondStarted = true
      return w
    })
    await expect(pool.spawn({ file: ECHO }, handlers)).rejects.toBeInstanceOf(SemaphoreFullError)
    first.post(21)
    await until('the first worker answers', () => answers.length === 1)
    expect(answers).toEqual([42])
    expect(secondStarted).toBe(false)
    expect(pool.live).toBe(1)
    await first.terminate()
    const w2 = await second
    w2.post(5)
    await until('the second worker answers', () => answers.length === 2)
    expect(answers).toEqual([42, 10])
    await w2.terminate()
    expect(pool.live).toBe(0)
  })

  it('streams messages in order, then the exit code; the thread gives its permit back', async () => {
    const pool = new WorkerPool(1, 0)
    const { next } = await pool.stream<never, number>({ file: COUNT, workerData: { count: 5 } })
    const items: StreamItem<number>[] = []
    for (;;) {
      const item = await next()
      items.push(item)
      if ('end' in item) break
    }
    expect(items).toEqual(
      [0, 1, 2, 3, 4].map((message) => ({ message })).concat([{ end: { kind: 'exit', code: 3 } } as never])
    )
    await until('the exited thread frees its permit', () => pool.live === 0)
    // the permit is free: a spawn that may not wait starts at once
    const again = await pool.stream<never, number>({ file: COUNT, workerData: { count: 0 } })
    expect(await again.next()).toEqual({ end: { kind: 'exit', code: 3 } })
  })

  it('reports an error in the worker once (not its exit after it), and nothing after terminate', async () => {
    const pool = new WorkerPool(2, 0)
    const ends: WorkerEnd[] = []
    const failing = await pool.spawn<number, never>({ file: THROW }, { message: () => {}, end: (e) => ends.push(e) })
    failing.post(1)
    await until('the error is reported and the permit freed', () => ends.length === 1 && pool.live === 0)
    expect(ends[0]!.kind).toBe('error')
    expect(ends[0]!.kind === 'error' && ends[0]!.error.message).toBe('boom')

    const quiet: WorkerEnd[] = []
    const echo = await pool.spawn<number, number>({ file: ECHO }, { message: () => {}, end: (e) => quiet.push(e) })
    await echo.terminate()
    await echo.terminate() // idempotent: the permit is given back once
    expect(pool.live).toBe(0)
    expect(quiet).toEqual([])
    expect(ends).toHaveLength(1)
  })
})
