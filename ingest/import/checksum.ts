/**
 * @module
 * data.binance.vision publishes `<file>.CHECKSUM` beside each data file: one line `<sha256 hex>  <name>`.
 * When it is there, the file's SHA-256 must match before anything is written; Binance replaces files and
 * republishes checksums, so a stale download is caught here. Without it the digest is not computed: dedup
 * tokens name the file by its identity (`fileIdentity`), not by its bytes. The same read can count the
 * file's lines (`filePass`): a plain CSV with a `.CHECKSUM`, written by one statement (direct-file.ts), has
 * its rows counted there.
 */
import crypto from 'node:crypto'
import fs from 'node:fs'
import { LineCount } from '../../engine/runtime/line-count.js'
import { ImportError } from './import-error.js'

/** What one read of a file gave: its SHA-256 (hex) when asked, its lines when asked. */
export interface FilePass {
  readonly sha256: string | null
  /** newline-terminated lines, plus a last line without a newline; null when not asked */
  readonly lines: number | null
}

/**
 * Reads `file` once, streamed, computing its SHA-256 (`hash`) and counting its lines (`lines`) from the
 * same chunks; `signal` stops the read (the promise rejects with its reason).
 */
export async function filePass(
  file: string,
  want: { readonly hash: boolean; readonly lines: boolean },
  signal?: AbortSignal
): Promise<FilePass> {
  const hash = want.hash ? crypto.createHash('sha256') : null
  const lines = want.lines ? new LineCount() : null
  const stream = fs.createReadStream(file, { highWaterMark: 1 << 20, ...(signal && { signal }) })
  for await (const chunk of stream) {
    hash?.update(chunk as Buffer)
    lines?.add(chunk as Buffer)
  }
  return { sha256: hash ? hash.digest('hex') : null, lines: lines ? lines.lines : null }
}

/** SHA-256 of the file, hex, streamed; `signal` stops the read (the promise rejects with its reason). */
export async function sha256File(file: string, signal?: AbortSignal): Promise<string> {
  return (await filePass(file, { hash: true, lines: false }, signal)).sha256!
}

/** Whether `<file>.CHECKSUM` lies beside the file (its verdict is then taken before anything is written). */
export const hasChecksumFile = (file: string): boolean => fs.existsSync(`${file}.CHECKSUM`)

/**
 * Checks the file against `<file>.CHECKSUM`, in one read that also counts its lines when `lines` is set;
 * throws `ImportError` when the digests disagree or the CHECKSUM file cannot be read. `signal` stops the
 * hashing (a run that ends while this file is read ahead).
 */
export async function verifyChecksum(
  file: string,
  label: string,
  signal?: AbortSignal,
  lines = false
): Promise<FilePass & { readonly sha256: string }> {
  const pass = await filePass(file, { hash: true, lines }, signal)
  const sha256 = pass.sha256!
  const sidecar = `${file}.CHECKSUM`
  const expected = /^\s*([0-9a-fA-F]{64})\b/.exec(fs.readFileSync(sidecar, 'utf8'))?.[1]?.toLowerCase()
  if (!expected) throw new ImportError(label, 0, `${sidecar} does not hold a SHA-256 digest`)
  if (expected !== sha256) {
    throw new ImportError(label, 0, `checksum mismatch: SHA-256 is ${sha256}, ${sidecar} says ${expected}`)
  }
  return { ...pass, sha256 }
}

/**
 * The file as the import was given it, named for dedup tokens: device, inode, size and modification time
 * (ns) of `file`, hashed. The same file imported again has the same identity (a journal replay or a re-run
 * after a failed statement then dedups what that statement wrote); a file rewritten or downloaded again
 * has another. Known at once, where a digest of the bytes would need a read of the whole file first.
 */
export function fileIdentity(file: string): string {
  const st = fs.statSync(file, { bigint: true })
  return crypto.createHash('sha256').update(`${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}`).digest('hex')
}
