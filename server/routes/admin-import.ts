/**
 * @module
 * `POST /v1/admin/import` (bearer ADMIN_TOKEN): imports data.binance.vision and Tardis.dev files that are
 * on the server's machine (absolute paths), through the same importer `tidewatch import` runs on a data
 * directory it opens itself. The server reads the files (no upload: archives of several GB stay on disk);
 * the answer is NDJSON events (import-events.ts). Errors found before the run starts (a path that is not
 * absolute or not readable, an import already running) answer 4xx/503 with the usual envelope; a bad
 * file answers an `error` event naming file and line, with nothing of that file written.
 */
import fs from 'node:fs'
import path from 'node:path'
import { Type } from '@sinclair/typebox'
import { ApiError } from '../../engine/errors.js'
import { rangeOf, type TimeRange } from '../../engine/store/compact.js'
import { importJournalDir } from '../../ingest/import/import-journal.js'
import type { ServerContext } from '../context.js'
import type { Route } from '../http/types.js'

/** Files one request may name. */
const MAX_FILES = 10_000
/** Longest path accepted, code points: Linux PATH_MAX. */
const MAX_PATH_LENGTH = 4096

export function adminImportRoutes(ctx: ServerContext): Route[] {
  let running = false
  return [
    {
      method: 'POST',
      path: '/v1/admin/import',
      access: 'admin',
      maxBodyBytes: 4 * 1024 * 1024,
      summary: 'Import data.binance.vision / Tardis.dev history files from the server machine',
      description:
        'Body {"files": [absolute paths], "market"?: "perp"|"spot"}. Answers NDJSON events: progress, file, then done or error. Each file is all or nothing; files already in the store are skipped (idempotent). See docs/import.md.',
      tags: ['admin'],
      body: Type.Object(
        {
          files: Type.Array(
            Type.String({
              minLength: 1,
              maxLength: MAX_PATH_LENGTH,
              pattern: '^/',
              'x-rule': 'an absolute path on the server machine (starting with /)',
              description: 'absolute path of a file on the server machine. A path that does not exist there answers 400'
            }),
            { minItems: 1, maxItems: MAX_FILES }
          ),
          market: Type.Optional(
            Type.Unsafe<'perp' | 'spot'>({
              type: 'string',
              enum: ['perp', 'spot'],
              description: 'Binance files: perp (USD-M futures, the default) or spot; checked against the file layout'
            })
          )
        },
        { additionalProperties: false, description: 'unknown fields are refused (400)' }
      ),
      handler: (req) => {
        const files = req.json!['files'] as string[]
        const market = req.json!['market'] as 'perp' | 'spot' | undefined
        if (ctx.store.kind !== 'chdb') {
          throw new ApiError(
            'unavailable',
            'import reads files through the embedded store; unset CLICKHOUSE_URL or load records with /v1/admin/ingest'
          )
        }
        for (const f of files) {
          if (!path.isAbsolute(f))
            throw new ApiError('invalid_parameter', `files: ${f} is not an absolute path`, { param: 'files' })
          if (!fs.existsSync(f))
            throw new ApiError('invalid_parameter', `files: ${f} does not exist on the server`, { param: 'files' })
        }
        if (running) {
          throw new ApiError('unavailable', 'an import is already running; retry when it ends', {
            headers: { 'retry-after': '5' }
          })
        }
        running = true
        /** the range the import wrote, once it succeeded (its candle partitions are then compacted) */
        let loaded: TimeRange | null = null
        let released = false
        const release = (): void => {
          if (released) return
          released = true
          running = false
        }
        const run = (async function* () {
          try {
            // the importer (readers, archives, staging) is loaded by the first import, not at start
            const { importEvents } = await import('../../ingest/import/import-events.js')
            yield* importEvents(
              ctx.store,
              files,
              {
                tmpDir: path.join(ctx.config.dataDir, 'tmp', 'import'),
                journalDir: importJournalDir(ctx.config.dataDir),
                log: ctx.log,
                ...(market ? { market } : {})
              },
              (err) => ctx.log.error({ err: err instanceof Error ? err.message : String(err) }, 'import failed'),
              (results) => (loaded = rangeOf(results))
            )
          } finally {
            release()
            // imported history shows in the hot endpoints once the live state reloads
            await ctx.live.requestRebuild()
            // a bulk load: the candle partitions it wrote are merged in the background (engine/store/compact.ts)
            if (loaded) ctx.pipeline.onBulkEnd?.(loaded)
          }
        })()
        // a client gone before the first pull ends the generator without running its body: release here too
        const stream: AsyncIterable<Uint8Array> = {
          [Symbol.asyncIterator]: () => ({
            next: () => run.next(),
            return: async () => {
              const r = await run.return(undefined)
              release()
              return r
            }
          })
        }
        return { status: 200, headers: { 'content-type': 'application/x-ndjson' }, body: { stream } }
      }
    }
  ]
}
