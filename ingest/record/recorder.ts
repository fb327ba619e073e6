/**
 * @module
 * RECORD_DIR: writes every raw venue message with its receive time to gzipped NDJSON, one file per venue
 * per UTC hour (`<dir>/<venue>/<venue>-2026-11-22T10.ndjson.gz`, rotated by receive time). Files are opened
 * for append, so a restart within the hour adds a second gzip member (readers handle multi-member gzip).
 * "Sticky" messages (market lists, funding intervals) are repeated at the top of each new hour's file, so
 * every file replays on its own. Bounded: past MAX_BUFFERED_BYTES of unwritten output a line is dropped
 * and counted (`dropped`), the feed itself never waits for the disk.
 */
import fs from 'node:fs'
import path from 'node:path'
import zlib from 'node:zlib'
import type { Logger } from '../../engine/log.js'
import { hourStamp, recordedLine, recordedTextLine } from './recording-format.js'

/** Unwritten bytes a venue file may buffer before lines are dropped: about a minute of a busy feed. */
const MAX_BUFFERED_BYTES = 64 * 1024 * 1024

interface OpenFile {
  readonly hour: string
  readonly gzip: zlib.Gzip
  readonly done: Promise<void>
}

export class Recorder {
  /** lines written (before compression) */
  lines = 0
  /** lines dropped because the disk fell behind */
  dropped = 0
  private readonly files = new Map<string, OpenFile>()
  /** per venue: channel path -> last line, repeated at the top of each new file */
  private readonly sticky = new Map<string, Map<string, string>>()

  constructor(
    readonly dir: string,
    private readonly log: Logger
  ) {}

  /** Records a message that parsed as JSON. `sticky`: repeat it at the top of every later file. */
  write(venue: string, channel: string, text: string, recvTs: number, sticky = false): void {
    const line = recordedLine(venue, channel, text, recvTs)
    if (sticky) this.stickyOf(venue).set(channel.split('?', 1)[0]!, line)
    this.append(venue, line, recvTs)
  }

  /** Records a message that was not JSON. */
  writeText(venue: string, channel: string, text: string, recvTs: number): void {
    this.append(venue, recordedTextLine(venue, channel, text, recvTs), recvTs)
  }

  private stickyOf(venue: string): Map<string, string> {
    let m = this.sticky.get(venue)
    if (!m) this.sticky.set(venue, (m = new Map()))
    return m
  }

  private append(venue: string, line: string, recvTs: number): void {
    const hour = hourStamp(recvTs)
    let f = this.files.get(venue)
    if (!f || f.hour !== hour) {
      if (f) void this.finish(f)
      f = this.open(venue, hour)
      this.files.set(venue, f)
      for (const s of this.stickyOf(venue).values()) if (s !== line) f.gzip.write(s)
    }
    if (f.gzip.writableLength > MAX_BUFFERED_BYTES) {
      this.dropped++
      return
    }
    f.gzip.write(line)
    this.lines++
  }

  private open(venue: string, hour: string): OpenFile {
    const dir = path.join(this.dir, venue)
    fs.mkdirSync(dir, { recursive: true })
    const file = path.join(dir, `${venue}-${hour}.ndjson.gz`)
    const gzip = zlib.createGzip({ level: 6 })
    const out = fs.createWriteStream(file, { flags: 'a' })
    const done = new Promise<void>((resolve) => {
      out.on('close', resolve)
      out.on('error', (err) => {
        this.log.error({ file, err: err.message }, 'recording file failed')
        resolve()
      })
    })
    gzip.pipe(out)
    return { hour, gzip, done }
  }

  private finish(f: OpenFile): Promise<void> {
    f.gzip.end()
    return f.done
  }

  /** Ends every open file (gzip trailer written, file closed). */
  async close(): Promise<void> {
    const open = [...this.files.values()]
    this.files.clear()
    await Promise.all(open.map((f) => this.finish(f)))
  }
}
