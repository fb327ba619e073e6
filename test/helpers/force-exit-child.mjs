/**
 * A child process for test/e2e/full-stdout.test.ts, over the built code in dist/: it logs two lines through
 * the service's root logger (the first goes to a write in flight, the second waits in the stream's buffer)
 * and forces its exit at once, the way a second Ctrl-C does. Its stdout is whatever the parent gives it.
 *
 *   node force-exit-child.mjs
 */
import path from 'node:path'

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..')
const dist = (p) => import(path.join(root, 'dist', p))
const { createLogger } = await dist('engine/log.js')
const { forceExit } = await dist('server/stop-signals.js')

const log = createLogger('info')
log.info({ pad: 'x'.repeat(512) }, 'first line')
log.info({ pad: 'x'.repeat(512) }, 'second line')
forceExit(log, 'forced by the test', { queued_rows: 3 })
