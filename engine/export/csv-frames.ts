/**
 * @module
 * One CSV file from chDB's CSVWithNames chunks. chDB emits each block as a self-contained payload, so
 * every chunk starts with the header line (measured: 7 headers for 200k rows). The first chunk keeps it;
 * later chunks lose exactly their first line, after checking it is the same header. A data line is
 * never dropped: the check fails loudly instead.
 */

const NL = 0x0a

/** The header line ClickHouse writes for these names (each name quoted, `"` doubled), newline included. */
export function csvHeader(names: readonly string[]): Uint8Array {
  return Buffer.from(names.map((n) => `"${n.replace(/"/g, '""')}"`).join(',') + '\n')
}

function firstLineEnd(chunk: Uint8Array): number {
  const i = chunk.indexOf(NL)
  if (i === -1) throw new Error('CSVWithNames chunk without a complete header line')
  return i + 1
}

/**
 * Re-frames per-block CSVWithNames payloads into one CSV stream with one header. `fallbackHeader` is
 * written when the result has no chunk at all.
 */
export async function* csvFromBlocks(
  chunks: AsyncIterable<Uint8Array>,
  fallbackHeader: Uint8Array
): AsyncGenerator<Uint8Array> {
  let header: Buffer | undefined
  for await (const chunk of chunks) {
    if (chunk.length === 0) continue
    const end = firstLineEnd(chunk)
    if (header === undefined) {
      header = Buffer.from(chunk.slice(0, end))
      yield chunk
      continue
    }
    if (!header.equals(chunk.subarray(0, end))) {
      throw new Error('CSVWithNames chunk does not start with the header of the first chunk')
    }
    if (end < chunk.length) yield chunk.subarray(end)
  }
  if (header === undefined) yield fallbackHeader
}
