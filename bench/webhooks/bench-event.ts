/**
 * @module
 * The signal event the webhook benchmarks deliver: a HIGH confirmation of BTC long, a fresh id per call
 * (`<prefix>-<n>`), stamped now.
 */
import type { SignalEvent } from '../../engine/signals/signal-event.js'

let seq = 0

export function benchSignal(prefix: string): SignalEvent {
  seq++
  return {
    id: `${prefix}-${seq}`,
    event: 'HIGH',
    ts: Date.now(),
    symbol: 'BTC',
    direction: 'long',
    confidence: 'HIGH',
    composite: 0.61803,
    action: 'CONFIRM',
    source: 'engine'
  }
}
