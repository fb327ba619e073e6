/**
 * @module
 * Push-stream counters shown in `/v1/health` (`stream`). Gauges (connections, subscriptions) go up and
 * down; everything else only grows.
 */
export interface StreamCounters {
  /** open connections (gauge) */
  connections: number
  /** subscriptions over all connections (gauge) */
  subscriptions: number
  /** upgrades refused (401/403/429/400) */
  rejected: number
  /** connections closed for going over the plan's connection limit */
  overLimit: number
  /** error frames and per-channel errors sent to clients */
  clientErrors: number
  /** frames a socket refused (over its hard backpressure limit, or closing) */
  droppedFrames: number
  /** connections closed for falling behind (buffered bytes over the per-socket limit) */
  slowConsumers: number
}

export function newStreamCounters(): StreamCounters {
  return {
    connections: 0,
    subscriptions: 0,
    rejected: 0,
    overLimit: 0,
    clientErrors: 0,
    droppedFrames: 0,
    slowConsumers: 0
  }
}
