/**
 * @module
 * Stable ids of engine events: deterministic from what fired and when, e.g. `BTC-long-HIGH-1736064000000`
 * (base, direction, event, evaluation time in epoch ms). The cooldown keeps one event of a base, direction
 * and kind per evaluation time at most, so the id is unique; it is the same in the store (the insert's dedup
 * token is made of ids), on the stream and in every webhook delivery, and readable in logs.
 */
import type { Direction } from '../confirm/confirm.js'
import type { SignalEventName } from './signal-event.js'

export function signalId(base: string, direction: Direction, event: SignalEventName, tsMs: number): string {
  return `${base}-${direction}-${event}-${tsMs}`
}
