/**
 * The checked-in client types (clients/ts/schema.d.ts) are what `npm run client:generate` writes for the
 * OpenAPI document of this code: the document is built in process from the server's sources the same way
 * the generator builds it from dist/ (tools/openapi-document.mjs), turned into TypeScript by the same
 * function, and compared with the file. A route, parameter or answer changed without regenerating fails.
 */
import fs from 'node:fs'
import path from 'node:path'
import { expect, it } from 'vitest'
import { schemaSource } from '../../clients/ts/generate.mjs'
import { openapiDocument } from '../../tools/openapi-document.mjs'
import { loadConfig } from '../../server/config.js'
import { silentLogger } from '../../engine/log.js'
import { start } from '../../server/start.js'

const TARGET = path.resolve(import.meta.dirname, '..', '..', 'clients', 'ts', 'schema.d.ts')

it('clients/ts/schema.d.ts matches the OpenAPI document of the code', async () => {
  const doc = await openapiDocument({ loadConfig, silentLogger, start })
  const expected = await schemaSource(doc, TARGET)
  const actual = fs.readFileSync(TARGET, 'utf8')
  // one assertion with the fix in its message; the diff of a mismatch is the generator's job to explain
  if (actual !== expected) {
    const lines = [actual.split('\n'), expected.split('\n')] as const
    const at = lines[0].findIndex((l, i) => l !== lines[1][i])
    expect.fail(
      `clients/ts/schema.d.ts is out of date with the OpenAPI document (first difference at line ${at + 1}: ` +
        `${JSON.stringify(lines[0][at])} vs ${JSON.stringify(lines[1][at])}): run npm run client:generate`
    )
  }
})
