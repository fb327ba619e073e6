/**
 * @module
 * Temporary export files (HDF5): unique names under the export tmp dir, read back in fixed-size pieces,
 * and removed by whoever created them (in a `finally`, so also on error and when the consumer stops early).
 */
import { randomUUID } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'

/** Size of the pieces an export file is streamed in: large enough for few syscalls, small enough to pace. */
export const FILE_PIECE_BYTES = 1 << 20

/** A fresh absolute path `<dir>/tidewatch-export-<uuid><suffix>`; creates `dir` if needed. */
export async function tempPath(dir: string, suffix: string): Promise<string> {
  const abs = path.resolve(dir)
  await fs.promises.mkdir(abs, { recursive: true })
  return path.join(abs, `tidewatch-export-${randomUUID()}${suffix}`)
}

/** Removes a file if it exists; never throws (cleanup must not mask the error being handled). */
export async function removeQuietly(file: string): Promise<void> {
  await fs.promises.rm(file, { force: true }).catch(() => {})
}

/** Yields the file's bytes in pieces of {@link FILE_PIECE_BYTES}, each a fresh buffer the consumer may keep. */
export async function* readPieces(file: string, signal?: AbortSignal): AsyncGenerator<Uint8Array> {
  const handle = await fs.promises.open(file, 'r')
  try {
    for (;;) {
      signal?.throwIfAborted()
      const piece = Buffer.allocUnsafe(FILE_PIECE_BYTES)
      const { bytesRead } = await handle.read(piece, 0, FILE_PIECE_BYTES, null)
      if (bytesRead === 0) return
      yield bytesRead === FILE_PIECE_BYTES ? piece : piece.subarray(0, bytesRead)
    }
  } finally {
    await handle.close()
  }
}
