/**
 * The store's compaction merges what its caller names (a `CompactionTarget`): the tables and the partitions a
 * load's range touches are the caller's, bound as parameters; names it did not give are refused. The candle
 * target (engine/history/candle-compaction.ts) names every timeframe's table. Merging itself on chDB:
 * test/integration/compact.test.ts.
 */
import { describe, expect, it } from 'vitest'
import { CANDLE_COMPACTION, CANDLE_TABLES } from '../../engine/history/candle-compaction.js'
import { TIMEFRAMES } from '../../engine/history/timeframes.js'
import { compactPartitions, type CompactionTarget } from '../../engine/store/compact.js'
import { FakeStore, flatSql } from '../helpers/fake-store.js'

const TARGET: CompactionTarget = {
  name: 'test',
  tables: ['t_a', 't_b'],
  partitionsOf: (r) => [`p${r.fromMs}`, `p${r.toMs}`]
}

describe('compactPartitions', () => {
  it('merges in the target table order, newest partition first (the candle target: 1m first)', async () => {
    const store = new FakeStore(() => [
      { table: 't_a', partition_id: '202610' },
      { table: 't_a', partition_id: '202611' },
      { table: 't_b', partition_id: '202611' }
    ])
    await compactPartitions(store, { ...TARGET, tables: ['t_b', 't_a'] })
    expect(store.calls.filter((c) => c.op === 'command').map((c) => flatSql(c.sql))).toEqual([
      "OPTIMIZE TABLE t_b PARTITION ID '202611' FINAL",
      "OPTIMIZE TABLE t_a PARTITION ID '202611' FINAL",
      "OPTIMIZE TABLE t_a PARTITION ID '202610' FINAL"
    ])
    expect(CANDLE_TABLES[0]).toBe('candles_1m')
  })

  it('binds the target tables and the partitions of the range, and merges each split partition', async () => {
    const store = new FakeStore(() => [
      { table: 't_a', partition_id: 'p1' },
      { table: 't_b', partition_id: 'p2' }
    ])
    const r = await compactPartitions(store, TARGET, { range: { fromMs: 1, toMs: 2 } })
    expect(r.partitions).toBe(2)
    expect(store.queries.map((q) => q.params)).toEqual([{ tables: ['t_a', 't_b'], partitions: ['p1', 'p2'] }])
    expect(store.calls.filter((c) => c.op === 'command').map((c) => flatSql(c.sql))).toEqual([
      "OPTIMIZE TABLE t_a PARTITION ID 'p1' FINAL",
      "OPTIMIZE TABLE t_b PARTITION ID 'p2' FINAL"
    ])
  })

  it('without a range: every split partition (empty list bound)', async () => {
    const store = new FakeStore(() => [])
    await compactPartitions(store, TARGET)
    expect(store.queries[0]!.params).toEqual({ tables: ['t_a', 't_b'], partitions: [] })
  })

  it('a range whose target names no partition merges nothing (not every partition)', async () => {
    const store = new FakeStore(() => [{ table: 't_a', partition_id: 'p1' }])
    const none: CompactionTarget = { ...TARGET, partitionsOf: () => [] }
    expect((await compactPartitions(store, none, { range: { fromMs: 1, toMs: 2 } })).partitions).toBe(0)
    expect(store.calls).toEqual([])
  })

  it('refuses a table the target did not name, and a table name that is not plain', async () => {
    const store = new FakeStore(() => [{ table: 'other', partition_id: 'p1' }])
    await expect(compactPartitions(store, TARGET)).rejects.toThrow('unexpected partition other/p1')
    const bad: CompactionTarget = { ...TARGET, tables: ['t_a; DROP TABLE x'] }
    await expect(compactPartitions(new FakeStore(), bad)).rejects.toThrow('not a plain table name')
  })

  it('does nothing on a ClickHouse server', async () => {
    const store = new FakeStore(() => [{ table: 't_a', partition_id: 'p1' }], { kind: 'clickhouse' })
    expect((await compactPartitions(store, TARGET)).partitions).toBe(0)
    expect(store.calls).toEqual([])
  })
})

describe('the candle compaction target', () => {
  it("names every timeframe's table and their monthly partitions, widened a week back", () => {
    expect(CANDLE_COMPACTION.tables).toBe(CANDLE_TABLES)
    expect([...CANDLE_TABLES].sort()).toEqual(
      Object.values(TIMEFRAMES)
        .map((t) => t.table)
        .sort()
    )
    expect(CANDLE_COMPACTION.partitionsOf({ fromMs: Date.UTC(2026, 0, 3), toMs: Date.UTC(2026, 1, 1) })).toEqual([
      '202512',
      '202601',
      '202602'
    ])
  })
})
