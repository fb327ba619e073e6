/**
 * @module
 * Reads a recording file as bytes for the replay worker's byte-level path: gunzipped chunks re-cut into
 * blocks of whole lines (each line ending in `\n`; a line split across chunks is joined), never decoded
 * as a whole. It yields the same lines as `recordedLines` (replay-reader.ts) in the same order: the text
 * after the last newline is yielded last (as a block without a newline) only when it is more than
 * whitespace and the file did not end early, and a truncated gzip file (a crash while recording) yields
 * what it holds and is reported in `error`.
 */
import fs from 'node:fs'
import zlib from 'node:zlib'

const NEWLINE = 10
/** gunzip output chunk, bytes */
const CHUNK_BYTES = 1 << 20

/** Cuts a stream of byte chunks into blocks of whole lines. */
export class LineBlocks {
  /** bytes after the last newline so far (a copy: the chunk it came from is not kept alive) */
  private rest: Buffer | null = null

  /** The whole lines completed by `chunk`, as blocks each ending in a newline. */
  push(chunk: Buffer): Buffer[] {
    const first = chunk.indexOf(NEWLINE)
    if (first < 0) {
      this.rest = this.rest === null ? Buffer.from(chunk) : Buffer.concat([this.rest, chunk])
      return []
    }
    const out: Buffer[] = []
    let from = 0
    if (this.rest !== null) {
      out.push(Buffer.concat([this.rest, chunk.subarray(0, first + 1)]))
      from = first + 1
      this.rest = null
    }
    const last = chunk.lastIndexOf(NEWLINE)
    if (last + 1 > from) out.push(chunk.subarray(from, last + 1))
    if (last + 1 < chunk.length) this.rest = Buffer.from(chunk.subarray(last + 1))
    return out
  }

  /** The text after the last newline when it is more than whitespace (as `recordedLines` keeps it), else null. */
  end(): Buffer | null {
    const rest = this.rest
    this.rest = null
    return rest !== null && rest.toString('utf8').trim() !== '' ? rest : null
  }
}

export interface RecordedBlocks {
  /** blocks of whole lines; the last may lack its newline (the file's unterminated last line) */
  readonly blocks: AsyncIterable<Buffer>
  /** set when the file ended early (truncated gzip) */
  error: string | null
}

/** The lines of one recording file, in blocks. `chunkBytes`: gunzip output size (tests make it tiny). */
export function recordedBlocks(file: string, chunkBytes = CHUNK_BYTES): RecordedBlocks {
  const result: RecordedBlocks = { blocks: blocks(), error: null }
  async function* blocks(): AsyncIterable<Buffer> {
    const raw = fs.createReadStream(file, { highWaterMark: chunkBytes })
    const stream = file.endsWith('.gz') ? raw.pipe(zlib.createGunzip({ chunkSize: chunkBytes })) : raw
    raw.on('error', (err) => stream.destroy(err))
    const cut = new LineBlocks()
    try {
      for await (const chunk of stream as AsyncIterable<Buffer>) yield* cut.push(chunk)
    } catch (err) {
      result.error = (err as Error).message
    } finally {
      raw.destroy()
    }
    const rest = cut.end()
    if (rest !== null && result.error === null) yield rest
  }
  return result
}
