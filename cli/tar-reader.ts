/**
 * @module
 * Reads a ustar archive as it arrives (the freqtrade layout of `tidewatch export`), chunk by chunk: each
 * entry's header is parsed (name with its ustar prefix, octal size, type, checksum checked) and its bytes
 * handed to the sink as they come, so memory stays at one chunk. Two zero blocks end the archive; bytes
 * after them are ignored. Regular files (type '0' or NUL) and directories ('5') only.
 */

export interface TarEntry {
  /** the path in the archive, e.g. `futures/BTC_USDT_USDT-1h-futures.feather` */
  readonly name: string
  readonly type: 'file' | 'directory'
  /** bytes of content */
  readonly size: number
}

export interface TarSink {
  /** a new entry starts; its bytes follow through `data`, then `end` */
  begin(entry: TarEntry): Promise<void>
  data(bytes: Uint8Array): Promise<void>
  end(): Promise<void>
}

const BLOCK = 512

function text(h: Uint8Array, at: number, width: number): string {
  const end = h.indexOf(0, at)
  return Buffer.from(h.subarray(at, end === -1 || end > at + width ? at + width : end)).toString('utf8')
}

function octal(h: Uint8Array, at: number, width: number, what: string): number {
  const s = text(h, at, width).trim()
  if (!/^[0-7]+$/.test(s)) throw new Error(`tar header: ${what} ${JSON.stringify(s)} is not an octal number`)
  return parseInt(s, 8)
}

/** The entry of a 512-byte header, or null for a zero block (the end of the archive). */
export function parseTarHeader(h: Uint8Array): TarEntry | null {
  if (h.every((b) => b === 0)) return null
  let sum = 0
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : h[i]!
  if (octal(h, 148, 8, 'checksum') !== sum) throw new Error('tar header checksum does not match: not a tar archive')
  const prefix = text(h, 257, 6) === 'ustar' ? text(h, 345, 155) : ''
  const name = prefix === '' ? text(h, 0, 100) : `${prefix}/${text(h, 0, 100)}`
  const flag = String.fromCharCode(h[156]!)
  if (flag !== '0' && flag !== '\0' && flag !== '5') throw new Error(`tar entry ${name}: type ${flag} is not supported`)
  return { name, type: flag === '5' ? 'directory' : 'file', size: octal(h, 124, 12, 'size') }
}

export class TarReader {
  private header = new Uint8Array(BLOCK)
  private headerFill = 0
  /** content bytes left of the current entry, then padding bytes left */
  private left = 0
  private padding = 0
  private inEntry = false
  private ended = false

  constructor(private readonly sink: TarSink) {}

  /** True once the end-of-archive block was read. */
  get complete(): boolean {
    return this.ended
  }

  async push(chunk: Uint8Array): Promise<void> {
    let pos = 0
    while (pos < chunk.length && !this.ended) {
      if (this.left > 0) {
        const n = Math.min(this.left, chunk.length - pos)
        await this.sink.data(chunk.subarray(pos, pos + n))
        pos += n
        this.left -= n
        if (this.left === 0) await this.closeEntry()
      } else if (this.padding > 0) {
        const n = Math.min(this.padding, chunk.length - pos)
        pos += n
        this.padding -= n
      } else {
        const n = Math.min(BLOCK - this.headerFill, chunk.length - pos)
        this.header.set(chunk.subarray(pos, pos + n), this.headerFill)
        this.headerFill += n
        pos += n
        if (this.headerFill === BLOCK) {
          this.headerFill = 0
          await this.openEntry(parseTarHeader(this.header))
        }
      }
    }
  }

  private async openEntry(entry: TarEntry | null): Promise<void> {
    if (entry === null) {
      this.ended = true
      return
    }
    await this.sink.begin(entry)
    this.inEntry = true
    this.left = entry.type === 'file' ? entry.size : 0
    this.padding = (BLOCK - (this.left % BLOCK)) % BLOCK
    if (this.left === 0) await this.closeEntry()
  }

  private async closeEntry(): Promise<void> {
    this.inEntry = false
    await this.sink.end()
  }

  /** Throws unless the archive ended with its end-of-archive block. */
  finish(): void {
    if (!this.ended || this.inEntry) throw new Error('the archive ends before its end-of-archive block')
  }
}
