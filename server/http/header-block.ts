/**
 * @module
 * Response headers for uWS, encoded once per shared header object. uWS' `writeHeader(name, value)` writes
 * `name: value\r\n`, converting each JavaScript string argument to UTF-8 (an allocation and a copy) on every
 * call; an ArrayBuffer argument is written as it is. The hot answers share frozen header objects
 * (`JSON_HEADERS`, the synthetic label's copy of it), so their whole header block is encoded once into one
 * name and one value whose concatenation is the same bytes the per-header calls write, and each answer
 * costs one native call with no conversion. Header objects that are not frozen (built per answer: rate-limit
 * headers, errors) are written one header at a time, as they may differ each time.
 */
import type uWS from 'uWebSockets.js'

/** One `writeHeader` call's arguments: the first name, and the rest of the block after its `: `. */
type Block = readonly [name: ArrayBuffer, value: ArrayBuffer]

/** Encoded blocks by frozen header object; null for an object with no headers. */
const blocks = new WeakMap<Readonly<Record<string, string>>, Block | null>()

function encode(text: string): ArrayBuffer {
  const bytes = Buffer.from(text, 'utf8')
  // a standalone ArrayBuffer (Buffer.from may return a slice of Node's shared pool)
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)
}

/**
 * The block of a header object: `name0` and `value0\r\nname1: value1...`, so that uWS' `name: value\r\n`
 * gives exactly the bytes of one call per header. Null when there is nothing to write.
 */
function blockOf(headers: Readonly<Record<string, string>>): Block | null {
  const names = Object.keys(headers)
  if (names.length === 0) return null
  let value = headers[names[0]!]!
  for (let i = 1; i < names.length; i++) value += `\r\n${names[i]!}: ${headers[names[i]!]!}`
  return [encode(names[0]!), encode(value)]
}

/** Writes an answer's headers (after the status line, inside the response's cork). */
export function writeHeaders(res: uWS.HttpResponse, headers: Readonly<Record<string, string>>): void {
  if (!Object.isFrozen(headers)) {
    for (const k in headers) res.writeHeader(k, headers[k]!)
    return
  }
  let block = blocks.get(headers)
  if (block === undefined) blocks.set(headers, (block = blockOf(headers)))
  if (block !== null) res.writeHeader(block[0], block[1])
}
