/**
 * Numbered ingest bodies for the crash and stop tests: batch `i` is `rows` binance ETHUSDT perp trades, one
 * per second from `t0 + i * rows` seconds, with trade ids `<prefix><i>-<j>`. The id's part before '-' names
 * the batch, so the tests count each acknowledged batch in the store after a restart
 * (`splitByChar('-', trade_id)[1]`), and batches never share a time or an id.
 */
import { ndjson } from './server.js'

export interface TradeBatches {
  /** trades per batch */
  readonly rows: number
  /** time of batch 0's first trade, epoch ms */
  readonly t0: number
  /** start of every trade id, one letter: the batch number follows it */
  readonly prefix: string
}

/** The NDJSON body of batch `i`. */
export function tradeBatch(i: number, b: TradeBatches): string {
  return ndjson(
    Array.from({ length: b.rows }, (_, j) => ({
      ts: b.t0 + (i * b.rows + j) * 1000,
      exchange: 'binance',
      market: 'perp',
      symbol: 'ETHUSDT',
      base: 'ETH',
      quote: 'USDT',
      side: j % 2 ? 'buy' : 'sell',
      price: 3000 + (j % 17),
      qty: 0.5,
      trade_id: `${b.prefix}${i}-${j}`
    }))
  )
}
