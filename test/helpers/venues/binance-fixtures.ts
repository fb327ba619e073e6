/**
 * Binance USD-M fixtures written from the documented wire formats (developers.binance.com, USD-M futures:
 * Exchange-Information, Get-Funding-Rate-Info, Open-Interest, Long-Short-Ratio, Aggregate-Trade-Streams,
 * Mark-Price-Stream-for-All-market, All-Market-Liquidation-Order-Streams). Markets: BTCUSDT and ETHUSDT
 * (8 h funding, the default, so not in fundingInfo), SOLVUSDT (1 h funding), 1000PEPEUSDT (4 h funding,
 * a scaled contract), plus entries discovery must skip: a quarterly future, a USDC perpetual and a market
 * that is not TRADING.
 */

function symbolEntry(symbol: string, baseAsset: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    symbol,
    pair: symbol,
    contractType: 'PERPETUAL',
    deliveryDate: 4133404800000,
    onboardDate: 1569398400000,
    status: 'TRADING',
    maintMarginPercent: '2.5000',
    requiredMarginPercent: '5.0000',
    baseAsset,
    quoteAsset: 'USDT',
    marginAsset: 'USDT',
    pricePrecision: 2,
    quantityPrecision: 3,
    baseAssetPrecision: 8,
    quotePrecision: 8,
    underlyingType: 'COIN',
    underlyingSubType: ['PoW'],
    settlePlan: 0,
    triggerProtect: '0.0500',
    liquidationFee: '0.012500',
    marketTakeBound: '0.05',
    maxMoveOrderLimit: 10000,
    filters: [
      { filterType: 'PRICE_FILTER', minPrice: '556.80', maxPrice: '4529764', tickSize: '0.10' },
      { filterType: 'LOT_SIZE', stepSize: '0.001', maxQty: '1000', minQty: '0.001' },
      { filterType: 'MIN_NOTIONAL', notional: '100' }
    ],
    orderTypes: ['LIMIT', 'MARKET', 'STOP', 'STOP_MARKET', 'TAKE_PROFIT', 'TAKE_PROFIT_MARKET', 'TRAILING_STOP_MARKET'],
    timeInForce: ['GTC', 'IOC', 'FOK', 'GTX', 'GTD'],
    ...over
  }
}

export const EXCHANGE_INFO = {
  timezone: 'UTC',
  serverTime: 1732270000000,
  futuresType: 'U_MARGINED',
  rateLimits: [
    { rateLimitType: 'REQUEST_WEIGHT', interval: 'MINUTE', intervalNum: 1, limit: 2400 },
    { rateLimitType: 'ORDERS', interval: 'MINUTE', intervalNum: 1, limit: 1200 },
    { rateLimitType: 'ORDERS', interval: 'SECOND', intervalNum: 10, limit: 300 }
  ],
  exchangeFilters: [],
  assets: [{ asset: 'USDT', marginAvailable: true, autoAssetExchange: '-10000' }],
  symbols: [
    symbolEntry('BTCUSDT', 'BTC'),
    symbolEntry('ETHUSDT', 'ETH'),
    symbolEntry('SOLVUSDT', 'SOLV'),
    symbolEntry('1000PEPEUSDT', '1000PEPE', { pricePrecision: 7, quantityPrecision: 0 }),
    symbolEntry('BTCUSDT_250328', 'BTC', { contractType: 'CURRENT_QUARTER', deliveryDate: 1743148800000 }),
    symbolEntry('BTCUSDC', 'BTC', { quoteAsset: 'USDC', marginAsset: 'USDC' }),
    symbolEntry('OLDUSDT', 'OLD', { status: 'SETTLING' })
  ]
}

/** Only markets with non-default settings are listed (BTCUSDT/ETHUSDT settle every 8 h). */
export const FUNDING_INFO = [
  {
    symbol: 'SOLVUSDT',
    adjustedFundingRateCap: '0.02000000',
    adjustedFundingRateFloor: '-0.02000000',
    fundingIntervalHours: 1,
    disclaimer: false
  },
  {
    symbol: '1000PEPEUSDT',
    adjustedFundingRateCap: '0.02000000',
    adjustedFundingRateFloor: '-0.02000000',
    fundingIntervalHours: 4,
    disclaimer: false
  }
]

export const PERPS = ['BTCUSDT', 'ETHUSDT', 'SOLVUSDT', '1000PEPEUSDT'] as const

/** Mark prices the local server streams per market (strings, as Binance sends them). */
export const MARK: Readonly<Record<string, string>> = {
  BTCUSDT: '97000.10000000',
  ETHUSDT: '3400.55000000',
  SOLVUSDT: '0.05123000',
  '1000PEPEUSDT': '0.0201500'
}

export function markPriceUpdate(symbol: string, eventTs: number, rate: string, nextFunding: number): object {
  return {
    e: 'markPriceUpdate',
    E: eventTs,
    s: symbol,
    p: MARK[symbol] ?? '1.00000000',
    i: (Number(MARK[symbol] ?? '1') * 0.9999).toFixed(8),
    P: (Number(MARK[symbol] ?? '1') * 1.0001).toFixed(8),
    r: rate,
    T: nextFunding
  }
}

export function aggTradeEvent(
  symbol: string,
  id: number,
  tradeTs: number,
  price: string,
  qty: string,
  buyerIsMaker: boolean
): object {
  return {
    e: 'aggTrade',
    E: tradeTs + 7,
    a: id,
    s: symbol,
    p: price,
    q: qty,
    f: id * 3,
    l: id * 3 + 2,
    T: tradeTs,
    m: buyerIsMaker
  }
}

export function forceOrderEvent(symbol: string, side: 'BUY' | 'SELL', ts: number, price: string, qty: string): object {
  return {
    e: 'forceOrder',
    E: ts + 3,
    o: { s: symbol, S: side, o: 'LIMIT', f: 'IOC', q: qty, p: price, ap: price, X: 'FILLED', l: qty, z: qty, T: ts }
  }
}

export function openInterestBody(symbol: string, contracts: string, ts: number): object {
  return { symbol, openInterest: contracts, time: ts }
}

export function longShortBody(symbol: string, ratio: string, long: string, short: string, ts: number): object[] {
  return [{ symbol, longShortRatio: ratio, longAccount: long, shortAccount: short, timestamp: ts }]
}
