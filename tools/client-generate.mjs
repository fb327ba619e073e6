#!/usr/bin/env node
// `npm run client:generate`: rewrites clients/ts/schema.d.ts, the typed client's types, from the OpenAPI
// document of the compiled service (tools/openapi-document.mjs; the npm script runs `npm run build` first).
// test/unit/client-drift.test.ts fails while the checked-in file differs from what this writes.
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { schemaSource } from '../clients/ts/generate.mjs'
import { compiledServer, openapiDocument } from './openapi-document.mjs'

process.env['TZ'] = 'UTC'
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const target = path.join(root, 'clients', 'ts', 'schema.d.ts')

const doc = await openapiDocument(await compiledServer(root))
fs.writeFileSync(target, await schemaSource(doc, target))
process.stdout.write(`client: ${Object.keys(doc.paths).length} paths written to ${path.relative(root, target)}\n`)
process.exit(0)
