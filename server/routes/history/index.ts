/**
 * @module
 * The historical and backtest endpoints (service spec "Historical and backtest"; docs/history.md).
 */
import type { ServerContext } from '../../context.js'
import type { Route } from '../../http/types.js'
import { fundingHistoryRoutes } from './funding.js'
import { ohlcvRoutes } from './ohlcv.js'
import { alignedDataRoutes } from './data.js'
import { exportRoutes } from './export.js'
import { snapshotRoutes } from './snapshots.js'
import { whaleHistoryRoutes } from './whales.js'

export function historyRoutes(
  ctx: Pick<ServerContext, 'store' | 'markets' | 'live' | 'config' | 'log' | 'exports'>
): Route[] {
  return [
    ...ohlcvRoutes(ctx),
    ...alignedDataRoutes(ctx),
    ...exportRoutes(ctx),
    ...fundingHistoryRoutes(ctx),
    ...whaleHistoryRoutes(ctx),
    ...snapshotRoutes(ctx)
  ]
}
