/**
 * The order test files start in. Two files run at a time (vitest.config.ts), so the run ends when the last
 * long file does: a file of minutes that starts late runs alone while the other worker idles. Vitest starts
 * the files its cache (node_modules/.vite/vitest) timed longest first, but a clean clone (CI after
 * `npm ci`) has no cache and Vitest falls back to file size, which puts 30-second files among the last.
 * This sequencer keeps Vitest's order and moves the files known to be slow to its front, slowest first.
 */
import path from 'node:path'
import { BaseSequencer, type TestSpecification } from 'vitest/node'

/**
 * The slowest files of a full run on the 2-core development machine with nothing else running, slowest
 * first (seconds measured then, rounded). A file missing here still runs, in Vitest's own order.
 */
export const SLOW_FILES: readonly string[] = [
  'test/e2e/signal-stops.test.ts', // 170 s: 21 starts of `npm start`
  'test/browser/dashboard.test.ts', // 83 s: chromium against a demo server
  'test/e2e/import-crash.test.ts', // 65 s
  'test/integration/openapi-params.test.ts', // 52 s
  'test/integration/openapi-contract.test.ts', // 44 s
  'test/integration/backtest-export.test.ts', // 41 s
  'test/integration/export-formats.test.ts', // 37 s
  'test/integration/confirm-series-demo.test.ts', // 33 s
  'test/integration/scale-fixed-window.test.ts', // 33 s
  'test/e2e/startup.test.ts', // 30 s
  'test/e2e/crash-sim.test.ts', // 29 s
  'test/e2e/replay-crash.test.ts' // 28 s
]

const RANK = new Map(SLOW_FILES.map((f, i) => [f, i]))

export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const ordered = await super.sort(files)
    const root = this.ctx.config.root
    const rank = (f: TestSpecification): number =>
      RANK.get(path.relative(root, f.moduleId).split(path.sep).join('/')) ?? SLOW_FILES.length
    // Array.prototype.sort is stable: files of equal rank (all the unlisted ones) keep Vitest's order
    return ordered
      .map((f, i) => ({ f, i, r: rank(f) }))
      .sort((a, b) => a.r - b.r || a.i - b.i)
      .map((x) => x.f)
  }
}
