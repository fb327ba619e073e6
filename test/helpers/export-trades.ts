/**
 * The trades the export tests load: two bases, three markets (`<A>` on binance and okx, `<B>` on binance),
 * five hours of irregular 1-3 minute spacing from `h0`, deterministic prices and sizes.
 */
const MIN = 60_000

export function exportTrades(a: string, b: string, h0: number): object[] {
  const rows: object[] = []
  let id = 0
  for (const [exchange, base, symbol] of [
    ['binance', a, `${a}USDT`],
    ['okx', a, `${a}-USDT-SWAP`],
    ['binance', b, `${b}USDT`]
  ] as const) {
    for (let m = 0; m < 300; m += 1 + (id % 3)) {
      rows.push({
        exchange,
        symbol,
        base,
        market: 'perp',
        quote: 'USDT',
        side: id % 2 ? 'buy' : 'sell',
        ts: h0 + m * MIN + (id % 50) * 7,
        price: 100 + Math.sin(id) * 3 + id / 1000,
        qty: 0.001 * (1 + (id % 17)),
        trade_id: String(id++)
      })
    }
  }
  return rows
}
