/**
 * @module
 * Decoding the probe's return data (the honeypot check's hot path). viem's generic ABI decoder spends
 * ~0.1 ms on the probe's nested tuple (hex to bytes, a cursor, a checksum per address); the probe always
 * answers in one layout, the canonical ABI encoding solc writes:
 *
 *   word 0: offset of the result tuple (32)
 *   result tuple (14 head words): blockNumber, codeSize, decimals, pair, reserveBase, reserveToken,
 *     amountIn, ↑buy, approveOk, sellAllOk, ↑sell, sellSent, pairReceived, ↑xfer
 *   each step (↑ offsets from the tuple's start, in this order, back to back): ok, expected, received,
 *     gasUsed, ↑err (160, from the step's start), err's length, err's bytes padded to 32-byte words
 *
 * `decodeProbeFast` reads that layout straight from the hex text and returns null for anything else
 * (another layout, bad hex, a bool that is neither 0 nor 1, an address with high bits, non-zero padding,
 * trailing bytes); `decodeProbe` (engine/nodeintel/probe.ts) then uses viem's decoder. Where the fast
 * decoder answers, viem's decoder answers the same (test/unit/nodeintel-probe-fast.test.ts, generated
 * results and mutations).
 */
import { checksumAddress, type Address, type Hex } from 'viem'
import type { ProbeResult, ProbeStep } from './probe.js'

/** hex digits per 32-byte word */
const W = 64
/** head words of the result tuple */
const HEAD_WORDS = 14
/** static words of a step before its err bytes: ok, expected, received, gasUsed, ↑err, err length */
const STEP_WORDS = 6
const ZERO_WORD = '0'.repeat(W)
const ONE_WORD = `${'0'.repeat(W - 1)}1`
const HIGH_ZERO = '0'.repeat(W - 40)
/** the high digits of a word holding a value below 2^32 */
const HIGH_56 = '0'.repeat(W - 8)
const HEX = /^0x(?:[0-9a-fA-F]{64})+$/

/** The canonical probe result, or null when `data` is laid out any other way. */
export function decodeProbeFast(data: string): ProbeResult | null {
  if (data.length < 2 + W * (1 + HEAD_WORDS) || !HEX.test(data)) return null
  // positions count hex digits after the 0x; digits may be upper-case (compared as numbers, or lower-cased)
  const hex = data
  const at = (i: number): number => 2 + i * W
  const word = (i: number): string => hex.slice(at(i), at(i + 1))
  const uint = (i: number): bigint => BigInt(`0x${word(i)}`)
  /** a word holding a small offset or length (< 2^32), in words; -1 when not word-aligned or too large */
  const small = (i: number): number => {
    const w = word(i)
    if (!w.startsWith(HIGH_56)) return -1
    const n = parseInt(w.slice(W - 8), 16)
    return n % 32 === 0 ? n / 32 : -1
  }
  const bool = (i: number): boolean | null => {
    const w = word(i)
    return w === ONE_WORD ? true : w === ZERO_WORD ? false : null
  }
  if (small(0) !== 1) return null
  const T = 1 // the tuple's first word
  const pairWord = word(T + 3)
  if (!pairWord.startsWith(HIGH_ZERO)) return null
  const approveOk = bool(T + 8)
  const sellAllOk = bool(T + 9)
  if (approveOk === null || sellAllOk === null) return null

  let next = HEAD_WORDS // where the next step must start, words from T
  const step = (headIndex: number): ProbeStep | null => {
    if (small(T + headIndex) !== next) return null
    const s = T + next
    const ok = bool(s)
    if (ok === null || small(s + 4) !== 5) return null
    const lenWord = word(s + 5)
    if (!lenWord.startsWith(HIGH_56)) return null
    const len = parseInt(lenWord.slice(W - 8), 16) // bytes
    const padded = Math.ceil(len / 32)
    const start = at(s + STEP_WORDS)
    const end = start + len * 2
    const stop = at(s + STEP_WORDS + padded)
    if (stop > hex.length) return null
    for (let k = end; k < stop; k++) if (hex.charCodeAt(k) !== 48 /* '0' */) return null
    next += STEP_WORDS + padded
    return {
      ok,
      expected: uint(s + 1),
      received: uint(s + 2),
      gasUsed: uint(s + 3),
      err: len === 0 ? '0x' : (`0x${hex.slice(start, end).toLowerCase()}` as Hex)
    }
  }
  const buy = step(7)
  if (!buy) return null
  const sell = step(10)
  if (!sell) return null
  const xfer = step(13)
  if (!xfer || at(T + next) !== hex.length) return null
  return {
    blockNumber: uint(T),
    codeSize: uint(T + 1),
    decimals: uint(T + 2),
    pair: checksumAddress(`0x${pairWord.slice(W - 40).toLowerCase()}` as Address),
    reserveBase: uint(T + 4),
    reserveToken: uint(T + 5),
    amountIn: uint(T + 6),
    buy,
    approveOk,
    sellAllOk,
    sell,
    sellSent: uint(T + 11),
    pairReceived: uint(T + 12),
    xfer
  }
}
