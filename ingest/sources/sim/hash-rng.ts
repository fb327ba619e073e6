/**
 * @module
 * Counter-based random numbers for the simulated market: every draw is a pure function of
 * (seed, stream, slot, draw index), never the next value of a sequential generator. Any time window can
 * therefore be generated on its own, in any order, and splitting a window changes nothing (additivity).
 * Mixing is 32-bit murmur3 (Math.imul), so a draw costs a few integer ops and no allocation or BigInt.
 */

const TWO_POW_32 = 4294967296
/** 2^32 / golden ratio: spreads consecutive draw indexes of one key across the 32-bit space */
const GOLDEN_32 = 0x9e3779b9
/** standard deviation of a sum of four uniform bytes (Irwin-Hall), used to scale `fastNormal` */
const FOUR_BYTES_SD = Math.sqrt((4 * (256 * 256 - 1)) / 12)
/** 1 / standard deviation of the standard logistic distribution (pi / sqrt 3) */
const LOGISTIC_TO_UNIT_SD = Math.sqrt(3) / Math.PI

/** murmur3 finalizer: a bijective avalanche of a 32-bit integer; returns an unsigned 32-bit value */
export function fmix32(h: number): number {
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  h ^= h >>> 16
  return h >>> 0
}

/** murmur3 body step: folds the 32-bit word `k` into the running hash `h` */
function mixWord(h: number, k: number): number {
  k = Math.imul(k, 0xcc9e2d51)
  k = (k << 15) | (k >>> 17)
  k = Math.imul(k, 0x1b873593)
  h ^= k
  h = (h << 13) | (h >>> 19)
  return (Math.imul(h, 5) + 0xe6546b64) | 0
}

/** 32-bit seed from any safe integer seed (both halves count, so 1 and 2^32 + 1 differ) */
export function mixSeed(seed: number): number {
  return fmix32(mixWord(mixWord(0x2545f491, seed >>> 0), Math.floor(seed / TWO_POW_32) | 0))
}

/** stream id from a tag (< 2048) and an index (< 2^20), so streams of different modules never collide */
export function streamId(tag: number, index: number): number {
  return tag * 0x100000 + index
}

/** 32-bit key of (seed, stream, slot); `slot` may be any safe integer, negative included */
export function hashKey(seed: number, stream: number, slot: number): number {
  const h = mixWord(mixWord(mixWord(seed, stream), slot >>> 0), Math.floor(slot / TWO_POW_32) | 0)
  return fmix32(h ^ 12)
}

/** 32-bit word number `draw` of a key */
export function word(key: number, draw: number): number {
  return fmix32((key + Math.imul(draw + 1, GOLDEN_32)) | 0)
}

/** uniform in the open interval (0, 1): safe for logarithms */
export function unit(key: number, draw: number): number {
  return (word(key, draw) + 0.5) / TWO_POW_32
}

/** standard normal by Box-Muller; consumes draws `draw` and `draw + 1` */
export function gauss(key: number, draw: number): number {
  return Math.sqrt(-2 * Math.log(unit(key, draw))) * Math.cos(2 * Math.PI * unit(key, draw + 1))
}

/** approximately standard normal (sum of 4 bytes, bounded at about ±3.5): no transcendental call */
export function fastNormal(key: number, draw: number): number {
  const w = word(key, draw)
  return ((w & 255) + ((w >>> 8) & 255) + ((w >>> 16) & 255) + (w >>> 24) - 510) / FOUR_BYTES_SD
}

/** unit-variance logistic variate from a uniform: normal-like with fatter tails, one logarithm */
export function logisticZ(u: number): number {
  return Math.log(u / (1 - u)) * LOGISTIC_TO_UNIT_SD
}

/**
 * Continuous noise in time: near-normal values (`fastNormal`) at knots every `periodMs`,
 * smoothstep-interpolated between them. Same (seed, stream, t) gives the same value; nearby times give
 * nearby values. Cheap: two keys, no transcendental call.
 */
export function smoothNoise(seed: number, stream: number, t: number, periodMs: number): number {
  const x = t / periodMs
  const i = Math.floor(x)
  const f = x - i
  const a = fastNormal(hashKey(seed, stream, i), 0)
  const b = fastNormal(hashKey(seed, stream, i + 1), 0)
  return a + (b - a) * f * f * (3 - 2 * f)
}
