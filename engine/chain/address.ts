/**
 * @module
 * EVM address checks and EIP-55 checksums, with viem's semantics (`isAddress`, `getAddress`), on the
 * Keccak-256 of @noble/hashes (the hash viem itself uses, loaded alone: a few modules): the configuration and
 * the node-intelligence route parameters check addresses without loading viem, which a start loads only for
 * a configured chain node (docs/benchmarks.md, "Cold start").
 */
import type { Address } from 'viem'
import { keccak_256 } from '@noble/hashes/sha3'

const HEX_ADDRESS = /^0x[0-9a-fA-F]{40}$/

/** `0x` and 40 hex digits, any case. */
export function isHexAddress(v: string): v is Address {
  return HEX_ADDRESS.test(v)
}

/** The EIP-55 mixed-case form of a hex address (as viem's `checksumAddress`). */
export function checksumAddress(v: Address): Address {
  const hex = v.slice(2).toLowerCase()
  const hash = keccak_256(new TextEncoder().encode(hex))
  let out = '0x'
  for (let i = 0; i < 40; i++) {
    const nibble = (hash[i >> 1]! >> (i % 2 === 0 ? 4 : 0)) & 0x0f
    out += nibble >= 8 ? hex[i]!.toUpperCase() : hex[i]!
  }
  return out as Address
}

/**
 * A hex address; with `strict` (viem's default) a mixed- or upper-case one must carry its EIP-55 checksum
 * (all lower-case always passes).
 */
export function isAddress(v: string, opts: { readonly strict?: boolean } = {}): v is Address {
  if (!isHexAddress(v)) return false
  if (v.toLowerCase() === v) return true
  return opts.strict === false || checksumAddress(v) === v
}

/** A hex address in its checksummed form; throws on anything else (the checksum is not checked, as viem's). */
export function getAddress(v: string): Address {
  if (!isHexAddress(v)) throw new Error(`${v.slice(0, 50)} is not a 0x-prefixed 20-byte hex address`)
  return checksumAddress(v)
}
