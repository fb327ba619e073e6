#!/usr/bin/env node
// `npm run lint:openapi`: lints the OpenAPI document the server serves with Redocly's recommended rules
// (.redocly.yaml). The document is built from the real route table: the compiled service is started in this
// process (no sources, a temporary data directory, a free loopback port), GET /v1/openapi.json is answered
// in process, the service is stopped and the document written to dist/openapi.json, which `redocly lint`
// then checks (.redocly.lint-ignore.yaml names the one accepted finding: GET /v1/stream answers 101 or an
// error, never 2xx). Needs a build (dist/); the npm script runs `npm run build` first.
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

process.env['TZ'] = 'UTC'
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const dist = (p) => path.join(root, 'dist', p)

const { loadConfig } = await import(dist('server/config.js'))
const { silentLogger } = await import(dist('engine/log.js'))
const { start } = await import(dist('server/start.js'))

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tidewatch-openapi-'))
let status = 1
try {
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: path.join(tmp, 'data'),
    SOURCES: 'none',
    ADMIN_TOKEN: 'openapi-lint-admin-token-0123456789',
    CHDB_POOL_SIZE: '1'
  })
  const running = await start(config, silentLogger())
  let doc
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
    doc = String(res.body)
  } finally {
    await running.stop()
  }
  // a fixed path: the ignore file names findings by file, relative to the project root
  const file = 'dist/openapi.json'
  fs.writeFileSync(path.join(root, file), JSON.stringify(JSON.parse(doc), null, 2))
  process.stdout.write(`openapi: ${Object.keys(JSON.parse(doc).paths).length} paths written to ${file}\n`)
  try {
    execFileSync(
      process.execPath,
      [path.join(root, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js'), 'lint', '--config', '.redocly.yaml', file],
      {
        cwd: root,
        stdio: 'inherit',
        // no usage reports or update checks: CI and developer machines reach no such service
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' }
      }
    )
    status = 0
  } catch {
    status = 1
  }
} finally {
  fs.rmSync(tmp, { recursive: true, force: true })
}
process.exit(status)
