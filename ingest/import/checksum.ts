/**
 * @module
 * data.binance.vision publishes `<file>.CHECKSUM` beside each data file: one line `<sha256 hex>  <name>`.
 * When it is there, the file's SHA-256 must match before anything is read; Binance replaces files and
 * republishes checksums, so a stale download is caught here. The digest also names the file's content in
 * dedup tokens (writer.ts), whether or not a CHECKSUM file exists.
 */
import crypto from 'node:crypto'
import fs from 'node:fs'
import { ImportError } from './import-error.js'

/** SHA-256 of the file, hex, streamed; `signal` stops the read (the promise rejects with its reason). */
export async function sha256File(file: string, signal?: AbortSignal): Promise<string> {
  const hash = crypto.createHash('sha256')
  const stream = fs.createReadStream(file, { highWaterMark: 1 << 20, ...(signal && { signal }) })
  for await (const chunk of stream) hash.update(chunk as Buffer)
  return hash.digest('hex')
}

/**
 * Returns the file's SHA-256; throws `ImportError` when `<file>.CHECKSUM` exists and disagrees or cannot
 * be read. `checked` tells whether a CHECKSUM file was there. `signal` stops the hashing (a run that ends
 * while this file is read ahead).
 */
export async function verifyChecksum(
  file: string,
  label: string,
  signal?: AbortSignal
): Promise<{ sha256: string; checked: boolean }> {
  const sha256 = await sha256File(file, signal)
  const sidecar = `${file}.CHECKSUM`
  if (!fs.existsSync(sidecar)) return { sha256, checked: false }
  const expected = /^\s*([0-9a-fA-F]{64})\b/.exec(fs.readFileSync(sidecar, 'utf8'))?.[1]?.toLowerCase()
  if (!expected) throw new ImportError(label, 0, `${sidecar} does not hold a SHA-256 digest`)
  if (expected !== sha256) {
    throw new ImportError(label, 0, `checksum mismatch: SHA-256 is ${sha256}, ${sidecar} says ${expected}`)
  }
  return { sha256, checked: true }
}
