/**
 * The outbox's journal (engine/webhooks/journal.ts, journal-recovery.ts) over a real chDB store: a row is
 * on disk when its push resolves and in the store after a flush; a process killed -9 after journaling, or
 * while the store loads a segment, loses and doubles nothing once the next start recovers; a segment
 * loaded but not removed (a crash after the insert) is not stored twice; a last line cut short by a crash
 * is cut off; a store that is down keeps rows journaled (counted, `full` at the bound) until it is back;
 * a segment refused for good is set aside without stalling the journal.
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { silentLogger } from '../../engine/log.js'
import { projectRoot } from '../../engine/paths.js'
import { migrate } from '../../engine/schema/migrate.js'
import { ChdbStore } from '../../engine/store/chdb/chdb-store.js'
import type { FileInsert, Store } from '../../engine/store/store.js'
import { ATTEMPT_COLUMNS } from '../../engine/webhooks/delivery.js'
import { StoreError } from '../../engine/store/store-error.js'
import { REFUSED_ATTEMPTS, TableJournal } from '../../engine/webhooks/journal.js'
import { recoverSegments, segmentHeader } from '../../engine/webhooks/journal-recovery.js'
import { tsvLine } from '../helpers/webhooks/tsv-line.js'
import { tmpDir } from '../helpers/tmp-dir.js'

const CHILD = path.join(projectRoot(), 'test', 'helpers', 'webhook-journal-child.mjs')
const log = silentLogger()

let store: ChdbStore
let root: { dir: string; cleanup: () => void }

beforeAll(async () => {
  root = tmpDir('tw-webhook-journal-')
  store = new ChdbStore({ path: path.join(root.dir, 'data'), poolSize: 2 })
  await migrate(store, {})
}, 60_000)

afterAll(async () => {
  await store.close()
  root.cleanup()
})

let dirs = 0
function journalDir(): string {
  const d = path.join(root.dir, `journal-${++dirs}`)
  fs.mkdirSync(d)
  return d
}

const attempt = (id: string, n = 1) => ({
  delivery_id: id,
  webhook_id: 7,
  event_id: `e-${id}`,
  event: 'HIGH',
  attempt: n,
  trigger: 'event',
  at: 1_800_000_000_000,
  duration_ms: 3,
  status_code: 200,
  error: '',
  response_excerpt: 'ok\ttab\nline',
  next_retry_at: null
})

/** Stored attempt rows whose delivery id starts with `prefix`. */
async function stored(prefix: string): Promise<{ n: number; distinct: number }> {
  const [r] = await store.query<{ n: number; distinct: number }>(
    `SELECT count() AS n, uniqExact(delivery_id, attempt) AS distinct FROM webhook_attempts
     WHERE startsWith(delivery_id, {p:String})`,
    { p: prefix }
  )
  return r!
}

const segments = (dir: string) => fs.readdirSync(dir).filter((f) => f.endsWith('.tsv'))

function journal(dir: string, s: Store = store, maxRows = 1_000_000): TableJournal {
  return new TableJournal({ store: s, dir, table: 'webhook_attempts', columns: ATTEMPT_COLUMNS, maxRows })
}

/** The test's store with another `insertFile`. */
function withInsertFile(insertFile: (b: FileInsert) => Promise<void>): Store {
  return {
    kind: store.kind,
    command: (sql, p) => store.command(sql, p),
    query: (sql, p) => store.query(sql, p),
    insert: (b) => store.insert(b),
    insertFile,
    stream: (sql, p, f, sig) => store.stream(sql, p, f, sig),
    close: async () => {}
  }
}

function runChild(dir: string, rows: number, prefix: string, when: 'journaled' | 'loading'): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD, dir, String(rows), prefix, when], {
      stdio: ['ignore', 'pipe', 'inherit']
    })
    let out = ''
    child.stdout.on('data', (b: Buffer) => (out += b.toString()))
    child.on('error', reject)
    child.on('exit', (_code, signal) => resolve(`${out.trim()} ${signal}`))
  })
}

