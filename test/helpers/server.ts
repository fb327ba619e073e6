import { loadConfig } from '../../server/config.js'
import { silentLogger } from '../../engine/log.js'
import { start, type Running } from '../../server/start.js'
import { tmpDir } from './tmp-dir.js'

export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789'

/** Starts the real server in-process on a free loopback port with its own data dir. */
export async function startTestServer(
  env: Record<string, string> = {},
  opts: { readonly waitReady?: boolean } = {}
): Promise<{
  running: Running
  base: string
  dataDir: string
  stop: () => Promise<void>
}> {
  const tmp = tmpDir()
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: tmp.dir,
    SOURCES: 'none',
    ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    CHDB_POOL_SIZE: '2',
    ...env
  })
  const running = await start(config, silentLogger())
  // data endpoints answer 503 warming_up until the live state is built (server/readiness.ts)
  if (opts.waitReady !== false) await running.ready
  return {
    running,
    base: `http://127.0.0.1:${running.port}`,
    dataDir: tmp.dir,
    stop: async () => {
      await running.stop()
      tmp.cleanup()
    }
  }
}

export function ndjson(rows: readonly object[]): string {
  return rows.map((r) => JSON.stringify(r)).join('\n') + '\n'
}

/** Parsed JSON body; `any` on purpose: tests assert on the shape themselves. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function jsonBody(res: Response): Promise<any> {
  return res.json()
}

/** Loads records through the admin ingest API; throws with the server's answer unless it is 201. */
export async function ingestRecords(base: string, kind: string, rows: readonly object[]): Promise<void> {
  const res = await fetch(`${base}/v1/admin/ingest/${kind}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
    body: ndjson(rows)
  })
  if (res.status !== 201) throw new Error(`ingest ${kind}: ${res.status} ${await res.text()}`)
}
