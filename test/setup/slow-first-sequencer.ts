/**
 * The order test files start in. Two workers take files from one queue in this order, so the run ends when
 * the file started last ends: a long file started late runs alone while the other worker idles. Vitest's
 * own order sorts by the durations of the previous run in its cache (node_modules/.vite/vitest), and on a
 * clean clone (CI), which has none, by file size, which says little about duration (signal-stops, the
 * longest file, is 13th by size; confirm-series-demo, 32 s, is 112th). This sequencer starts the files
 * known to be long first, longest first, and leaves every other file in Vitest's order (the projects one
 * after the other, unit files last, so their shared process is reused), on a clean clone and with a cache
 * alike.
 */
import path from 'node:path'
import { BaseSequencer, type TestSpecification } from 'vitest/node'

/**
 * The longest files, longest first (each file alone on the quiet 2-core machine, ms: signal-stops
 * 181,000; import-crash 76,000; then 49,000 down to 24,000). The dashboard's two browser files each start
 * a server with a day of demo data and Chromium; not yet timed alone on the quiet machine, they stand
 * after signal-stops by their times side by side at load average 30 (account 84 s, pages 67 s). A file
 * missing here only starts later; a path that no longer exists is ignored.
 */
export const SLOW_FILES: readonly string[] = [
  'test/e2e/signal-stops.test.ts',
  'test/browser/dashboard-account.test.ts',
  'test/browser/dashboard-pages.test.ts',
  'test/e2e/import-crash.test.ts',
  'test/integration/openapi-params.test.ts',
  'test/integration/openapi-contract.test.ts',
  'test/integration/backtest-export.test.ts',
  'test/integration/webhooks-delivery.test.ts',
  'test/integration/confirm-series-demo.test.ts',
  'test/e2e/disk-full.test.ts',
  'test/integration/export-formats.test.ts',
  'test/integration/scale-fixed-window.test.ts',
  'test/integration/account-security.test.ts',
  'test/e2e/crash-sim.test.ts',
  'test/e2e/startup.test.ts',
  'test/integration/confirm-at.test.ts'
]

/** `files` with those of `slow` first, in `slow`'s order, then the rest in their given order. */
export function slowFirst<T>(files: readonly T[], slow: readonly string[], name: (f: T) => string): T[] {
  const rank = new Map(slow.map((f, i) => [f, i]))
  const listed = files.filter((f) => rank.has(name(f)))
  listed.sort((a, b) => rank.get(name(a))! - rank.get(name(b))!)
  return [...listed, ...files.filter((f) => !rank.has(name(f)))]
}

export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root
    const name = (f: TestSpecification) => path.relative(root, f.moduleId).split(path.sep).join('/')
    return slowFirst(await super.sort(files), SLOW_FILES, name)
  }
}
