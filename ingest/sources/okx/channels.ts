/**
 * @module
 * OKX v5 public channel subscriptions. Per instrument four channels (`trades`, `funding-rate`,
 * `open-interest`, `mark-price`), plus one `liquidation-orders` subscription for every swap (instType SWAP;
 * OKX answers error 60018 for other types). Subscribed with `{"op":"subscribe","args":[...]}` messages of
 * at most `batch` args, paced: OKX allows 480 subscribe/unsubscribe requests per connection per hour and
 * limits the size of one request, so a connection's whole list goes out in a few small messages.
 */
import { subscribePaced, type SubscribePacing } from '../feed/paced-subscribe.js'

export type { SubscribePacing }

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

/** Sends subscribe messages for `args`, paced; stops early when `signal` aborts (connection closed). */
export async function subscribe(
  send: (text: string) => void,
  args: readonly OkxArg[],
  pacing: SubscribePacing,
  signal: AbortSignal
): Promise<void> {
  return subscribePaced(send, args, pacing, (batch) => JSON.stringify({ op: 'subscribe', args: batch }), signal)
}
