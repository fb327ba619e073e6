/**
 * @module
 * Binance USD-M stream subscriptions. Per market one `<symbol>@aggTrade` stream; mark price/funding and
 * liquidations come from the all-market streams `!markPrice@arr@1s` and `!forceOrder@arr`, two streams
 * instead of two per market. Streams are spread over connections of at most `streamsPerConnection`
 * (Binance allows 1024) and subscribed with `{"method":"SUBSCRIBE","params":[...],"id":n}` messages paced
 * below Binance's 10 incoming messages per second per connection.
 */
import { sleep } from '../feed/backoff.js'

/** All-market streams, on the first connection. */
export const ALL_MARKET_STREAMS = ['!markPrice@arr@1s', '!forceOrder@arr'] as const

export function aggTradeStream(symbol: string): string {
  return `${symbol.toLowerCase()}@aggTrade`
}

/** Splits streams into per-connection lists, all-market streams first. */
export function partitionStreams(symbols: readonly string[], perConnection: number): string[][] {
  const all = [...ALL_MARKET_STREAMS, ...symbols.map(aggTradeStream)]
  const out: string[][] = []
  for (let i = 0; i < all.length; i += perConnection) out.push(all.slice(i, i + perConnection))
  return out
}

export interface SubscribePacing {
  /** streams per SUBSCRIBE message */
  readonly batch: number
  /** pause between two messages, ms (250 = 4 messages/s, under Binance's 10/s) */
  readonly intervalMs: number
}

let nextId = 1

/** Sends SUBSCRIBE messages for `streams`, paced; stops early when `signal` aborts (connection closed). */
export async function subscribe(
  send: (text: string) => void,
  streams: readonly string[],
  pacing: SubscribePacing,
  signal: AbortSignal
): Promise<void> {
  for (let i = 0; i < streams.length && !signal.aborted; i += pacing.batch) {
    if (i > 0) await sleep(pacing.intervalMs, signal)
    if (signal.aborted) return
    send(JSON.stringify({ method: 'SUBSCRIBE', params: streams.slice(i, i + pacing.batch), id: nextId++ }))
  }
}
