/**
 * @module
 * Recycled byte buffers for the chain batch encoder's sinks (byte-sink.ts). A confirmed range's two TSV
 * payloads are ~23 MB per 20,000 busy transactions (engine/whales/chain-batch-tsv.ts), allocated outside the
 * V8 heap. V8 starts a full mark of the whole heap whenever such external memory has grown by about 64 MB
 * since the last one ("external memory pressure"): one mark-compact every three ranges, which in the chain
 * decode benchmark cost ~0.25 s of main-thread time and ~0.4 s of V8's helper threads per 400,000 logs
 * (docs/sources.md, "Decode path, 2026-11-24: CPU per thread"). Buffers handed back here are reused by the next
 * sinks, so a source that releases its payloads keeps its external memory flat.
 *
 * Invariants:
 * - only buffers this module allocated (`alloc`) are ever pooled; a foreign buffer, or one of Node's shared
 *   8 KB slabs, given to `release` is ignored;
 * - a buffer is in the free list at most once (a second release is ignored);
 * - the free list holds at most MAX_FREE buffers and MAX_FREE_BYTES bytes: a release beyond that drops the
 *   buffers released longest ago (left to the garbage collector), so buffers of sizes no range asks for any
 *   more do not block the list; a buffer larger than MAX_FREE_BYTES is never kept.
 *
 * The caller's contract: release bytes only once nothing reads them any more (their insert settled, their
 * ingest batch written or failed). A buffer released early may be overwritten by the next range's encoder.
 */

/** buffers kept for reuse: one range's two payloads for a few chain sources */
const MAX_FREE = 8
/** bytes kept for reuse (idle memory the pool may hold), bytes */
const MAX_FREE_BYTES = 256 * 1024 * 1024

/** every ArrayBuffer this module allocated (weak: a buffer never released is collected as usual) */
const owned = new WeakSet<ArrayBufferLike>()
/** free buffers, oldest release first */
const free: Buffer[] = []
let freeBytes = 0

/** counters for tests and diagnostics */
export const sinkPoolStats = { allocated: 0, reused: 0, released: 0, ignored: 0, evicted: 0 }

/** a free buffer larger than this many times the request (and than 1 MiB) is kept for a larger one */
const MAX_OVERSIZE = 4

/**
 * A buffer of at least `bytes` bytes, owning its whole ArrayBuffer (never a Node pool slab): the smallest free
 * one that is large enough and not far larger (a few pending events do not take a range's buffer), else a new
 * one. Its content is arbitrary.
 */
export function allocSinkBuffer(bytes: number): Buffer {
  const most = Math.max(bytes * MAX_OVERSIZE, 1024 * 1024)
  let best = -1
  for (let i = 0; i < free.length; i++) {
    const len = free[i]!.length
    if (len >= bytes && len <= most && (best < 0 || len < free[best]!.length)) best = i
  }
  if (best >= 0) {
    const buf = free[best]!
    free.splice(best, 1)
    freeBytes -= buf.length
    sinkPoolStats.reused++
    return buf
  }
  const buf = Buffer.allocUnsafeSlow(bytes)
  owned.add(buf.buffer)
  sinkPoolStats.allocated++
  return buf
}

/**
 * Hands back the buffer behind `bytes` (a sink's `bytes()` or any view of the same memory) for reuse. Ignored
 * unless this module allocated it and it is not free already, or when the pool is full.
 */
export function releaseSinkBytes(bytes: Uint8Array): void {
  const ab = bytes.buffer
  if (!owned.has(ab) || free.some((b) => b.buffer === ab)) {
    sinkPoolStats.ignored++
    return
  }
  const buf = Buffer.from(ab, 0, ab.byteLength)
  if (buf.length > MAX_FREE_BYTES) {
    sinkPoolStats.ignored++
    return
  }
  // full: the buffers released longest ago go first, so the list follows the sizes ranges have now
  while (free.length >= MAX_FREE || freeBytes + buf.length > MAX_FREE_BYTES) {
    freeBytes -= free.shift()!.length
    sinkPoolStats.evicted++
  }
  free.push(buf)
  freeBytes += buf.length
  sinkPoolStats.released++
}

/** empties the free list (tests) */
export function clearSinkPool(): void {
  free.length = 0
  freeBytes = 0
}

/** buffers and bytes in the free list */
export function sinkPoolFree(): { readonly buffers: number; readonly bytes: number } {
  return { buffers: free.length, bytes: freeBytes }
}
