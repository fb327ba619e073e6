/**
 * @module
 * On-chain identifiers from hash words: EVM addresses (`0x` + 40 lowercase hex) and transaction hashes
 * (`0x` + 64 hex), Solana addresses (base58 of 32 bytes, 43-44 characters) and signatures (base58 of
 * 64 bytes, 87-88 characters). Only the shapes are real; the values are hashes.
 */
import { word } from './hash-rng.js'

const BASE58_ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'

/**
 * Word `first + j` of an identifier, alternating between two keys: an identifier drawn from two
 * independent 32-bit keys has 64 bits of identity, so collisions over years of events stay negligible.
 */
function idWord(keyA: number, keyB: number, j: number): number {
  return word(j % 2 === 0 ? keyA : keyB, j)
}

/** `0x` + 8 hex digits per word (`count` words) */
export function hexId(keyA: number, keyB: number, first: number, count: number): string {
  let out = '0x'
  for (let j = first; j < first + count; j++) out += idWord(keyA, keyB, j).toString(16).padStart(8, '0')
  return out
}

/**
 * base58 (Bitcoin alphabet, as Solana uses) of a big-endian string of 32-bit words. The first word's top
 * bit must be set: there are then no leading zero bytes (which base58 writes as extra `1`s) and the
 * length is always the full one (44 characters for 32 bytes, 88 for 64).
 */
export function base58Words(words: readonly number[]): string {
  // little-endian base-58 digits; digit x 2^32 + carry stays below 2^53, so the arithmetic is exact
  const digits: number[] = []
  for (const w of words) {
    let carry = w
    for (let j = 0; j < digits.length; j++) {
      carry += digits[j]! * 4294967296
      digits[j] = carry % 58
      carry = Math.floor(carry / 58)
    }
    while (carry > 0) {
      digits.push(carry % 58)
      carry = Math.floor(carry / 58)
    }
  }
  let out = ''
  for (let i = digits.length - 1; i >= 0; i--) out += BASE58_ALPHABET[digits[i]!]
  return out
}

/** base58 of `count` words (4 bytes each) */
export function base58Id(keyA: number, keyB: number, first: number, count: number): string {
  const words: number[] = []
  for (let j = first; j < first + count; j++) words.push(idWord(keyA, keyB, j))
  words[0] = (words[0]! | 0x80000000) >>> 0
  return base58Words(words)
}
