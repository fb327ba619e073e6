/**
 * @module
 * History and export (docs/history.md, docs/export-formats.md): the historical and backtest routes, and the
 * compactor that merges the candle partitions bulk loads split (the tables bulk exports read with FINAL).
 * Its stop runs after the write path flushed, whose last bulk loads may still request merges.
 */
import { CANDLE_COMPACTION } from '../../engine/history/candle-compaction.js'
import type { Logger } from '../../engine/log.js'
import { Compactor } from '../../engine/store/compact.js'
import { historyRoutes } from '../routes/history/index.js'
import type { Core } from './core.js'
import type { ServiceModule } from './service-module.js'
import type { Storage } from './storage.js'

export function openHistory(storage: Storage, core: Core, log: Logger): ServiceModule {
  const compactor = new Compactor(
    storage.store,
    CANDLE_COMPACTION,
    log.child({ mod: 'compact' }),
    core.supervisor.track('compaction'),
    () => core.exports.inUse > 0 // merges wait for streaming exports (engine/store/compact.ts)
  )
  core.pipeline.onBulkEnd = (range) => compactor.request(range)
  return {
    name: 'history',
    routes: (ctx) => historyRoutes(ctx),
    stop: () => compactor.stop()
  }
}
