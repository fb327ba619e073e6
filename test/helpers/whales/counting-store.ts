/**
 * A store wrapped for the whale sources' write tests: it counts the chain_whale_events inserts and records
 * each checkpoint written (and when), passing everything on to the real store.
 */
import type { FileInsert, InsertBatch, Store } from '../../../engine/store/store.js'
import type { Checkpoint } from '../../../engine/whales/chain-event-store.js'

/**
 * The store as the source sees it, counting its chain_whale_events inserts and checkpoint writes; with
 * `failDetails` every chain_whale_events insert fails.
 */
export function countingStore(store: Store, failDetails = false, now: () => number = () => performance.now()) {
  // checkpointAt: `now()` at each checkpoint write, same order as checkpoints
  const seen = { detailInserts: 0, checkpoints: [] as Checkpoint[], checkpointAt: [] as number[] }
  const detail = (table: string): void => {
    if (table !== 'chain_whale_events') return
    seen.detailInserts++
    if (failDetails) throw new Error('detail insert failed (test)')
  }
  const counted: Store = Object.assign(Object.create(store) as Store, {
    insertFile: async (b: FileInsert) => {
      detail(b.table)
      return store.insertFile!(b)
    },
    insert: async (b: InsertBatch) => {
      detail(b.table)
      return store.insert(b)
    },
    command: (sql: string, params?: Parameters<Store['command']>[1]) => {
      if (sql.includes('engine_state')) {
        seen.checkpoints.push(JSON.parse(String(params!.value)) as Checkpoint)
        seen.checkpointAt.push(now())
      }
      return store.command(sql, params)
    }
  })
  return { counted, seen }
}
