/**
 * @module
 * The signal events of the service (spec "Events": HIGH, MEDIUM, VETO, SIGNAL) and the in-process bus they
 * travel on: the signal engine and inbound alerts publish; the store writer, the push stream's `signals:`
 * channels and outbound webhook delivery subscribe. A subscriber that throws is counted and never stops
 * the others or the publisher.
 */

/** Event names a webhook registration may list (besides the wildcard `*`). */
export const SIGNAL_EVENT_NAMES = ['HIGH', 'MEDIUM', 'VETO', 'SIGNAL'] as const
export type SignalEventName = (typeof SIGNAL_EVENT_NAMES)[number]

export interface SignalEvent {
  /** stable id of the event, the same in the store, on the stream and in every webhook delivery of it */
  readonly id: string
  readonly event: SignalEventName
  /** when it fired, epoch ms (webhook payloads render it as ISO 8601 UTC) */
  readonly ts: number
  /** base asset, e.g. BTC */
  readonly symbol: string
  readonly direction: 'long' | 'short'
  /**
   * the confirmation bucket of the result that fired it: HIGH, MEDIUM, LOW or NONE, or VETO (strong contra)
   * on engine events (docs/signals.md: the bucket the engine tracks, with hysteresis)
   */
  readonly confidence: string
  /** the confirmation composite for `direction`, -1 (strong contra) .. +1 (strong confirm) (docs/confirm.md) */
  readonly composite: number
  /** the action bucket: CONFIRM, REDUCE or SKIP */
  readonly action: string
  /** who fired it: `engine` (the signal engine) or `alert:<source>` (an inbound alert forwarded as SIGNAL) */
  readonly source: string
  /** set when the event belongs to one API key (a forwarded alert): only that key's webhooks receive it */
  readonly key_id?: string
}

export type SignalListener = (e: SignalEvent) => void

export class SignalBus {
  private readonly listeners = new Set<SignalListener>()
  /** events published since start */
  published = 0
  /** listener calls that threw (counted; the event still reached the other listeners) */
  listenerErrors = 0

  subscribe(fn: SignalListener): () => void {
    this.listeners.add(fn)
    return () => this.listeners.delete(fn)
  }

  publish(e: SignalEvent): void {
    this.published++
    for (const fn of this.listeners) {
      try {
        fn(e)
      } catch {
        this.listenerErrors++
      }
    }
  }
}
