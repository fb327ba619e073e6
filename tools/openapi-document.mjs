// The OpenAPI document the server serves, built from the real route table: the service is started in this
// process (no sources, a temporary data directory, a free loopback port), GET /v1/openapi.json is answered
// by the app in process (no request crosses the socket), and the service is stopped. `server` holds the
// server's own loadConfig, silentLogger and start: the tools pass the compiled ones (dist/), the tests the
// sources, so a test reads the document of the code it runs.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

/**
 * @param {{ loadConfig: Function, silentLogger: Function, start: Function }} server
 * @returns {Promise<Record<string, any>>} the parsed document
 */
export async function openapiDocument(server) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tidewatch-openapi-'))
  try {
    const config = server.loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: path.join(tmp, 'data'),
      SOURCES: 'none',
      ADMIN_TOKEN: 'openapi-lint-admin-token-0123456789',
      CHDB_POOL_SIZE: '1'
    })
    const running = await server.start(config, server.silentLogger())
    try {
      const res = await running.app.handle({
        method: 'GET',
        path: '/v1/openapi.json',
        query: new URLSearchParams(),
        headers: {},
        body: null,
        ip: '127.0.0.1'
      })
      if (res.status !== 200) throw new Error(`GET /v1/openapi.json answered ${res.status}: ${String(res.body)}`)
      return JSON.parse(String(res.body))
    } finally {
      await running.stop()
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true })
  }
}

/** The compiled server's parts (needs `npm run build`). */
export async function compiledServer(root) {
  const dist = (p) => path.join(root, 'dist', p)
  const { loadConfig } = await import(dist('server/config.js'))
  const { silentLogger } = await import(dist('engine/log.js'))
  const { start } = await import(dist('server/start.js'))
  return { loadConfig, silentLogger, start }
}
