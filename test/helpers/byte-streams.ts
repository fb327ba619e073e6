/** Byte streams for the export framing tests: chunks as an async iterable, and back into one buffer. */

/** `chunks` as a stream (strings as UTF-8). */
export async function* from(chunks: readonly (string | Uint8Array)[]): AsyncGenerator<Uint8Array> {
  for (const c of chunks) yield typeof c === 'string' ? Buffer.from(c) : c
}

/** Every byte of a stream, concatenated. */
export async function bytes(it: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Uint8Array[] = []
  for await (const c of it) parts.push(c)
  return Buffer.concat(parts)
}