describe('webhook journal', () => {
  it('a row is in its segment file when its push resolves, and in the store (file removed) after a flush', async () => {
    const dir = journalDir()
    const j = journal(dir)
    await Promise.all([j.push(attempt('msg_a0')), j.push(attempt('msg_a1')), j.push(attempt('msg_a2'))])
    const [file] = segments(dir)
    const text = fs.readFileSync(path.join(dir, file!), 'utf8').split('\n')
    expect(JSON.parse(text[0]!)).toMatchObject({ table: 'webhook_attempts', via: 'file' })
    expect(text.slice(1, 4).map((l) => l.split('\t')[0])).toEqual(['msg_a0', 'msg_a1', 'msg_a2'])
    expect(j.queued).toBe(3)
    await j.flush()
    expect(await stored('msg_a')).toEqual({ n: 3, distinct: 3 })
    expect(segments(dir)).toEqual([])
    expect(j.queued).toBe(0)
    const [row] = await store.query<{ response_excerpt: string }>(
      `SELECT response_excerpt FROM webhook_attempts WHERE delivery_id = 'msg_a0'`
    )
    expect(row!.response_excerpt).toBe('ok\ttab\nline') // escaped in the file, exact in the store
    await j.close(1_000)
    // after close (an attempt settling after stop): refused, and not an unhandled rejection when not awaited
    void j.push(attempt('msg_a3'))
    await expect(j.push(attempt('msg_a4'))).rejects.toThrow(/journal is closed/)
  })

  it('a burst of 10,000 rows in one turn is written in chunks (4,096 lines), segments sealed once they reach segmentRows, stored once', async () => {
    const dir = journalDir()
    const loads: number[] = []
    const counting = withInsertFile(async (b) => {
      loads.push(fs.readFileSync(b.file, 'utf8').split('\n').length - 2) // header line and the final newline
      await store.insertFile(b)
    })
    const j = new TableJournal({
      store: counting,
      dir,
      table: 'webhook_attempts',
      columns: ATTEMPT_COLUMNS,
      maxRows: 100_000,
      segmentRows: 5_000
    })
    const pushes: Promise<void>[] = []
    for (let i = 0; i < 10_000; i++) pushes.push(j.push(attempt(`msg_b${i}`)))
    await Promise.all(pushes)
    await j.flush()
    expect(loads.reduce((a, b) => a + b, 0)).toBe(10_000)
    expect(Math.max(...loads)).toBeLessThanOrEqual(5_000 + 4_096)
    expect(loads.length).toBeGreaterThanOrEqual(2)
    expect(await stored('msg_b')).toEqual({ n: 10_000, distinct: 10_000 })
    await j.close(1_000)
  })

  it.each(['journaled', 'loading'] as const)(
    'kill -9 of a process %s: the next start stores every journaled row exactly once',
    async (when) => {
      const dir = journalDir()
      const prefix = `msg_k${when[0]}`
      expect(await runChild(dir, 500, prefix, when)).toBe('ready SIGKILL')
      expect(segments(dir)).toHaveLength(1)
      expect(await stored(prefix)).toEqual({ n: 0, distinct: 0 })
      const next = journal(dir)
      expect(await recoverSegments(store, dir, 'webhook_attempts', next.runPrefix, log)).toBe(500)
      expect(await stored(prefix)).toEqual({ n: 500, distinct: 500 })
      expect(segments(dir)).toEqual([])
      // a second start finds nothing to load
      expect(await recoverSegments(store, dir, 'webhook_attempts', next.runPrefix, log)).toBe(0)
      expect(await stored(prefix)).toEqual({ n: 500, distinct: 500 })
      await next.close(1_000)
    },
    60_000
  )

  it('a segment loaded but not removed (crash after the insert) is loaded again without doubling', async () => {
    const dir = journalDir()
    const kept = path.join(root.dir, 'kept-segment')
    // a store that keeps a copy of each segment as the insert reads it: what a crash after the insert leaves
    const copying = withInsertFile(async (b) => {
      fs.copyFileSync(b.file, kept)
      await store.insertFile(b)
    })
    const j = journal(dir, copying)
    for (let i = 0; i < 50; i++) void j.push(attempt(`msg_c${i}`))
    await j.flush()
    expect(await stored('msg_c')).toEqual({ n: 50, distinct: 50 })
    fs.renameSync(kept, path.join(dir, 'webhook_attempts.0-0-left.00000000.tsv'))
    expect(await recoverSegments(store, dir, 'webhook_attempts', j.runPrefix, log)).toBe(50)
    expect(await stored('msg_c')).toEqual({ n: 50, distinct: 50 })
    await j.close(1_000)
  })

  it('a last line cut short by a crash is cut off; the whole lines are stored', async () => {
    const dir = journalDir()
    const file = path.join(dir, 'webhook_attempts.0-0-cut.00000000.tsv')
    const header = segmentHeader(store, 'webhook_attempts', ATTEMPT_COLUMNS, file)
    const line = (id: string) => tsvLine(attempt(id), ATTEMPT_COLUMNS)
    fs.writeFileSync(
      file,
      `${JSON.stringify(header)}\n${line('msg_t0')}\n${line('msg_t1')}\n${line('msg_t2').slice(0, 20)}`
    )
    expect(await recoverSegments(store, dir, 'webhook_attempts', 'none', log)).toBe(2)
    expect(await stored('msg_t')).toEqual({ n: 2, distinct: 2 })
  })

  it('a segment the store refuses for good (not transient) moves to failed/ after a few tries; the journal goes on', async () => {
    const dir = journalDir()
    let refusing = true
    const refused: string[] = []
    const picky = withInsertFile(async (b) => {
      if (refusing) throw new StoreError('Code: 27. Cannot parse input', 27, 'bad_data')
      await store.insertFile(b)
    })
    const j = new TableJournal({
      store: picky,
      dir,
      table: 'webhook_attempts',
      columns: ATTEMPT_COLUMNS,
      maxRows: 1_000,
      onRefused: (file) => refused.push(path.basename(file))
    })
    await j.push(attempt('msg_r0'))
    await j.flush()
    expect(j.errors).toBe(REFUSED_ATTEMPTS)
    expect(refused).toHaveLength(1)
    expect(fs.readdirSync(path.join(dir, 'failed'))).toEqual(refused)
    expect(j.queued).toBe(0)
    refusing = false
    await j.push(attempt('msg_r1'))
    await j.flush()
    expect(await stored('msg_r')).toEqual({ n: 1, distinct: 1 })
    await j.close(1_000)
  }, 30_000)

  it('a store that is down: rows stay journaled and counted, full at the bound; stored once it is back', async () => {
    const dir = journalDir()
    let down = true
    let refused = 0
    const flaky = withInsertFile(async (b) => {
      if (down) {
        refused++
        throw new StoreError('Code: 210. store down', 210, 'transient')
      }
      await store.insertFile(b)
    })
    const j = journal(dir, flaky, 5)
    for (let i = 0; i < 5; i++) await j.push(attempt(`msg_d${i}`))
    const flushed = j.flush()
    await new Promise((r) => setTimeout(r, 300))
    expect(refused).toBeGreaterThan(0)
    expect(j.errors).toBe(refused)
    expect(j.queued).toBe(5)
    expect(j.full).toBe(true)
    expect(segments(dir)).toHaveLength(1)
    down = false
    await flushed
    expect(j.full).toBe(false)
    expect(await stored('msg_d')).toEqual({ n: 5, distinct: 5 })
    await j.close(1_000)
  })
})
