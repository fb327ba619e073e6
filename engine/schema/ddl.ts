/**
 * @module
 * Renders the schema templates in `schemas/*.sql` for a single node (chDB or one server) or for a cluster.
 *
 * Placeholders:
 * - `{{on_cluster}}`: empty, or `ON CLUSTER name`
 * - `{{table:NAME}}`: a storage table; `NAME` on one node, `NAME_local` on a cluster (materialized views
 *   read and write the local tables, so each shard aggregates its own rows)
 * - `{{engine:Kind(args)}}`: `Kind(args)`, or `ReplicatedKind('/clickhouse/tables/{shard}/{database}/{table}',
 *   '{replica}', args)` on a cluster
 * - `{{dedup_window}}`: the insert dedup window every table needs so a retried batch is not written twice
 * - line `-- @distributed NAME SHARDING_EXPR`: on a cluster, the Distributed table `NAME` over `NAME_local`;
 *   nothing on one node
 */

export interface DdlTarget {
  /** cluster name; undefined for a single node */
  readonly cluster?: string | undefined
}

/** Recent insert blocks remembered per table for dedup (ClickHouse's replicated default is 1000 too). */
const DEDUP_WINDOW = 1000

const REPLICA_PATH = "'/clickhouse/tables/{shard}/{database}/{table}', '{replica}'"

function renderEngine(spec: string, clustered: boolean): string {
  if (!clustered) return spec
  const m = /^(\w+)(?:\((.*)\))?$/.exec(spec.trim())
  if (!m) throw new Error(`bad engine placeholder: ${spec}`)
  const args = m[2] ? `, ${m[2]}` : ''
  return `Replicated${m[1]}(${REPLICA_PATH}${args})`
}

function renderStatement(stmt: string, target: DdlTarget): string {
  const clustered = target.cluster !== undefined
  return stmt
    .replace(/\{\{on_cluster\}\}/g, clustered ? `ON CLUSTER ${target.cluster}` : '')
    .replace(/\{\{table:(\w+)\}\}/g, (_, name: string) => (clustered ? `${name}_local` : name))
    .replace(/\{\{engine:([^}]+)\}\}/g, (_, spec: string) => renderEngine(spec, clustered))
    .replace(
      /\{\{dedup_window\}\}/g,
      clustered
        ? `replicated_deduplication_window = ${DEDUP_WINDOW}`
        : `non_replicated_deduplication_window = ${DEDUP_WINDOW}`
    )
    .replace(/[ \t]+\n/g, '\n')
    .replace(/ {2,}/g, ' ')
    .trim()
}

function distributed(line: string, cluster: string): string {
  const m = /^--\s*@distributed\s+(\w+)\s+(.+)$/.exec(line.trim())
  if (!m) throw new Error(`bad @distributed directive: ${line}`)
  const [, name, shardBy] = m
  return (
    `CREATE TABLE IF NOT EXISTS ${name} ON CLUSTER ${cluster} AS ${name}_local ` +
    `ENGINE = Distributed(${cluster}, currentDatabase(), ${name}_local, ${shardBy!.trim()})`
  )
}

/** Splits a schema file into rendered statements, in order. */
export function renderSchema(sql: string, target: DdlTarget): string[] {
  const statements: string[] = []
  let current: string[] = []
  const flush = (): void => {
    const text = current.join('\n').trim()
    if (text) statements.push(renderStatement(text, target))
    current = []
  }
  for (const line of sql.split('\n')) {
    const trimmed = line.trim()
    if (trimmed.startsWith('-- @distributed')) {
      flush()
      if (target.cluster !== undefined) statements.push(distributed(trimmed, target.cluster))
      continue
    }
    if (trimmed.startsWith('--')) continue
    current.push(line)
    if (trimmed.endsWith(';')) {
      current[current.length - 1] = line.replace(/;\s*$/, '')
      flush()
    }
  }
  flush()
  return statements
}
