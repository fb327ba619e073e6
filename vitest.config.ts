import { defineConfig } from 'vitest/config'

// chDB must be driven from one thread per process, so test files run in forked processes
// (Vitest's `forks` pool), never in worker threads. Each test file gets its own temp data dir.
export default defineConfig({
  test: {
    pool: 'forks',
    include: ['test/**/*.test.ts'],
    // an unhandled rejection fails the test it happened in (test/setup/unhandled.ts)
    setupFiles: ['test/setup/unhandled.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    env: { TZ: 'UTC' },
    reporters: ['default']
  }
})
