/**
 * Seed data of the OpenAPI-driven tests, as NDJSON rows per record kind for `POST /v1/admin/ingest/{kind}`:
 * three days of hourly trades, funding, OI and long/short on BTC and ETH, whale transfers, options quotes and
 * on-chain metrics, ending at `now` (epoch ms).
 */
const HOUR = 3_600_000

/** Seed data: three days of hourly trades, funding, OI and long/short on BTC and ETH, whales, options, on-chain. */
export function openapiSeedRows(now: number): Record<string, object[]> {
  const markets = [
    { exchange: 'binance', symbol: 'BTCUSDT', base: 'BTC', price: 90_000 },
    { exchange: 'okx', symbol: 'BTC-USDT-SWAP', base: 'BTC', price: 90_010 },
    { exchange: 'binance', symbol: 'ETHUSDT', base: 'ETH', price: 3_000 }
  ]
  const hours = Array.from({ length: 72 }, (_, i) => now - (72 - i) * HOUR + 60_000)
  const m = (x: (typeof markets)[number]) => ({ exchange: x.exchange, symbol: x.symbol, base: x.base })
  const whale = (i: number, token: string, event: string) => ({
    ts: now - (i + 1) * HOUR,
    chain: i % 2 ? 'ethereum' : 'arbitrum',
    tx_hash: `0x${(i + 1).toString(16).padStart(64, '0')}`,
    log_index: 0,
    block_number: 1000 + i,
    address: `0xwallet${i % 5}`,
    counterparty: '0xexchange',
    event_type: event,
    token,
    amount: 100,
    usd_value: 3_000_000 + i
  })
  const quote = (t: 'C' | 'P', strike: number, oi: number) => ({
    ts: now - HOUR,
    exchange: 'deribit',
    instrument: `BTC-26DEC36-${strike}-${t}`,
    underlying_price: 90_000,
    mark_price: 0.05,
    open_interest: oi,
    volume_24h: 3
  })
  return {
    trade: markets.flatMap((x) =>
      hours.map((ts, i) => ({
        ...m(x),
        ts,
        market: 'perp',
        quote: 'USDT',
        side: i % 2 ? 'buy' : 'sell',
        price: x.price + (i % 7),
        qty: 1 + (i % 3),
        trade_id: `${x.symbol}-${i}`
      }))
    ),
    funding: markets.flatMap((x) =>
      hours.map((ts, i) => ({ ...m(x), ts, funding_rate: 0.0001 * ((i % 5) - 2), interval_hours: 8 }))
    ),
    open_interest: markets.flatMap((x) => hours.map((ts, i) => ({ ...m(x), ts, oi_base: 100 + i, oi_usd: 1e7 + i }))),
    long_short: markets.flatMap((x) => hours.map((ts, i) => ({ ...m(x), ts, long_short_ratio: 1 + (i % 4) / 10 }))),
    liquidation: markets.map((x) => ({ ...m(x), ts: now - 2 * HOUR, side: 'sell', price: x.price, qty: 2 })),
    whale_transfer: Array.from({ length: 30 }, (_, i) =>
      whale(i, i % 3 ? 'WBTC' : 'WETH', i % 3 === 2 ? 'swap' : i % 2 ? 'transfer_in' : 'transfer_out')
    ),
    option_quote: [quote('C', 90_000, 10), quote('P', 90_000, 12), quote('C', 100_000, 5), quote('P', 80_000, 7)],
    onchain_metric: ['BTC', 'ETH'].flatMap((asset) =>
      hours.slice(-24).map((ts, i) => ({ ts, asset, metric: 'mvrv', value: 1.5 + i / 100 }))
    )
  }
}
