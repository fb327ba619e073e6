/**
 * @module
 * Paced subscribe messages: a connection's list goes out in messages of at most `batch` items with a pause
 * between two, so a venue's per-connection message rate (Binance 10/s) or request count (OKX 480/h) holds.
 * The venue supplies the message shape.
 */
import { sleep } from '../../../engine/runtime/backoff.js'

export interface SubscribePacing {
  /** items (streams, topics, args) per subscribe message */
  readonly batch: number
  /** pause between two messages, ms */
  readonly intervalMs: number
}

/** Sends `message(batch)` for each batch of `items`, paced; stops early when `signal` aborts (connection closed). */
export async function subscribePaced<T>(
  send: (text: string) => void,
  items: readonly T[],
  pacing: SubscribePacing,
  message: (batch: T[]) => string,
  signal: AbortSignal
): Promise<void> {
  for (let i = 0; i < items.length && !signal.aborted; i += pacing.batch) {
    if (i > 0) await sleep(pacing.intervalMs, signal)
    if (signal.aborted) return
    send(message(items.slice(i, i + pacing.batch)))
  }
}
