import os from 'node:os'
import { defineConfig } from 'vitest/config'
import { SlowFirstSequencer } from './test/setup/slow-first-sequencer.js'

/**
 * Route tests that share one server and store (test/setup/shared-server.ts): each writes only under its
 * own symbols and makes its own keys, and needs nothing of the server process beyond HTTP and the control
 * channel (rebuild the live state, read the store). Option quotes have no symbol of their own: ETH's
 * belong to read-api (its options history asserts every point), and the only other quotes here are
 * records-doc's fixed-time BTC examples. No file here asserts whale-window or health totals.
 */
const SHARED_SERVER_FILES = [
  'test/integration/confirm-api.test.ts',
  'test/integration/history-aligned.test.ts',
  'test/integration/history-funding.test.ts',
  'test/integration/history-ohlcv.test.ts',
  'test/integration/http-parser-limits.test.ts',
  'test/integration/openapi-ingest-body.test.ts',
  'test/integration/read-api.test.ts',
  'test/integration/records-doc.test.ts',
  'test/integration/stream-unmasked.test.ts',
  'test/integration/symbols-api.test.ts',
  'test/integration/uws-adapter.test.ts',
  'test/integration/web-static.test.ts'
]

/*
 * Route tests that only read yet keep their own server, and why (each would see or change what another
 * file's data makes):
 * - options-chain, options-history-total, hot-read-bytes: assert a currency's whole options chain or history
 *   (BTC or ETH, the only option currencies), which records-doc's and read-api's quotes change;
 * - whales-api, history-whales: assert the whale window's totals and hourly whale history across chains;
 * - openapi-params, openapi-contract: load the OpenAPI seed rows (BTC, ETH, whales, options), which would
 *   change every file's answers above;
 * - stream: reads the stream hub's in-process objects and posts BTC and ETH trades;
 * - fuzz, history-fuzz, server, access, records-limits: drive the in-process app, routes, key registry or
 *   store (stopping TTL merges); account-flow, account-security, body-budget: settings of their own (trusted
 *   proxy hops, the body memory budget).
 */

// chDB must be driven from one thread per process, so test files run in forked processes
// (Vitest's `forks` pool), never in worker threads. Unit tests (no store, no server) share processes. Each test file that boots its own server gets its own
// temp data dir; the shared server runs in Vitest's main process, started only when one of its files runs.
export default defineConfig({
  test: {
    pool: 'forks',
    // Vitest's default is one worker less than the cores (1 on a 2-core machine); most files wait on sockets,
    // child processes and timers more than they compute, so two files at a time, or one per core
    maxWorkers: Math.max(2, os.availableParallelism() - 1),
    // an unhandled rejection fails the test it happened in (test/setup/unhandled.ts)
    setupFiles: ['test/setup/unhandled.ts'],
    // the files known to be long start first, so the run does not end with one of them alone
    // (test/setup/slow-first-sequencer.ts)
    sequence: { sequencer: SlowFirstSequencer },
    testTimeout: 60_000,
    hookTimeout: 120_000,
    env: { TZ: 'UTC' },
    reporters: ['default'],
    projects: [
      {
        extends: true,
        // unit tests hold no store, server or process-wide setting: one process runs many files, so the
        // modules they share are imported once per process, not once per file
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'], isolate: false }
      },
      {
        extends: true,
        test: {
          name: 'own-server',
          include: ['test/**/*.test.ts'],
          exclude: ['test/unit/**', ...SHARED_SERVER_FILES]
        }
      },
      {
        extends: true,
        test: {
          name: 'shared-server',
          include: SHARED_SERVER_FILES,
          globalSetup: ['test/setup/shared-server.ts']
        }
      }
    ]
  }
})
