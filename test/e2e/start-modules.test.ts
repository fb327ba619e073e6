/**
 * What a start loads: the code of capabilities a configuration does not use is imported when first used,
 * not at every start (docs/benchmarks.md, "Cold start"). The built server runs with SOURCES=none, no chain
 * node and a module-load recorder (test/helpers/record-modules.mjs) until it is ready.
 */
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { projectRoot } from '../../engine/paths.js'
import { freePort, spawnServer, waitForHealth } from '../helpers/spawn-server.js'
import { tmpDir } from '../helpers/tmp-dir.js'

const RECORDER = path.join(projectRoot(), 'test', 'helpers', 'record-modules.mjs')

/** Loaded on first use only: module URL fragments, and what loads them. */
const LAZY = [
  [
    '/node_modules/ws/',
    'a venue feed or chain node WebSocket (ingest/sources/feed/feed-socket.ts, engine/chain/ws-lean.ts)'
  ],
  ['/node_modules/yauzl/', 'an import (server/routes/admin-import.ts)'],
  ['/dist/ingest/import/stage-file.js', 'an import'],
  ['/dist/engine/export/encode.js', 'an export (server/routes/history/export.ts)'],
  ['/dist/ingest/sources/chain/evm-whale-source.js', 'a chain source in SOURCES (server/modules/chain-sources.ts)'],
  ['/dist/ingest/sources/chain/solana-source.js', 'a chain source in SOURCES'],
  ['/node_modules/viem/', 'a chain node (<CHAIN>_RPC_URL: server/modules/chain-nodes.ts, node-intel-open.ts)'],
  ['/dist/engine/chain/chain-client.js', 'a chain node (server/modules/chain-nodes.ts)'],
  ['/dist/engine/nodeintel/service.js', 'a node-intelligence chain node (server/modules/node-intel-open.ts)']
] as const

describe('a start with SOURCES=none', () => {
  it('does not load the code of capabilities it does not use', async () => {
    const { dir, cleanup } = tmpDir()
    const record = path.join(dir, 'modules.txt')
    const s = spawnServer(
      {
        DATA_DIR: path.join(dir, 'data'),
        SOURCES: 'none',
        NODE_OPTIONS: `--import=${RECORDER}`,
        RECORD_MODULES: record
      },
      await freePort()
    )
    try {
      await waitForHealth(s)
      const loaded = fs.readFileSync(record, 'utf8')
      expect(loaded).toContain('/dist/server/start.js') // the recorder sees the server's modules
      const wrongly = LAZY.filter(([url]) => loaded.includes(url)).map(([url, by]) => `${url} (for ${by})`)
      expect(wrongly).toEqual([])
    } finally {
      s.child.kill('SIGTERM')
      await s.exited
      cleanup()
    }
  }, 120_000)
})
