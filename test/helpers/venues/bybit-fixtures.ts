/**
 * Bybit v5 linear fixtures written from the documented wire formats (bybit-exchange.github.io/docs/v5:
 * market/instruments-info, market/long-short-ratio, websocket/public/trade, websocket/public/ticker,
 * market/recent-trade, websocket/public/all-liquidation, ws/connect) and the field lists of the reference notes (C.3). Markets:
 * BTCUSDT and ETHUSDT (8 h funding), ORDIUSDT (1 h), 1000PEPEUSDT (4 h, quoted per 1000 PEPE), plus entries
 * discovery must skip: a dated future, a USDC perpetual and a pre-launch market.
 */

function instrument(symbol: string, baseCoin: string, fundingMinutes: number, over: object = {}): object {
  return {
    symbol,
    contractType: 'LinearPerpetual',
    status: 'Trading',
    baseCoin,
    quoteCoin: 'USDT',
    launchTime: '1585526400000',
    deliveryTime: '0',
    deliveryFeeRate: '',
    priceScale: '2',
    leverageFilter: { minLeverage: '1', maxLeverage: '100.00', leverageStep: '0.01' },
    priceFilter: { minPrice: '0.10', maxPrice: '1999999.80', tickSize: '0.10' },
    lotSizeFilter: {
      maxOrderQty: '1190.000',
      minOrderQty: '0.001',
      qtyStep: '0.001',
      postOnlyMaxOrderQty: '1190.000',
      maxMktOrderQty: '500.000',
      minNotionalValue: '5'
    },
    unifiedMarginTrade: true,
    fundingInterval: fundingMinutes,
    settleCoin: 'USDT',
    copyTrading: 'both',
    upperFundingRate: '0.005',
    lowerFundingRate: '-0.005',
    isPreListing: false,
    preListingInfo: null,
    riskParameters: { priceLimitRatioX: '0.01', priceLimitRatioY: '0.02' },
    displayName: '',
    ...over
  }
}

/** The linear instruments in Bybit's order; the local server pages them. */
export const INSTRUMENTS = [
  instrument('BTCUSDT', 'BTC', 480),
  instrument('BTC-26DEC25', 'BTC', 0, { contractType: 'LinearFutures', deliveryTime: '1766736000000' }),
  instrument('ETHUSDT', 'ETH', 480),
  instrument('BTCPERP', 'BTC', 480, { quoteCoin: 'USDC', settleCoin: 'USDC' }),
  instrument('ORDIUSDT', 'ORDI', 60),
  instrument('NEWUSDT', 'NEW', 240, { status: 'PreLaunch', isPreListing: true }),
  instrument('1000PEPEUSDT', '1000PEPE', 240, { priceScale: '7' })
]

export const PERPS = ['BTCUSDT', 'ETHUSDT', 'ORDIUSDT', '1000PEPEUSDT'] as const

export function instrumentsBody(list: readonly object[], nextPageCursor: string): object {
  return {
    retCode: 0,
    retMsg: 'OK',
    result: { category: 'linear', list, nextPageCursor },
    retExtInfo: {},
    time: 1732270000000
  }
}

/** Every field of a linear tickers snapshot (strings, as Bybit sends them). */
export function tickerFields(symbol: string, over: Record<string, string> = {}): Record<string, string> {
  const mark = MARK[symbol] ?? '1.00'
  return {
    symbol,
    tickDirection: 'PlusTick',
    price24hPcnt: '0.017103',
    lastPrice: mark,
    prevPrice24h: mark,
    highPrice24h: mark,
    lowPrice24h: mark,
    prevPrice1h: mark,
    markPrice: mark,
    indexPrice: INDEX[symbol] ?? mark,
    openInterest: '1000',
    // USD = contracts x mark price
    openInterestValue: (Number(over['openInterest'] ?? '1000') * Number(over['markPrice'] ?? mark)).toFixed(2),
    turnover24h: '2351623.4562',
    volume24h: '2445.8430',
    nextFundingTime: '1732273200000',
    fundingRate: '0.0001',
    bid1Price: mark,
    bid1Size: '0.350',
    ask1Price: mark,
    ask1Size: '0.120',
    preOpenPrice: '',
    preQty: '',
    curPreListingPhase: '',
    fundingIntervalHour: String(FUNDING_HOURS[symbol] ?? 8),
    fundingCap: '0.005',
    basisRate: '',
    deliveryFeeRate: '',
    predictedDeliveryPrice: '',
    basis: '',
    deliveryTime: '',
    ...over
  }
}

export const MARK: Readonly<Record<string, string>> = {
  BTCUSDT: '97000.10',
  ETHUSDT: '3400.55',
  ORDIUSDT: '41.250',
  '1000PEPEUSDT': '0.0201500'
}

export const INDEX: Readonly<Record<string, string>> = {
  BTCUSDT: '96990.40',
  ETHUSDT: '3400.20',
  ORDIUSDT: '41.240',
  '1000PEPEUSDT': '0.0201480'
}

export const FUNDING_HOURS: Readonly<Record<string, number>> = {
  BTCUSDT: 8,
  ETHUSDT: 8,
  ORDIUSDT: 1,
  '1000PEPEUSDT': 4
}

export function tickerMessage(
  type: 'snapshot' | 'delta',
  data: Record<string, string>,
  ts: number,
  cs = 24987956059
): object {
  return { topic: `tickers.${data['symbol']}`, type, data, cs, ts }
}

let tradeSeq = 1783284617

export function tradeRow(
  symbol: string,
  ts: number,
  side: 'Buy' | 'Sell',
  qty: string,
  price: string,
  id: string
): object {
  return { T: ts, s: symbol, S: side, v: qty, p: price, L: 'PlusTick', i: id, BT: false, RPI: false, seq: tradeSeq++ }
}

export function tradeMessage(symbol: string, ts: number, rows: readonly object[]): object {
  return { topic: `publicTrade.${symbol}`, type: 'snapshot', ts, data: rows }
}

export function liquidationMessage(
  symbol: string,
  ts: number,
  side: 'Buy' | 'Sell',
  qty: string,
  price: string
): object {
  return {
    topic: `allLiquidation.${symbol}`,
    type: 'snapshot',
    ts: ts + 275,
    data: [{ T: ts, s: symbol, S: side, v: qty, p: price }]
  }
}

export function accountRatioBody(symbol: string, buyRatio: string, sellRatio: string, ts: number): object {
  return {
    retCode: 0,
    retMsg: 'OK',
    result: {
      list: [{ symbol, buyRatio, sellRatio, timestamp: String(ts) }],
      nextPageCursor: 'lastid%3D0%26lasttime%3D0'
    },
    retExtInfo: {},
    time: ts + 1234
  }
}

/** A `/v5/market/recent-trade` row for a socket trade row (`tradeRow`): the same trade as REST sends it. */
export function recentTradeRow(row: object): object {
  const r = row as { T: number; s: string; S: string; v: string; p: string; i: string }
  return {
    execId: r.i,
    symbol: r.s,
    price: r.p,
    size: r.v,
    side: r.S,
    time: String(r.T),
    isBlockTrade: false,
    isRPITrade: false
  }
}

/** A recent-trade answer: `list` newest first, as Bybit lists it. */
export function recentTradesBody(list: readonly object[], time: number): object {
  return { retCode: 0, retMsg: 'OK', result: { category: 'linear', list }, retExtInfo: {}, time }
}
