/**
 * @module
 * `tidewatch export --layout freqtrade --exchange binance --out user_data/data/binance ...`: downloads the
 * freqtrade layout (`/v1/backtest/export?layout=freqtrade`, a tar archive) and unpacks it into the data
 * directory as it arrives. Entries go to a staging directory `<out>/.tidewatch-part-<pid>` first; once the
 * archive is complete and every file's SHA-256 and size match the manifest (its last entry), the files are
 * moved into place (replacing files of the same name, as freqtrade's own download does) with the manifest.
 * On any failure the staging directory is removed and `<out>` is left as it was.
 */
import { createHash, type Hash } from 'node:crypto'
import fs from 'node:fs'
import { once } from 'node:events'
import path from 'node:path'
import { CliError } from './client.js'
import type { Io } from './command.js'
import { requestExport } from './export-request.js'
import { ProgressLine } from './progress.js'
import { TarReader, type TarEntry } from './tar-reader.js'

const MANIFEST = 'tidewatch-manifest.json'
const PROGRESS_EVERY_MS = 250

interface Written {
  readonly sha256: string
  readonly bytes: number
}

interface ManifestFile {
  readonly path: string
  readonly rows: number
  readonly bytes: number
  readonly sha256: string
}

/** Entry names the layout writes: the manifest, `futures/` and feather files in it; nothing else is unpacked. */
function allowed(e: TarEntry): boolean {
  if (e.type === 'directory') return e.name === 'futures/'
  return e.name === MANIFEST || /^futures\/[A-Za-z0-9_-]+\.feather$/.test(e.name)
}

async function unpack(body: AsyncIterable<Uint8Array>, staging: string, onBytes: (n: number) => void) {
  const written = new Map<string, Written>()
  let file: { name: string; stream: fs.WriteStream; hash: Hash; bytes: number } | null = null
  const reader = new TarReader({
    async begin(e) {
      if (!allowed(e)) throw new CliError(`the archive holds ${e.name}, which is not part of the freqtrade layout`)
      if (e.type === 'directory') {
        fs.mkdirSync(path.join(staging, e.name), { recursive: true })
        return
      }
      const stream = fs.createWriteStream(path.join(staging, e.name), { flags: 'wx' })
      await once(stream, 'open')
      file = { name: e.name, stream, hash: createHash('sha256'), bytes: 0 }
    },
    async data(bytes) {
      if (!file) return
      file.hash.update(bytes)
      file.bytes += bytes.length
      if (!file.stream.write(bytes)) await once(file.stream, 'drain')
    },
    async end() {
      if (!file) return
      const f = file
      file = null
      f.stream.end()
      await once(f.stream, 'finish')
      written.set(f.name, { sha256: f.hash.digest('hex'), bytes: f.bytes })
    }
  })
  try {
    for await (const chunk of body) {
      onBytes(chunk.length)
      await reader.push(chunk)
    }
    reader.finish()
  } finally {
    ;(file as { stream: fs.WriteStream } | null)?.stream.destroy()
  }
  return written
}

/** The manifest's files, each checked against what was written; throws on any difference. */
function verified(staging: string, written: ReadonlyMap<string, Written>): ManifestFile[] {
  if (!written.has(MANIFEST)) throw new CliError('the archive has no manifest: it is not a complete freqtrade export')
  const manifest = JSON.parse(fs.readFileSync(path.join(staging, MANIFEST), 'utf8')) as { files: ManifestFile[] }
  const listed = new Set(manifest.files.map((f) => f.path))
  for (const f of manifest.files) {
    const w = written.get(f.path)
    if (!w || w.sha256 !== f.sha256 || w.bytes !== f.bytes) {
      throw new CliError(`${f.path} does not match the manifest (missing, or another SHA-256 or size)`)
    }
  }
  for (const name of written.keys()) {
    if (name !== MANIFEST && !listed.has(name)) throw new CliError(`${name} is in the archive but not in the manifest`)
  }
  return manifest.files
}

export async function downloadFreqtrade(
  url: string,
  key: string,
  out: string,
  io: Io,
  tty: boolean,
  signal: AbortSignal
): Promise<void> {
  fs.mkdirSync(out, { recursive: true })
  const staging = path.join(out, `.tidewatch-part-${process.pid}`)
  fs.mkdirSync(staging)
  try {
    const { res, synthetic } = await requestExport(url, key, io, signal)
    const started = Date.now()
    let bytes = 0
    const progress = new ProgressLine(io, tty, PROGRESS_EVERY_MS)
    const line = () =>
      `${(bytes / 1_048_576).toFixed(1)} MB  ${((bytes * 1000) / 1_048_576 / Math.max(1, Date.now() - started)).toFixed(1)} MB/s`
    let written: Map<string, Written>
    try {
      written = await unpack(res.body, staging, (n) => {
        bytes += n
        progress.update(line)
      })
    } catch (err) {
      if (err instanceof CliError) throw err
      throw new CliError(
        signal.aborted
          ? 'interrupted'
          : `the transfer was cut short or is not a valid archive (${err instanceof Error ? err.message : String(err)}); nothing was written`,
        1,
        { cause: err }
      )
    }
    const files = verified(staging, written)
    for (const f of files) {
      fs.mkdirSync(path.dirname(path.join(out, f.path)), { recursive: true })
      fs.renameSync(path.join(staging, f.path), path.join(out, f.path))
    }
    fs.renameSync(path.join(staging, MANIFEST), path.join(out, MANIFEST))
    progress.finish(line())
    const rows = files.reduce((n, f) => n + f.rows, 0)
    io.err(
      `wrote ${files.length} files (${rows.toLocaleString('en-US')} rows) and ${MANIFEST} to ${out}${synthetic ? ' (SYNTHETIC demo data)' : ''}\n`
    )
  } finally {
    fs.rmSync(staging, { recursive: true, force: true })
  }
}
