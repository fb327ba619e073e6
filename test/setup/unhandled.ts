/**
 * Every test file: an unhandled promise rejection anywhere in the process fails the test that was
 * running (background loops run under the supervisor; nothing may reject unobserved). Vitest
 * also reports such errors for the whole run; this names the test. The process listener is added once per
 * process: the `unit` project runs many files in one process (vitest.config.ts) and this file runs before each.
 */
import { afterEach } from 'vitest'

const SEEN = Symbol.for('tidewatch.test.unhandledRejections')
const holder = globalThis as { [SEEN]?: unknown[] }
let seen = holder[SEEN]
if (seen === undefined) {
  const list: unknown[] = []
  holder[SEEN] = seen = list
  process.on('unhandledRejection', (reason) => {
    list.push(reason)
  })
}
const rejections = seen

afterEach(() => {
  if (rejections.length === 0) return
  const first = rejections.splice(0)[0]
  throw new Error(
    `unhandled promise rejection during this test: ${first instanceof Error ? first.stack : String(first)}`
  )
})
