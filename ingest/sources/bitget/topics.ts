/**
 * @module
 * Bitget v3 public subscriptions. Per USDT perpetual two topics, `publicTrade` and `ticker`
 * (`{"instType":"usdt-futures","topic":...,"symbol":"BTCUSDT"}`), plus one `liquidation` subscription for
 * every USDT perpetual (`{"instType":"usdt-futures","topic":"liquidation"}`, no symbol). Subscribed with
 * `{"op":"subscribe","args":[...]}` messages of at most `batch` args, paced: Bitget allows 10 messages a
 * second and 240 subscribe requests an hour per connection, and recommends fewer than 50 topics on one
 * connection for stability (1,000 at most).
 */
import { subscribePaced, type SubscribePacing } from '../feed/paced-subscribe.js'

export type { SubscribePacing }

/** Bitget's instType of USDT-margined futures on the v3 socket (REST says `USDT-FUTURES`). */
export const INST_TYPE = 'usdt-futures'

/** One subscription argument as Bitget takes it. */
export interface BitgetArg {
  readonly instType: string
  readonly topic: string
  readonly symbol?: string
}

/** Topics per market. */
export const MARKET_TOPICS = ['publicTrade', 'ticker'] as const

/** The all-market liquidation topic, on the first connection. */
export const LIQUIDATIONS: BitgetArg = { instType: INST_TYPE, topic: 'liquidation' }

export function marketArgs(symbol: string): BitgetArg[] {
  return MARKET_TOPICS.map((topic) => ({ instType: INST_TYPE, topic, symbol }))
}

/** The symbols of the trade args among `args`. */
export function tradeSymbols(args: readonly BitgetArg[]): string[] {
  return args.flatMap((a) => (a.topic === 'publicTrade' && a.symbol !== undefined ? [a.symbol] : []))
}

/** Sends subscribe messages for `args`, paced; stops early when `signal` aborts (connection closed). */
export async function subscribe(
  send: (text: string) => void,
  args: readonly BitgetArg[],
  pacing: SubscribePacing,
  signal: AbortSignal
): Promise<void> {
  return subscribePaced(send, args, pacing, (batch) => JSON.stringify({ op: 'subscribe', args: batch }), signal)
}
