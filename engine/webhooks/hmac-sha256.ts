/**
 * @module
 * HMAC-SHA256 (RFC 2104) from one-shot SHA-256 calls over a per-key padded block, for the two signatures
 * of every delivery attempt (signing.ts). `crypto.createHmac` builds a native Hmac object per call (an
 * OpenSSL context, a weak handle the garbage collector tends); here each signature is two calls of
 * `crypto.hash` (Node >= 20.12) over bytes laid out in a reused scratch buffer:
 *
 *   inner = SHA256((K0 xor ipad) || message),  mac = SHA256((K0 xor opad) || inner)
 *
 * where K0 is the key zero-padded to the 64-byte block (or its SHA-256 digest, padded, when longer). The
 * result equals `crypto.createHmac('sha256', key)` over the same bytes for every key and message
 * (test/unit/webhook-fast-paths.test.ts). `crypto.hash` is in every Node the project supports (>= 20.19).
 */
import crypto from 'node:crypto'

/** SHA-256's block size, bytes. */
const BLOCK = 64
/** SHA-256's digest size, bytes. */
const DIGEST = 32

/** The padded key blocks of one key. */
interface PaddedKey {
  /** K0 xor 0x36 (64 bytes) */
  readonly inner: Buffer
  /** K0 xor 0x5c followed by room for the inner digest (96 bytes; the last 32 are scratch) */
  readonly outer: Buffer
}

/** Padded keys of the keys in use (one per webhook), bounded like signing.ts's cache. */
const padded = new Map<string, PaddedKey>()
const MAX_KEYS = 10_000

function paddedKey(key: string): PaddedKey {
  let p = padded.get(key)
  if (p === undefined) {
    let k: Buffer = Buffer.from(key, 'utf8')
    if (k.length > BLOCK) k = crypto.createHash('sha256').update(k).digest()
    const inner = Buffer.alloc(BLOCK, 0x36)
    const outer = Buffer.alloc(BLOCK + DIGEST, 0x5c)
    for (let i = 0; i < k.length; i++) {
      inner[i]! ^= k[i]!
      outer[i]! ^= k[i]!
    }
    p = { inner, outer }
    if (padded.size >= MAX_KEYS) padded.clear()
    padded.set(key, p)
  }
  return p
}

/** Scratch for `(K0 xor ipad) || message`, grown when a message needs more (single-threaded: used synchronously). */
let scratch = Buffer.allocUnsafe(4096)

/**
 * HMAC-SHA256 keyed with the UTF-8 bytes of `key` over the UTF-8 bytes of `prefix` followed by `body`, as
 * `encoding` text.
 */
export function hmacSha256(key: string, prefix: string, body: Uint8Array, encoding: 'hex' | 'base64'): string {
  const p = paddedKey(key)
  // at most 3 UTF-8 bytes per UTF-16 unit of the prefix
  const room = BLOCK + prefix.length * 3 + body.length
  if (room > scratch.length) scratch = Buffer.allocUnsafe(Math.max(room, scratch.length * 2))
  p.inner.copy(scratch, 0)
  const at = prefix === '' ? BLOCK : BLOCK + scratch.write(prefix, BLOCK, 'utf8')
  scratch.set(body, at)
  const n = at + body.length
  // the inner digest as latin1 text (one byte per character) written after the outer block: a string is
  // cheaper to make than the ArrayBuffer of a 'buffer' digest (~0.5 µs less per signature, measured)
  p.outer.write(crypto.hash('sha256', scratch.subarray(0, n), 'binary'), BLOCK, 'latin1')
  return crypto.hash('sha256', p.outer, encoding)
}
