/**
 * The NDJSON worker's failures reach the caller: a worker that cannot start (its built file missing, as in a
 * checkout that was never built) rejects each request instead of leaving it waiting forever, and a later
 * request tries a new worker.
 */
import path from 'node:path'
import { expect, test } from 'vitest'
import { NdjsonParser } from '../../ingest/workers/ndjson-parser.js'
import { distPath } from '../../engine/paths.js'
import { tmpDir } from '../helpers/tmp-dir.js'

const tmp = tmpDir()

test('a worker that cannot start rejects every request', async () => {
  const parser = new NdjsonParser(path.join(tmp.dir, 'no-such-worker.js'))
  try {
    await expect(parser.parse('trade', Buffer.from('{}\n'))).rejects.toThrow()
    // the failed worker is dropped: the next request starts another one, and is rejected too, not left waiting
    await expect(parser.parseFile('trade', path.join(tmp.dir, 'body.ndjson'))).rejects.toThrow()
  } finally {
    await parser.close()
    tmp.cleanup()
  }
})

test('the built worker answers (control)', async () => {
  const parser = new NdjsonParser(distPath('ingest', 'workers', 'ndjson-worker.js'))
  try {
    const result = await parser.parse('trade', Buffer.from('not json\n'))
    expect(result).toBeDefined()
  } finally {
    await parser.close()
  }
})
