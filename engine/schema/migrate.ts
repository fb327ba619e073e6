/**
 * @module
 * Applies `schemas/NNN_name.sql` in order at start. Each applied file is recorded in `schema_migrations`
 * with its checksum; an applied file is skipped, and one that changed after it was applied stops the
 * start (add a new numbered file instead of editing an applied one). Statements are idempotent
 * (`IF NOT EXISTS`), so a start interrupted mid-file re-runs that file safely.
 */
import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import type { Store } from '../store/store.js'
import { projectRoot } from '../paths.js'
import { renderSchema, type DdlTarget } from './ddl.js'

export class MigrationError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'MigrationError'
  }
}

const MIGRATIONS_TABLE = `
CREATE TABLE IF NOT EXISTS {{table:schema_migrations}} {{on_cluster}} (
  version UInt32,
  name String,
  checksum String,
  applied_at DateTime64(3, 'UTC') DEFAULT now64(3)
) ENGINE = {{engine:MergeTree}}
ORDER BY version;
-- @distributed schema_migrations rand()
`

export interface SchemaFile {
  readonly version: number
  readonly name: string
  readonly sql: string
  readonly checksum: string
}

export function schemaDir(): string {
  return path.join(projectRoot(), 'schemas')
}

export function readSchemaFiles(dir = schemaDir()): SchemaFile[] {
  return fs
    .readdirSync(dir)
    .filter((f) => /^\d{3}_[\w-]+\.sql$/.test(f))
    .sort()
    .map((name) => {
      const sql = fs.readFileSync(path.join(dir, name), 'utf8')
      return {
        version: Number(name.slice(0, 3)),
        name,
        sql,
        checksum: crypto.createHash('sha256').update(sql).digest('hex')
      }
    })
}

/** Brings the store's schema up to date. Returns the names of the files applied now. */
export async function migrate(store: Store, target: DdlTarget, dir = schemaDir()): Promise<string[]> {
  for (const stmt of renderSchema(MIGRATIONS_TABLE, target)) await store.command(stmt)
  const rows = await store.query<{ version: number; checksum: string }>(
    'SELECT version, argMax(checksum, applied_at) AS checksum FROM schema_migrations GROUP BY version'
  )
  const applied = new Map(rows.map((r) => [r.version, r.checksum]))
  const done: string[] = []
  for (const file of readSchemaFiles(dir)) {
    const known = applied.get(file.version)
    if (known === file.checksum) continue
    if (known !== undefined) {
      throw new MigrationError(
        `schemas/${file.name} changed after it was applied (checksum differs); add a new numbered file instead`
      )
    }
    for (const stmt of renderSchema(file.sql, target)) await store.command(stmt)
    await store.command(
      'INSERT INTO schema_migrations (version, name, checksum) VALUES ({version:UInt32}, {name:String}, {checksum:String})',
      { version: file.version, name: file.name, checksum: file.checksum }
    )
    done.push(file.name)
  }
  return done
}
