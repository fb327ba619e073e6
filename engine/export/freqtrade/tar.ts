/**
 * @module
 * POSIX ustar framing (pubs.opengroup.org/onlinepubs/9699919799/utilities/pax.html, "ustar Interchange
 * Format"): per entry a 512-byte header (name, mode, size and mtime in octal, checksum, type, `ustar\0` `00`),
 * the bytes, zero padding to a multiple of 512; two zero blocks end the archive. An entry's size goes in its
 * header, so a file is complete before it is framed; the archive itself streams entry by entry. Names are
 * at most 100 bytes of ASCII (the layout's names are well under it; longer ones are refused, not split).
 */

export const TAR_BLOCK = 512
/** the end of an archive: two zero blocks */
export const TAR_END = new Uint8Array(2 * TAR_BLOCK)

function octal(header: Uint8Array, at: number, width: number, value: number): void {
  const digits = value.toString(8).padStart(width - 1, '0')
  if (digits.length > width - 1) throw new Error(`tar field of ${width} bytes cannot hold ${value}`)
  for (let i = 0; i < digits.length; i++) header[at + i] = digits.charCodeAt(i)
}

/**
 * The header of a regular file (`type` '0', mode 0644) or a directory (`type` '5', mode 0755, size 0).
 * `mtimeS`: modification time, epoch seconds.
 */
export function tarHeader(name: string, size: number, mtimeS: number, type: '0' | '5' = '0'): Uint8Array {
  if (!/^[\x21-\x7e][\x20-\x7e]*$/.test(name) || name.length > 100) {
    throw new Error(`tar entry name ${JSON.stringify(name)} is not 1 to 100 printable ASCII bytes`)
  }
  const h = new Uint8Array(TAR_BLOCK)
  for (let i = 0; i < name.length; i++) h[i] = name.charCodeAt(i)
  octal(h, 100, 8, type === '5' ? 0o755 : 0o644)
  octal(h, 108, 8, 0) // uid
  octal(h, 116, 8, 0) // gid
  octal(h, 124, 12, size)
  octal(h, 136, 12, Math.max(0, Math.floor(mtimeS)))
  h.fill(0x20, 148, 156) // the checksum is computed with its own field as spaces
  h[156] = type.charCodeAt(0)
  h.set([0x75, 0x73, 0x74, 0x61, 0x72, 0], 257) // "ustar\0"
  h.set([0x30, 0x30], 263) // version "00"
  let sum = 0
  for (let i = 0; i < TAR_BLOCK; i++) sum += h[i]!
  octal(h, 148, 7, sum) // six digits, NUL; the eighth byte stays a space
  return h
}

/** Zero bytes after `size` bytes of content, up to the next 512-byte boundary (empty when aligned). */
export function tarPadding(size: number): Uint8Array {
  return new Uint8Array((TAR_BLOCK - (size % TAR_BLOCK)) % TAR_BLOCK)
}
