/**
 * @module
 * Binance USD-M stream subscriptions. Per market one `<symbol>@aggTrade` stream; mark price/funding and
 * liquidations come from the all-market streams `!markPrice@arr@1s` and `!forceOrder@arr`, two streams
 * instead of two per market. Streams are spread over connections of at most `streamsPerConnection`
 * (Binance allows 1024) and subscribed with `{"method":"SUBSCRIBE","params":[...],"id":n}` messages paced
 * below Binance's 10 incoming messages per second per connection.
 */
import { subscribePaced, type SubscribePacing } from '../feed/paced-subscribe.js'

export type { SubscribePacing }

/** All-market streams, on the first connection. */
export const ALL_MARKET_STREAMS = ['!markPrice@arr@1s', '!forceOrder@arr'] as const

export function aggTradeStream(symbol: string): string {
  return `${symbol.toLowerCase()}@aggTrade`
}

let nextId = 1

/** Sends SUBSCRIBE messages for `streams`, paced; stops early when `signal` aborts (connection closed). */
export async function subscribe(
  send: (text: string) => void,
  streams: readonly string[],
  pacing: SubscribePacing,
  signal: AbortSignal
): Promise<void> {
  return subscribePaced(
    send,
    streams,
    pacing,
    (batch) => JSON.stringify({ method: 'SUBSCRIBE', params: batch, id: nextId++ }),
    signal
  )
}
