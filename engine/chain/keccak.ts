/**
 * @module
 * Keccak-256 (the Ethereum hash: Keccak padding 0x01, not SHA3-256's 0x06) over bytes, for EIP-55 address
 * checksums at config and parameter time without loading viem (docs/benchmarks.md, "Cold start"). Lanes are
 * 64-bit BigInts: a few microseconds per short input, enough for addresses; bulk hashing stays with viem.
 */

const MASK = (1n << 64n) - 1n
/** rate of Keccak-256, bytes (1600-bit state minus 2 x 256-bit capacity) */
const RATE = 136

/** round constants of the iota step */
const RC: readonly bigint[] = [
  0x0000000000000001n,
  0x0000000000008082n,
  0x800000000000808an,
  0x8000000080008000n,
  0x000000000000808bn,
  0x0000000080000001n,
  0x8000000080008081n,
  0x8000000000008009n,
  0x000000000000008an,
  0x0000000000000088n,
  0x0000000080008009n,
  0x000000008000000an,
  0x000000008000808bn,
  0x800000000000008bn,
  0x8000000000008089n,
  0x8000000000008003n,
  0x8000000000008002n,
  0x8000000000000080n,
  0x000000000000800an,
  0x800000008000000an,
  0x8000000080008081n,
  0x8000000000008080n,
  0x0000000080000001n,
  0x8000000080008008n
]
/** rho rotations, in the order the pi step visits the lanes */
const RHO = [1, 3, 6, 10, 15, 21, 28, 36, 45, 55, 2, 14, 27, 41, 56, 8, 25, 43, 62, 18, 39, 61, 20, 44]
/** pi step: the lane each step moves to (lane index x + 5y) */
const PI = [10, 7, 11, 17, 18, 3, 5, 16, 8, 21, 24, 4, 15, 23, 19, 13, 12, 2, 20, 14, 22, 9, 6, 1]

const rotl = (x: bigint, n: number): bigint => ((x << BigInt(n)) | (x >> BigInt(64 - n))) & MASK

/** Keccak-f[1600] on 25 lanes, in place. */
function permute(s: bigint[]): void {
  const c: bigint[] = [0n, 0n, 0n, 0n, 0n]
  for (let round = 0; round < 24; round++) {
    for (let x = 0; x < 5; x++) c[x] = s[x]! ^ s[x + 5]! ^ s[x + 10]! ^ s[x + 15]! ^ s[x + 20]!
    for (let x = 0; x < 5; x++) {
      const d = c[(x + 4) % 5]! ^ rotl(c[(x + 1) % 5]!, 1)
      for (let y = 0; y < 25; y += 5) s[x + y] = s[x + y]! ^ d
    }
    let t = s[1]!
    for (let i = 0; i < 24; i++) {
      const j = PI[i]!
      const next = s[j]!
      s[j] = rotl(t, RHO[i]!)
      t = next
    }
    for (let y = 0; y < 25; y += 5) {
      const row = s.slice(y, y + 5)
      for (let x = 0; x < 5; x++) s[y + x] = row[x]! ^ (~row[(x + 1) % 5]! & row[(x + 2) % 5]!)
    }
    s[0] = s[0]! ^ RC[round]!
  }
}

/** Keccak-256 of `data`: 32 bytes. */
export function keccak256(data: Uint8Array): Uint8Array {
  const padded = new Uint8Array((Math.floor(data.length / RATE) + 1) * RATE)
  padded.set(data)
  padded[data.length]! ^= 0x01
  padded[padded.length - 1]! ^= 0x80
  const s: bigint[] = new Array<bigint>(25).fill(0n)
  for (let off = 0; off < padded.length; off += RATE) {
    for (let lane = 0; lane < RATE / 8; lane++) {
      let v = 0n
      for (let b = 7; b >= 0; b--) v = (v << 8n) | BigInt(padded[off + lane * 8 + b]!)
      s[lane] = s[lane]! ^ v
    }
    permute(s)
  }
  const out = new Uint8Array(32)
  for (let i = 0; i < 32; i++) out[i] = Number((s[i >> 3]! >> BigInt((i & 7) * 8)) & 0xffn)
  return out
}
