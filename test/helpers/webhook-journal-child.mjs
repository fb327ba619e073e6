/**
 * A child process for the webhook journal crash tests (test/integration/webhook-journal.test.ts), over the
 * built code in dist/. It journals attempt rows for a store that never finishes a load, then SIGKILLs
 * itself, so the parent (which owns the chDB data directory) sees what a kill -9 leaves:
 *
 *   node webhook-journal-child.mjs JOURNAL_DIR ROWS PREFIX journaled
 *     killed once ROWS rows are journaled (their push resolved), the segment still open
 *   node webhook-journal-child.mjs JOURNAL_DIR ROWS PREFIX loading
 *     killed while the store is loading the sealed segment (the insert was sent, never acknowledged)
 *
 * Delivery ids are PREFIX + the row number. Prints `ready` just before the kill.
 */
import path from 'node:path'

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..')
const dist = (p) => import(path.join(root, 'dist', p))
const { TableJournal } = await dist('engine/webhooks/journal.js')
const { ATTEMPT_COLUMNS } = await dist('engine/webhooks/delivery.js')

const [dir, rows, prefix, when] = process.argv.slice(2)
let loading = null
const loadStarted = new Promise((r) => (loading = r))
const store = {
  kind: 'chdb',
  command: async () => {},
  query: async () => [],
  insert: () => new Promise(() => {}),
  insertFile: () => {
    loading()
    return new Promise(() => {})
  },
  stream: async function* () {},
  close: async () => {}
}
const journal = new TableJournal({
  store,
  dir,
  table: 'webhook_attempts',
  columns: ATTEMPT_COLUMNS,
  maxRows: 1_000_000,
  segmentMaxMs: when === 'journaled' ? 60_000 : 5
})
// the journal's timers do not hold a process open: this one stays until it kills itself
const alive = setInterval(() => {}, 1_000)
const pushes = []
for (let i = 0; i < Number(rows); i++) {
  pushes.push(
    journal.push({
      delivery_id: `${prefix}${i}`,
      webhook_id: 1,
      event_id: `e-${prefix}${i}`,
      event: 'HIGH',
      attempt: 1,
      trigger: 'event',
      at: 1_800_000_000_000,
      duration_ms: 3,
      status_code: 200,
      error: '',
      response_excerpt: 'ok\ttab',
      next_retry_at: null
    })
  )
}
await Promise.all(pushes)
if (when === 'loading') await loadStarted
process.stdout.write('ready\n')
process.kill(process.pid, 'SIGKILL')
clearInterval(alive)
