/**
 * @module
 * Admin API (bearer ADMIN_TOKEN). `POST /v1/admin/ingest/{kind}` takes NDJSON of normalized records of
 * that kind, all or nothing: a bad line answers 400 naming the line and field and nothing is written.
 * The body is spooled to a temp file as it arrives and parsed from there in pieces (never whole in
 * memory). A 201 means the store acknowledged every row. The write is idempotent (dedup token from the body's
 * content), so retrying a request after a 5xx or a lost response never duplicates rows.
 */
import crypto from 'node:crypto'
import { ApiError } from '../../engine/errors.js'
import { RECORD_SCHEMAS } from '../../schemas/api/records.js'
import { isRecordKind, RECORD_KINDS } from '../../engine/records/fields.js'
import type { NdjsonParser } from '../../ingest/workers/ndjson-parser.js'
import { Type } from '@sinclair/typebox'
import type { ServerContext } from '../context.js'
import { json, type Route } from '../http/types.js'
import { adminImportRoutes } from './admin-import.js'

/** Largest NDJSON body, bytes: about a million typical records; larger loads are split by the client. */
export const MAX_INGEST_BODY_BYTES = 256 * 1024 * 1024

const INGEST_RESPONSE = Type.Object({
  kind: Type.String(),
  rows: Type.Integer(),
  tables: Type.Array(Type.Object({ table: Type.String(), rows: Type.Integer() }))
})

export function adminRoutes(ctx: ServerContext, parser: NdjsonParser): Route[] {
  return [
    ...adminImportRoutes(ctx),
    {
      method: 'POST',
      path: '/v1/admin/ingest/:kind',
      pathParams: Type.Object({
        kind: Type.String({ enum: [...RECORD_KINDS], description: 'the kind of every record in the body' })
      }),
      access: 'admin',
      maxBodyBytes: MAX_INGEST_BODY_BYTES,
      spoolBody: true,
      status: 201,
      summary: 'Load normalized records of one kind (NDJSON), all or nothing',
      description: `Kinds: ${RECORD_KINDS.join(', ')}. A bad line answers 400 naming the line and field; nothing is written. Idempotent: the same body posted again writes nothing twice. At most ${MAX_INGEST_BODY_BYTES} bytes and 1,000,000 records.`,
      tags: ['admin'],
      rawBody: {
        contentType: 'application/x-ndjson',
        description:
          'one normalized record (JSON object) per line, all of the kind named in the path; fields, units and examples: docs/records.md',
        itemSchemas: RECORD_SCHEMAS
      },
      response: INGEST_RESPONSE,
      handler: async (req) => {
        const kind = req.params['kind']!
        if (!isRecordKind(kind)) {
          throw new ApiError('not_found', `unknown record kind '${kind}'; kinds are ${RECORD_KINDS.join(', ')}`)
        }
        // over a socket the body arrives spooled to a file; in-process callers may pass it in memory
        const file = req.bodyFile ?? null
        const body = req.body
        if (file ? file.bytes === 0 : !body || body.length === 0) {
          throw new ApiError('invalid_body', 'the body must be NDJSON records')
        }
        if (parser.busy) {
          throw new ApiError('unavailable', 'too many ingest requests in progress; retry shortly', {
            headers: { 'retry-after': '1' }
          })
        }
        const parsed = file ? await parser.parseFile(kind, file.path) : await parser.parse(kind, body!)
        if (!parsed.ok) {
          const { line, field, message } = parsed.problem
          const where = line > 0 ? `line ${line}${field ? `, field ${field}` : ''}: ` : 'body: '
          throw new ApiError('invalid_record', `${where}${message}; nothing was written`, {
            ...(field ? { param: field } : {}),
            details: { line }
          })
        }
        const bodyHash = file ? file.sha1 : crypto.createHash('sha1').update(body!).digest('hex')
        const gen = await ctx.pipeline.writeDirect(parsed.chunks, (chunk) => `admin:${chunk.table}:${bodyHash}`)
        // written: now the hot endpoints reflect it before the answer (bulk loads reload the live state)
        if (parsed.records) await ctx.live.offer(parsed.records, gen)
        else await ctx.live.requestRebuild()
        return json(201, {
          kind,
          rows: parsed.rows,
          tables: parsed.chunks.map((c) => ({ table: c.table, rows: c.rows }))
        })
      }
    }
  ]
}
