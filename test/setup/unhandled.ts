/**
 * Every test file: an unhandled promise rejection anywhere in the process fails the test that was
 * running (background loops run under the supervisor; nothing may reject unobserved). Vitest
 * also reports such errors for the whole run; this names the test.
 */
import { afterEach } from 'vitest'

const seen: unknown[] = []
process.on('unhandledRejection', (reason) => {
  seen.push(reason)
})

afterEach(() => {
  if (seen.length === 0) return
  const first = seen.splice(0)[0]
  throw new Error(
    `unhandled promise rejection during this test: ${first instanceof Error ? first.stack : String(first)}`
  )
})
