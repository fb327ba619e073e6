import { describe, it, expect } from 'vitest'
import { renderSchema } from '../../engine/schema/ddl.js'
import { readSchemaFiles } from '../../engine/schema/migrate.js'

const SAMPLE = `
-- comment
CREATE TABLE IF NOT EXISTS {{table:trades}} {{on_cluster}} (
  ts DateTime64(3, 'UTC')
) ENGINE = {{engine:MergeTree}}
ORDER BY ts
SETTINGS {{dedup_window}};
-- @distributed trades cityHash64(base)

CREATE MATERIALIZED VIEW IF NOT EXISTS candles_1m_mv {{on_cluster}} TO {{table:candles_1m}} AS
SELECT 1 FROM {{table:trades}};

CREATE TABLE IF NOT EXISTS {{table:state}} {{on_cluster}} (k String, updated DateTime)
ENGINE = {{engine:ReplacingMergeTree(updated)}} ORDER BY k;
`

describe('schema DDL rendering', () => {
  it('renders a single node with plain engines and the non-replicated dedup window', () => {
    const stmts = renderSchema(SAMPLE, {})
    expect(stmts).toHaveLength(3)
    expect(stmts[0]).toBe(
      "CREATE TABLE IF NOT EXISTS trades (\n ts DateTime64(3, 'UTC')\n) ENGINE = MergeTree\nORDER BY ts\nSETTINGS non_replicated_deduplication_window = 1000"
    )
    expect(stmts[1]).toBe('CREATE MATERIALIZED VIEW IF NOT EXISTS candles_1m_mv TO candles_1m AS\nSELECT 1 FROM trades')
    expect(stmts[2]).toContain('ENGINE = ReplacingMergeTree(updated)')
    expect(stmts.join('\n')).not.toMatch(/\{\{|ON CLUSTER|Distributed|_local/)
  })

  it('renders a cluster with replicated local tables, Distributed tables and ON CLUSTER', () => {
    const stmts = renderSchema(SAMPLE, { cluster: 'tw' })
    expect(stmts).toHaveLength(4)
    expect(stmts[0]).toContain('CREATE TABLE IF NOT EXISTS trades_local ON CLUSTER tw (')
    expect(stmts[0]).toContain(
      "ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/{database}/{table}', '{replica}')"
    )
    expect(stmts[0]).toContain('replicated_deduplication_window = 1000')
    expect(stmts[1]).toBe(
      'CREATE TABLE IF NOT EXISTS trades ON CLUSTER tw AS trades_local ENGINE = Distributed(tw, currentDatabase(), trades_local, cityHash64(base))'
    )
    expect(stmts[2]).toBe(
      'CREATE MATERIALIZED VIEW IF NOT EXISTS candles_1m_mv ON CLUSTER tw TO candles_1m_local AS\nSELECT 1 FROM trades_local'
    )
    expect(stmts[3]).toContain(
      "ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/{table}', '{replica}', updated)"
    )
  })

  it('gives every storage table in the real schema files a Distributed table on a cluster', () => {
    for (const file of readSchemaFiles()) {
      const single = renderSchema(file.sql, {})
      const cluster = renderSchema(file.sql, { cluster: 'tw' })
      const tables = single.filter((s) => /^CREATE TABLE/.test(s)).length
      const locals = cluster.filter((s) => /^CREATE TABLE IF NOT EXISTS \w+_local ON CLUSTER tw/.test(s)).length
      const dists = cluster.filter((s) => /ENGINE = Distributed\(tw,/.test(s)).length
      expect(locals, file.name).toBe(tables)
      expect(dists, file.name).toBe(tables)
      for (const s of cluster) {
        expect(s, file.name).not.toMatch(/\{\{/)
        if (/^CREATE (TABLE|MATERIALIZED)/.test(s)) expect(s).toContain('ON CLUSTER tw')
        if (/ENGINE = (Aggregating|Replacing)?MergeTree/.test(s)) throw new Error(`unreplicated engine in ${file.name}`)
      }
    }
  })
})
