/**
 * @module
 * Bybit v5 public topics and subscriptions. Per market three topics: `publicTrade.<symbol>`,
 * `tickers.<symbol>` and `allLiquidation.<symbol>` (Bybit has no all-market topics on v5). Subscribed with
 * `{"op":"subscribe","args":[...],"req_id":"n"}`. Bybit's limits for one public connection: the `args` of
 * all its subscriptions together at most 21,000 characters; linear has no per-request args limit today
 * (spot: 10), so requests carry `SubscribePacing.batch` args (10: within every category's limit) and are
 * paced. Connections keep well under the character limit (`connections.ts`).
 */
import { subscribePaced, type SubscribePacing } from '../feed/paced-subscribe.js'

export type { SubscribePacing }

/** Bybit's limit on the characters of a public connection's subscribed args. */
export const ARGS_CHAR_LIMIT = 21_000
/** What this adapter puts on one connection: half the limit, so a venue-side count of quotes and commas still fits. */
export const ARGS_CHAR_BUDGET = ARGS_CHAR_LIMIT / 2

export function marketTopics(symbol: string): string[] {
  return [`publicTrade.${symbol}`, `tickers.${symbol}`, `allLiquidation.${symbol}`]
}

const TRADE_TOPIC = 'publicTrade.'

/** The symbols of the trade topics among `topics`. */
export function tradeSymbols(topics: readonly string[]): string[] {
  return topics.filter((t) => t.startsWith(TRADE_TOPIC)).map((t) => t.slice(TRADE_TOPIC.length))
}

/** Characters a topic adds to a connection's args (the topic, its quotes and a comma). */
export function argChars(topic: string): number {
  return topic.length + 3
}

let nextReqId = 1

/** The app-level ping Bybit asks for every 20 s: `{"req_id":"n","op":"ping"}`. */
export function pingMessage(): string {
  return JSON.stringify({ req_id: String(nextReqId++), op: 'ping' })
}

/** Sends subscribe requests for `topics`, paced; stops early when `signal` aborts (connection closed). */
export async function subscribe(
  send: (text: string) => void,
  topics: readonly string[],
  pacing: SubscribePacing,
  signal: AbortSignal
): Promise<void> {
  return subscribePaced(
    send,
    topics,
    pacing,
    (batch) => JSON.stringify({ op: 'subscribe', args: batch, req_id: String(nextReqId++) }),
    signal
  )
}
