/**
 * @module
 * Opens one import file as a stream of CSV bytes: `.zip` (data.binance.vision: one CSV inside, read
 * through yauzl with zlib's native inflate, its CRC-32 checked at the end), `.gz` (Tardis.dev), or a plain
 * `.csv`. A zip cut short has no central directory and is refused before a byte is read; a gzip cut short
 * fails at its end, after the lines before it were checked but before anything is written.
 */
import fs from 'node:fs'
import path from 'node:path'
import zlib from 'node:zlib'
import yauzl from 'yauzl'
import { ImportError } from './import-error.js'

export interface CsvSource {
  /** decompressed CSV bytes, in order */
  readonly chunks: AsyncIterable<Buffer>
  /** share of the input consumed so far, 0..1, for progress */
  progress(): number
}

export type Compression = 'zip' | 'gzip' | 'none'

export function compressionOf(file: string): Compression {
  const name = path.basename(file).toLowerCase()
  if (name.endsWith('.zip')) return 'zip'
  if (name.endsWith('.gz')) return 'gzip'
  return 'none'
}

/** Tracks bytes through a stream for progress. */
function counted(
  stream: NodeJS.ReadableStream,
  total: number
): { chunks: AsyncIterable<Buffer>; progress: () => number } {
  let done = 0
  return {
    chunks: (async function* () {
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        done += chunk.length
        yield chunk
      }
    })(),
    progress: () => (total > 0 ? Math.min(1, done / total) : 0)
  }
}

async function openZip(file: string, label: string): Promise<CsvSource> {
  let zip: yauzl.ZipFile
  try {
    zip = await yauzl.openPromise(file, { lazyEntries: true, autoClose: false })
  } catch (err) {
    throw new ImportError(label, 0, `not a complete zip file (${(err as Error).message})`, { cause: err })
  }
  const entries: yauzl.Entry[] = []
  for await (const entry of zip.eachEntry()) if (!entry.fileName.endsWith('/')) entries.push(entry)
  const csv = entries.filter((e) => e.fileName.toLowerCase().endsWith('.csv'))
  if (csv.length !== 1) {
    zip.close()
    throw new ImportError(label, 0, `expected one .csv file in the zip, found ${csv.length}`)
  }
  const entry = csv[0]!
  const raw = await zip.openReadStreamPromise(entry)
  const { chunks, progress } = counted(raw, entry.uncompressedSize)
  return {
    progress,
    chunks: (async function* () {
      let crc = 0
      try {
        for await (const chunk of chunks) {
          crc = zlib.crc32(chunk, crc)
          yield chunk
        }
      } catch (err) {
        throw new ImportError(label, 0, `the zip data is corrupt (${(err as Error).message})`, { cause: err })
      } finally {
        zip.close()
      }
      if (crc >>> 0 !== entry.crc32 >>> 0) throw new ImportError(label, 0, 'the zip entry fails its CRC-32 check')
    })()
  }
}

function openGzip(file: string, label: string): CsvSource {
  const input = fs.createReadStream(file, { highWaterMark: 1 << 20 })
  const { chunks: compressed, progress } = counted(input, fs.statSync(file).size)
  const gunzip = zlib.createGunzip({ chunkSize: 1 << 20 })
  return {
    progress,
    chunks: (async function* () {
      const feed = (async () => {
        for await (const c of compressed) if (!gunzip.write(c)) await new Promise((r) => gunzip.once('drain', r))
        gunzip.end()
      })()
      feed.catch((err: unknown) => gunzip.destroy(err as Error))
      try {
        for await (const chunk of gunzip as AsyncIterable<Buffer>) yield chunk
      } catch (err) {
        throw new ImportError(label, 0, `the gzip data is truncated or corrupt (${(err as Error).message})`, {
          cause: err
        })
      } finally {
        input.destroy()
      }
    })()
  }
}

/** Opens `file`; `label` is how messages name it. Throws `ImportError` for a file that cannot be read. */
export async function openCsvSource(file: string, label: string): Promise<CsvSource> {
  let size: number
  try {
    size = fs.statSync(file).size
  } catch (err) {
    throw new ImportError(label, 0, `cannot read the file (${(err as NodeJS.ErrnoException).code})`, { cause: err })
  }
  switch (compressionOf(file)) {
    case 'zip':
      return openZip(file, label)
    case 'gzip':
      return openGzip(file, label)
    case 'none': {
      const { chunks, progress } = counted(fs.createReadStream(file, { highWaterMark: 1 << 20 }), size)
      return { chunks, progress }
    }
  }
}
