/**
 * Fixtures of the journal tests (test/integration/journal*.test.ts): `n` trades of one symbol 100 ms apart
 * on 2026-11-05, as an insert batch of the pipeline's shape, and what the store then holds of them (raw rows,
 * and trades counted by the 1h candle view).
 */
import { columnsOf } from '../../engine/records/fields.js'
import { encodeTsv } from '../../engine/records/tsv.js'
import type { TradeRecord } from '../../engine/records/types.js'
import type { Store } from '../../engine/store/store.js'

export const tradeRows = (symbol: string, n = 300): TradeRecord[] =>
  Array.from({ length: n }, (_, i) => ({
    kind: 'trade',
    ts: Date.UTC(2026, 10, 5) + i * 100,
    exchange: 'okx',
    market: 'perp',
    symbol,
    base: symbol,
    quote: 'USDT',
    side: 'buy',
    price: 5,
    qty: 1,
    trade_id: String(i)
  }))

/** The batch of `tradeRows(symbol, n)`, dedup token `<tokenPrefix>-<symbol>`. */
export const tradeBatch = (tokenPrefix: string, symbol: string, n = 300) => ({
  table: 'trades',
  columns: columnsOf('trade'),
  format: 'TSV' as const,
  data: Buffer.from(encodeTsv('trade', tradeRows(symbol, n))),
  dedupToken: `${tokenPrefix}-${symbol}`
})

/** [raw trades, trades in candles_1h] of `symbol` */
export async function tradeCounts(store: Store, symbol: string): Promise<[number, number]> {
  const p = { s: symbol }
  const [raw] = await store.query<{ n: number }>('SELECT count() AS n FROM trades WHERE symbol = {s:String}', p)
  const [view] = await store.query<{ n: number }>(
    'SELECT sum(trades) AS n FROM candles_1h WHERE symbol = {s:String}',
    p
  )
  return [Number(raw!.n), Number(view!.n)]
}
