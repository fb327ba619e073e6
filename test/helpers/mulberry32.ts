/**
 * mulberry32: a seeded uniform generator on [0, 1) (32-bit state, period 2^32), so a test's random data is
 * the same on every run with the same seed; tests print the seed so a failure can be rerun. The benchmarks
 * keep their own copies (bench/ is built into dist/ and does not import test/).
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = Math.imul(a ^ (a >>> 15), a | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
