/**
 * Bitget fixtures written from the unified (UTA, v3) wire formats: REST `GET /api/v3/market/instruments`
 * and `/api/v3/market/fills` (field sets as in public SDK models of the v3 API), `GET
 * /api/v2/mix/market/account-long-short` (Bitget API docs, "Get Futures Active Long Short Account Data"),
 * and the public v3 WebSocket pushes `{action, arg:{instType, topic, symbol}, data, ts}` of `publicTrade`,
 * `ticker` and `liquidation` (as mapped by tardis-node's Bitget v3 mappers). Numbers are strings, as Bitget
 * sends them. Markets:
 * - BTCUSDT, ETHUSDT: 8 h funding
 * - DOGEUSDT: 4 h funding
 * - 1000SATSUSDT: quoted per 1,000 SATS, 1 h funding
 * plus entries discovery must skip: a delisted (`offline`) market, one not yet trading (`listed`), a
 * delivery future and a USDC-quoted one.
 */

export function instrument(
  symbol: string,
  baseCoin: string,
  over: Record<string, unknown> = {}
): Record<string, unknown> {
  return {
    symbol,
    category: 'USDT-FUTURES',
    baseCoin,
    quoteCoin: 'USDT',
    buyLimitPriceRatio: '0.05',
    sellLimitPriceRatio: '0.05',
    feeRateUpRatio: '0.005',
    makerFeeRate: '0.0002',
    takerFeeRate: '0.0006',
    openCostUpRatio: '0.01',
    minOrderQty: '0.0001',
    maxOrderQty: '1200',
    maxMarketOrderQty: '220',
    pricePrecision: '1',
    quantityPrecision: '4',
    quotePrecision: '',
    minOrderAmount: '5',
    maxSymbolOrderNum: '200',
    maxProductOrderNum: '1000',
    maxPositionNum: '150',
    priceMultiplier: '0.1',
    quantityMultiplier: '0.0001',
    symbolType: 'perpetual',
    status: 'online',
    offTime: '-1',
    limitOpenTime: '-1',
    maintainTime: '',
    deliveryTime: '',
    deliveryStartTime: '',
    deliveryPeriod: '',
    launchTime: '1600000000000',
    fundInterval: '8',
    minLeverage: '1',
    maxLeverage: '125',
    // a field this adapter does not know: ignored
    isRwa: 'NO',
    ...over
  }
}

export const PERPS = ['BTCUSDT', 'ETHUSDT', 'DOGEUSDT', '1000SATSUSDT'] as const

export const INSTRUMENTS = {
  code: '00000',
  msg: 'success',
  requestTime: 1764300000000,
  data: [
    instrument('BTCUSDT', 'BTC'),
    instrument('ETHUSDT', 'ETH', { pricePrecision: '2' }),
    instrument('DOGEUSDT', 'DOGE', { fundInterval: '4', pricePrecision: '5' }),
    instrument('1000SATSUSDT', '1000SATS', { fundInterval: '1', pricePrecision: '7' }),
    // skipped: delisted, not yet trading, a delivery future, a USDC-quoted market
    instrument('LUNAUSDT', 'LUNA', { status: 'offline', offTime: '1700000000000' }),
    instrument('NEWUSDT', 'NEW', { status: 'listed' }),
    instrument('BTCUSDT1227', 'BTC', { symbolType: 'delivery', deliveryTime: '1766822400000', fundInterval: '' }),
    instrument('ETHPERP', 'ETH', { quoteCoin: 'USDC', category: 'USDC-FUTURES' })
  ]
}

/** A v3 public push. */
export function push(
  topic: string,
  symbol: string | null,
  data: unknown[],
  ts: number,
  action: 'snapshot' | 'update' = 'update'
): Record<string, unknown> {
  const arg: Record<string, string> = { instType: 'usdt-futures', topic }
  if (symbol !== null) arg['symbol'] = symbol
  return { action, arg, data, ts }
}

/** A `publicTrade` row: `S` the taker side, `T` the trade time (ms string), `L` Bitget's sequence. */
export function tradeRow(id: string, ts: number, side: 'buy' | 'sell', v: string, p: string): Record<string, unknown> {
  return { i: id, p, v, S: side, T: String(ts), L: id }
}

/** The public fills row of the same trade (`/api/v3/market/fills`). */
export function fillRow(row: Record<string, unknown>): Record<string, unknown> {
  return {
    execId: row['i'],
    price: row['p'],
    size: row['v'],
    side: row['S'],
    ts: row['T'],
    execLinkId: `${String(row['i'])}-0`,
    isRPI: 'NO'
  }
}

/** A `ticker` row as Bitget sends it (every field a string). */
export function tickerRow(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    highPrice24h: '98100.0',
    lowPrice24h: '95800.5',
    openPrice24h: '96500.0',
    lastPrice: '97001.5',
    turnover24h: '5123456789.12',
    volume24h: '53012.3456',
    bid1Price: '97001.4',
    ask1Price: '97001.5',
    bid1Size: '3.2101',
    ask1Size: '0.8810',
    price24hPcnt: '0.00519',
    indexPrice: '96990.12',
    markPrice: '97000.1',
    fundingRate: '0.0001',
    openInterest: '41234.5678',
    deliveryTime: '',
    deliveryStartTime: '',
    deliveryStatus: '',
    nextFundingTime: '1764316800000',
    ...over
  }
}

/** A `liquidation` row: `side` the liquidated position's side, `amount` in coins. */
export function liquidationRow(
  symbol: string,
  ts: number,
  side: 'buy' | 'sell',
  amount: string,
  price: string
): Record<string, unknown> {
  return { symbol, side, price, amount, ts: String(ts) }
}

/** An account-long-short answer; rows `[ts, long share, short share]`, newest first as Bitget lists them. */
export function longShortBody(rows: [number, string, string][]): Record<string, unknown> {
  return {
    code: '00000',
    msg: 'success',
    requestTime: Date.now(),
    data: rows.map(([ts, long, short]) => ({
      longAccountRatio: long,
      shortAccountRatio: short,
      longShortAccountRatio: (Number(long) / Number(short)).toFixed(4),
      ts: String(ts)
    }))
  }
}

/** The answer to a subscribe arg naming a market Bitget does not have. */
export function subscribeError(arg: Record<string, unknown>): Record<string, unknown> {
  return {
    event: 'error',
    arg,
    code: 30001,
    msg: `instType:${String(arg['instType'])},topic:${String(arg['topic'])},symbol:${String(arg['symbol'])} doesn't exist`,
    op: 'subscribe'
  }
}
