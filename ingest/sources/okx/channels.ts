/**
 * @module
 * OKX v5 public channel subscriptions. Per instrument four channels (`trades`, `funding-rate`,
 * `open-interest`, `mark-price`), plus one `liquidation-orders` subscription for every swap (instType SWAP;
 * OKX answers error 60018 for other types). Subscribed with `{"op":"subscribe","args":[...]}` messages of
 * at most `batch` args, paced: OKX allows 480 subscribe/unsubscribe requests per connection per hour and
 * limits the size of one request, so a connection's whole list goes out in a few small messages.
 */
import { sleep } from '../feed/backoff.js'

/** One subscription argument as OKX takes it. */
export interface OkxArg {
  readonly channel: string
  readonly instId?: string
  readonly instType?: string
}

/** Channels per instrument. */
export const INSTRUMENT_CHANNELS = ['trades', 'funding-rate', 'open-interest', 'mark-price'] as const

/** The all-swap liquidation channel, on the first connection. */
export const LIQUIDATIONS: OkxArg = { channel: 'liquidation-orders', instType: 'SWAP' }

export function instrumentArgs(instId: string): OkxArg[] {
  return INSTRUMENT_CHANNELS.map((channel) => ({ channel, instId }))
}

export interface SubscribePacing {
  /** args per subscribe message */
  readonly batch: number
  /** pause between two messages, ms */
  readonly intervalMs: number
}

/** Sends subscribe messages for `args`, paced; stops early when `signal` aborts (connection closed). */
export async function subscribe(
  send: (text: string) => void,
  args: readonly OkxArg[],
  pacing: SubscribePacing,
  signal: AbortSignal
): Promise<void> {
  for (let i = 0; i < args.length && !signal.aborted; i += pacing.batch) {
    if (i > 0) await sleep(pacing.intervalMs, signal)
    if (signal.aborted) return
    send(JSON.stringify({ op: 'subscribe', args: args.slice(i, i + pacing.batch) }))
  }
}
