/**
 * @module
 * Splits the checked lines of one file into slice files of whole hours, about `SLICE_ROWS` lines each
 * (an hour is never split, whatever its size): the sink of the byte scan (scan-file.ts), which runs when
 * the engine refused a file. The import itself cuts its slices from the staged rows (stage-slices.ts).
 * Lines are copied as byte runs: consecutive lines of one slice are one write. Rows out of time order go
 * to the slice whose hours hold them.
 */
import fs from 'node:fs'
import path from 'node:path'
import type { LineSink } from './csv-scan.js'
import { SLICE_ROWS } from './stage-slices.js'

const HOUR_MS = 3_600_000
/** Bytes buffered per slice before they go to its file. */
const FLUSH_BYTES = 4 * 1024 * 1024

export interface Slice {
  readonly file: string
  /** first hour of the slice (epoch hours); a slice holds hours up to the next slice's first */
  readonly startHour: number
  rows: number
  minMs: number
  maxMs: number
  /** latest hour seen so far */
  lastHour: number
}

interface Open {
  readonly slice: Slice
  readonly fd: number
  pending: Buffer[]
  pendingBytes: number
}

export class SliceWriter implements LineSink {
  private readonly open: Open[] = []
  private buf: Buffer = Buffer.alloc(0)
  private run: Open | null = null
  private runStart = 0
  private runEnd = 0

  constructor(
    private readonly dir: string,
    private readonly sliceRows = SLICE_ROWS
  ) {}

  get slices(): Slice[] {
    return this.open.map((o) => o.slice)
  }

  begin(buf: Buffer): void {
    this.buf = buf
    this.run = null
  }

  line(ms: number, start: number, end: number): void {
    const target = this.sliceFor(Math.floor(ms / HOUR_MS))
    const s = target.slice
    s.rows++
    if (ms < s.minMs) s.minMs = ms
    if (ms > s.maxMs) s.maxMs = ms
    if (target === this.run && start === this.runEnd) {
      this.runEnd = end
      return
    }
    this.flushRun()
    this.run = target
    this.runStart = start
    this.runEnd = end
  }

  end(): void {
    this.flushRun()
    this.run = null
  }

  /** Writes what is buffered and closes every slice file. */
  close(): void {
    for (const o of this.open) {
      this.write(o)
      fs.closeSync(o.fd)
    }
  }

  private flushRun(): void {
    const o = this.run
    if (!o || this.runEnd === this.runStart) return
    // the scanner reuses nothing, but a copy keeps the chunk from being pinned until the slice is flushed
    const part = Buffer.from(this.buf.subarray(this.runStart, this.runEnd))
    o.pending.push(part)
    o.pendingBytes += part.length
    if (o.pendingBytes >= FLUSH_BYTES) this.write(o)
    this.runStart = this.runEnd
  }

  private write(o: Open): void {
    if (o.pendingBytes === 0) return
    fs.writeSync(o.fd, Buffer.concat(o.pending, o.pendingBytes))
    o.pending = []
    o.pendingBytes = 0
  }

  private sliceFor(hour: number): Open {
    const last = this.open.at(-1)
    if (!last) return this.add(hour)
    const s = last.slice
    if (hour >= s.startHour) {
      if (hour > s.lastHour) {
        if (s.rows >= this.sliceRows) return this.add(hour)
        s.lastHour = hour
      }
      return last
    }
    // out of order: the last slice starting at or before this hour (the first slice takes anything earlier)
    let i = this.open.length - 1
    while (i > 0 && this.open[i]!.slice.startHour > hour) i--
    return this.open[i]!
  }

  private add(hour: number): Open {
    this.flushRun()
    this.run = null
    const file = path.join(this.dir, `slice-${String(this.open.length).padStart(5, '0')}.csv`)
    const o: Open = {
      slice: { file, startHour: hour, rows: 0, minMs: Infinity, maxMs: -Infinity, lastHour: hour },
      fd: fs.openSync(file, 'w'),
      pending: [],
      pendingBytes: 0
    }
    this.open.push(o)
    return o
  }
}
