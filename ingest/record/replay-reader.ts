/**
 * @module
 * Reads recordings: a file or a directory (searched recursively for `*.ndjson.gz` and `*.ndjson`), files
 * in time order (by file name, which ends in the UTC hour), lines handed out in batches to keep the per-line
 * cost low. A truncated gzip file (a crash while recording) yields what it holds and is reported, not fatal.
 */
import fs from 'node:fs'
import path from 'node:path'
import { recordedBlocks } from './replay-blocks.js'

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

/**
 * The lines of one recording file, in batches: the blocks of whole lines that the replay worker reads
 * (replay-blocks.ts: gunzip, a truncated file's error, an unterminated last line kept when not blank), as
 * text.
 */
export function recordedLines(file: string): LineBatches {
  const source = recordedBlocks(file)
  const result: LineBatches = { lines: batches(), error: null }
  async function* batches(): AsyncIterable<string[]> {
    for await (const block of source.blocks) {
      const text = block.toString('utf8')
      yield (text.endsWith('\n') ? text.slice(0, -1) : text).split('\n')
    }
    result.error = source.error
  }
  return result
}
