#!/usr/bin/env node
// `npm run lint:openapi`: lints the OpenAPI document the server serves with Redocly's recommended rules
// (.redocly.yaml). The document is built from the real route table: the compiled service is started in this
// process (tools/openapi-document.mjs), the document written to dist/openapi.json, which `redocly lint`
// then checks (.redocly.lint-ignore.yaml names the one accepted finding: GET /v1/stream answers 101 or an
// error, never 2xx). Needs a build (dist/); the npm script runs `npm run build` first.
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { compiledServer, openapiDocument } from './openapi-document.mjs'

process.env['TZ'] = 'UTC'
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

const doc = await openapiDocument(await compiledServer(root))
// a fixed path: the ignore file names findings by file, relative to the project root
const file = 'dist/openapi.json'
fs.writeFileSync(path.join(root, file), JSON.stringify(doc, null, 2))
process.stdout.write(`openapi: ${Object.keys(doc.paths).length} paths written to ${file}\n`)
let status = 1
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
process.exit(status)
