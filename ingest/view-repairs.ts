/**
 * @module
 * Repairs of the views derived from raw rows that may have been inserted in part (journal.ts: a batch
 * written after a failed attempt, or replayed at start). The journal notes each such batch's table and row
 * time range here; a note is a small file in `DATA_DIR/journal/repairs/` written before the batch's journal
 * entry is removed, so a crash in between leaves either the entry (replayed and noted again) or the note.
 *
 * A run takes every note, merges the ranges of a table that overlap or lie within `MERGE_GAP_MS`, holds the
 * ingest writes (so no row of the range is inserted while its views are compared with it: pipeline.ts
 * `hold`), repairs each range with the table's repair (engine/history/candle-repair.ts for trades), and
 * removes the notes it covered. A run that fails (the store is down, the disk still full) keeps its notes
 * and is tried again with backoff; notes left at a stop are repaired after the next start.
 */
import fs from 'node:fs'
import path from 'node:path'
import type { Logger } from '../engine/log.js'
import type { TimeRange } from '../engine/store/compact.js'
import { backoffMs, sleep } from '../engine/runtime/backoff.js'
import type { PartialWrites } from './journal.js'
import type { WriteHold } from './pipeline.js'

/** Ranges of one table closer than this are repaired as one, ms: one pass over a few hours beats many. */
const MERGE_GAP_MS = 6 * 3_600_000
/** Longest pause between two tries of a failed run, ms. */
const RETRY_MAX_MS = 10_000

/** Brings the views derived from one raw table in line with its rows over a range; resolves with a summary. */
export type ViewRepair = (range: TimeRange) => Promise<RepairSummary>

export interface RepairSummary {
  /** view buckets completed */
  readonly buckets: number
  /** view buckets holding more than their source (left as they are) */
  readonly surplus: number
  /** per view table, for the log */
  readonly detail?: unknown
}

interface Note extends TimeRange {
  readonly table: string
  readonly file: string
}

export interface RepairCounters {
  /** noted ranges not yet repaired */
  pending: number
  /** ranges repaired (after merging) */
  repaired: number
  /** view buckets completed by repairs */
  buckets: number
  /** view buckets found holding more than their source (left as they are) */
  surplus: number
  /** runs that failed (kept and tried again) */
  errors: number
}

export class ViewRepairs implements PartialWrites {
  readonly counters: RepairCounters = { pending: 0, repaired: 0, buckets: 0, surplus: 0, errors: 0 }
  private readonly dir: string
  private seq = 0
  private running: Promise<void> | null = null
  private again = false
  private stopped = false
  private readonly stopping = new AbortController()
  /** holds ingest writes during a run; set once the pipeline exists (`attach`) */
  private hold: (() => Promise<WriteHold>) | undefined

  constructor(
    /** the journal's directory: notes go in its `repairs/` */
    journalDir: string,
    private readonly repairs: Readonly<Record<string, ViewRepair>>,
    private readonly log: Logger
  ) {
    this.dir = path.join(journalDir, 'repairs')
    fs.mkdirSync(this.dir, { recursive: true })
    this.counters.pending = this.list().length
  }

  covers(table: string): boolean {
    return Object.hasOwn(this.repairs, table)
  }

  async note(table: string, range: TimeRange): Promise<void> {
    const file = path.join(this.dir, `${Date.now()}-${process.pid}-${this.seq++}.json`)
    await fs.promises.writeFile(file, JSON.stringify({ table, fromMs: range.fromMs, toMs: range.toMs }))
    this.counters.pending++
    this.log.warn(
      { table, from: new Date(range.fromMs).toISOString(), to: new Date(range.toMs).toISOString() },
      'batch written after a failed attempt, or replayed: its views are repaired from the raw rows'
    )
    if (this.hold) this.schedule()
  }

  /** Lets runs start (holding writes with `hold`), and starts one for notes left by an earlier run. */
  attach(hold: () => Promise<WriteHold>): void {
    this.hold = hold
    if (this.counters.pending > 0) this.schedule()
  }

  /** Resolves once no run is in flight and none is due (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.running) await this.running
  }

  /** Ends the retries; resolves once the run in flight ended. Notes left are repaired after the next start. */
  async stop(): Promise<void> {
    this.stopped = true
    this.stopping.abort()
    await this.settled()
  }

  private schedule(): void {
    if (this.stopped) return
    if (this.running) {
      this.again = true
      return
    }
    this.running = this.loop().finally(() => (this.running = null))
  }

  private async loop(): Promise<void> {
    for (let attempt = 1; !this.stopped;) {
      this.again = false
      try {
        await this.runOnce()
        attempt = 1
        if (!this.again) return
      } catch (err) {
        this.counters.errors++
        const delay = backoffMs(attempt++, Math.random, RETRY_MAX_MS)
        this.log.error(
          { err: (err as Error).message, delay },
          'view repair failed; the ranges are kept and tried again'
        )
        await sleep(delay, this.stopping.signal)
      }
    }
  }

  private async runOnce(): Promise<void> {
    const notes = this.read()
    if (notes.length === 0) return
    const hold = await this.hold!()
    try {
      await hold.drained
      for (const [table, ranges] of groupRanges(notes)) {
        for (const range of ranges) {
          const summary = await this.repairs[table]!(range)
          this.counters.repaired++
          this.counters.buckets += summary.buckets
          this.counters.surplus += summary.surplus
          this.log.warn(
            {
              table,
              from: new Date(range.fromMs).toISOString(),
              to: new Date(range.toMs).toISOString(),
              buckets: summary.buckets,
              surplus: summary.surplus,
              detail: summary.detail
            },
            'views repaired from the raw rows'
          )
        }
      }
    } finally {
      hold.release()
    }
    for (const n of notes) fs.rmSync(n.file, { force: true })
    this.counters.pending = this.list().length
  }

  private list(): string[] {
    return fs
      .readdirSync(this.dir)
      .filter((f) => f.endsWith('.json'))
      .sort()
  }

  /** The notes on disk; one that cannot be read (cut short by a crash during its write) is dropped. */
  private read(): Note[] {
    const out: Note[] = []
    for (const f of this.list()) {
      const file = path.join(this.dir, f)
      try {
        const n = JSON.parse(fs.readFileSync(file, 'utf8')) as Omit<Note, 'file'>
        if (this.covers(n.table) && Number.isFinite(n.fromMs) && Number.isFinite(n.toMs)) out.push({ ...n, file })
        else fs.rmSync(file, { force: true })
      } catch {
        // its batch's journal entry was still there when the note was cut short: the replay notes it again
        fs.rmSync(file, { force: true })
      }
    }
    return out
  }
}

/** Per table, the noted ranges merged where they overlap or lie within MERGE_GAP_MS of each other. */
export function groupRanges(notes: readonly (TimeRange & { readonly table: string })[]): Map<string, TimeRange[]> {
  const byTable = new Map<string, TimeRange[]>()
  const sorted = [...notes].sort((a, b) => a.fromMs - b.fromMs)
  for (const n of sorted) {
    let ranges = byTable.get(n.table)
    if (!ranges) byTable.set(n.table, (ranges = []))
    const last = ranges[ranges.length - 1]
    if (last && n.fromMs <= last.toMs + MERGE_GAP_MS)
      ranges[ranges.length - 1] = { fromMs: last.fromMs, toMs: Math.max(last.toMs, n.toMs) }
    else ranges.push({ fromMs: n.fromMs, toMs: n.toMs })
  }
  return byTable
}
