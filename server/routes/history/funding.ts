/**
 * @module
 * (being written)
 */
import type { ServerContext } from '../../context.js'
import type { Route } from '../../http/types.js'

export function fundingHistoryRoutes(ctx: Pick<ServerContext, 'store' | 'markets' | 'live'>): Route[] {
  void ctx
  return []
}
