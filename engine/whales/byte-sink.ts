/**
 * @module
 * A growing byte buffer that strings are written into as UTF-8, so a batch's TSV is never one long JS string
 * (a 13 MB rope of per-row strings, flattened and encoded again by Buffer.from, cost more than building it).
 * Used by the chain batch encoder (chain-batch-tsv.ts).
 */

export class ByteSink {
  private buf: Buffer
  private len = 0
  /** `bytes`: first capacity guess (grows by doubling) */
  constructor(bytes: number) {
    this.buf = Buffer.allocUnsafeSlow(Math.max(bytes, 1024))
  }
  write(s: string): void {
    // UTF-8 takes at most 3 bytes per UTF-16 unit; Buffer.write truncates silently when short of room
    const need = this.len + s.length * 3
    if (need > this.buf.length) {
      const next = Buffer.allocUnsafeSlow(Math.max(need, this.buf.length * 2))
      this.buf.copy(next, 0, 0, this.len)
      this.buf = next
    }
    this.len += this.buf.write(s, this.len, 'utf8')
  }
  get length(): number {
    return this.len
  }
  /** the bytes written so far (a view of the sink's buffer, which owns its ArrayBuffer: never Node's pool) */
  bytes(): Buffer {
    return this.buf.subarray(0, this.len)
  }
}
