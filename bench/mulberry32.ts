/**
 * @module
 * mulberry32: the seeded generator of the benchmarks' datasets (uniform in [0, 1), the same sequence for a
 * seed on every run). test/helpers/mulberry32.ts is the tests' copy: bench/ is built into dist/ and imports
 * from test/ only the local venue servers (bench/wire), which tsc then compiles into dist/test/helpers/venues/.
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
}
