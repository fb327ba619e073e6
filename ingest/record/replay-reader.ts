/**
 * @module
 * Reads recordings: a file or a directory (searched recursively for `*.ndjson.gz` and `*.ndjson`), files
 * in time order (by file name, which ends in the UTC hour), lines handed out in batches to keep the per-line
 * cost low. A truncated gzip file (a crash while recording) yields what it holds and is reported, not fatal.
 */
import fs from 'node:fs'
import path from 'node:path'
import zlib from 'node:zlib'

const RECORDING = /\.ndjson(\.gz)?$/

/** Recording files under `target` in replay order. */
export function recordingFiles(target: string): string[] {
  if (!fs.statSync(target).isDirectory()) return [target]
  const out: string[] = []
  const walk = (dir: string): void => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name)
      if (e.isDirectory()) walk(p)
      else if (RECORDING.test(e.name)) out.push(p)
    }
  }
  walk(target)
  // `<venue>-2026-11-22T10.ndjson.gz`: the hour decides, then the venue
  const hourOf = (p: string): string => /(\d{4}-\d{2}-\d{2}T\d{2})/.exec(path.basename(p))?.[1] ?? ''
  return out.sort((a, b) => hourOf(a).localeCompare(hourOf(b)) || a.localeCompare(b))
}

export interface LineBatches {
  /** batches of complete lines (without the newline) */
  readonly lines: AsyncIterable<string[]>
  /** set when the file ended early (truncated gzip) */
  error: string | null
}

/** The lines of one recording file, in batches. */
export function recordedLines(file: string): LineBatches {
  const result: LineBatches = { lines: batches(), error: null }
  async function* batches(): AsyncIterable<string[]> {
    const raw = fs.createReadStream(file, { highWaterMark: 1 << 20 })
    const stream = file.endsWith('.gz') ? raw.pipe(zlib.createGunzip({ chunkSize: 1 << 20 })) : raw
    stream.setEncoding('utf8')
    raw.on('error', (err) => stream.destroy(err))
    let rest = ''
    try {
      for await (const chunk of stream as AsyncIterable<string>) {
        const text = rest + chunk
        const end = text.lastIndexOf('\n')
        if (end < 0) {
          rest = text
          continue
        }
        rest = text.slice(end + 1)
        yield text.slice(0, end).split('\n')
      }
    } catch (err) {
      result.error = (err as Error).message
    } finally {
      raw.destroy()
    }
    if (rest.trim() !== '' && result.error === null) yield [rest]
  }
  return result
}
