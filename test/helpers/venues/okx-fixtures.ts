/**
 * OKX v5 fixtures written from the documented wire formats (OKX API v5 docs: public-data Get instruments,
 * market Get trades, WebSocket trades / funding-rate / open-interest / mark-price / liquidation-orders channels, rubik
 * trading statistics; field sets cross-checked with the reference, section C.4, and public SDK models).
 * Markets, with different contract values and funding intervals:
 * - BTC-USDT-SWAP: 0.01 BTC a contract, 8 h funding
 * - ETH-USDT-SWAP: 0.1 ETH a contract, 8 h funding
 * - DOGE-USDT-SWAP: 1,000 DOGE a contract, 1 h funding
 * - PEPE-USDT-SWAP: 10,000,000 PEPE a contract, 4 h funding
 * plus entries discovery must skip: a coin-margined swap (contracts in USD), a USDC swap and a suspended one.
 */

const HOUR = 3_600_000

export function instrument(instId: string, ctVal: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  const [base, quote] = instId.split('-') as [string, string]
  return {
    alias: '',
    auctionEndTime: '',
    baseCcy: '',
    category: '1',
    ctMult: '1',
    ctType: 'linear',
    ctVal,
    ctValCcy: base,
    expTime: '',
    instFamily: `${base}-${quote}`,
    instId,
    instType: 'SWAP',
    lever: '100',
    listTime: '1611916828000',
    lotSz: '0.01',
    maxIcebergSz: '100000000.0000000000000000',
    maxLmtAmt: '20000000',
    maxLmtSz: '100000000',
    maxMktAmt: '',
    maxMktSz: '12000',
    maxStopSz: '12000',
    maxTriggerSz: '100000000.0000000000000000',
    maxTwapSz: '100000000.0000000000000000',
    minSz: '0.01',
    optType: '',
    quoteCcy: '',
    ruleType: 'normal',
    settleCcy: quote,
    state: 'live',
    stk: '',
    tickSz: '0.1',
    uly: `${base}-${quote}`,
    ...over
  }
}

export const INSTRUMENTS = {
  code: '0',
  msg: '',
  data: [
    instrument('BTC-USDT-SWAP', '0.01'),
    instrument('ETH-USDT-SWAP', '0.1', { tickSz: '0.01' }),
    instrument('DOGE-USDT-SWAP', '1000', { tickSz: '0.00001', lotSz: '0.01', lever: '75' }),
    instrument('PEPE-USDT-SWAP', '10000000', { tickSz: '0.0000001', lotSz: '0.1', minSz: '0.1', lever: '50' }),
    // skipped: contracts in USD (inverse), USDC-settled, not live
    instrument('BTC-USD-SWAP', '100', { ctType: 'inverse', ctValCcy: 'USD', settleCcy: 'BTC', uly: 'BTC-USD' }),
    instrument('BTC-USDC-SWAP', '0.0001', { settleCcy: 'USDC' }),
    instrument('OLD-USDT-SWAP', '10', { state: 'suspend' })
  ]
}

export const SWAPS = ['BTC-USDT-SWAP', 'ETH-USDT-SWAP', 'DOGE-USDT-SWAP', 'PEPE-USDT-SWAP'] as const

/** Coins per contract of each followed swap. */
export const CT_VAL: Readonly<Record<string, number>> = {
  'BTC-USDT-SWAP': 0.01,
  'ETH-USDT-SWAP': 0.1,
  'DOGE-USDT-SWAP': 1000,
  'PEPE-USDT-SWAP': 10_000_000
}

/** Funding interval per swap, hours. */
export const INTERVAL_HOURS: Readonly<Record<string, number>> = {
  'BTC-USDT-SWAP': 8,
  'ETH-USDT-SWAP': 8,
  'DOGE-USDT-SWAP': 1,
  'PEPE-USDT-SWAP': 4
}

/** Mark prices per swap, USDT per coin (strings, as OKX sends them). */
export const MARK: Readonly<Record<string, string>> = {
  'BTC-USDT-SWAP': '97000.1',
  'ETH-USDT-SWAP': '3400.55',
  'DOGE-USDT-SWAP': '0.38211',
  'PEPE-USDT-SWAP': '0.0000201'
}

/** Coins with long/short statistics (`data.contract` of support-coin); PEPE has none. */
export const SUPPORT_COIN = {
  code: '0',
  msg: '',
  data: { contract: ['BTC', 'ETH', 'DOGE', 'SOL'], option: ['BTC', 'ETH'], spot: ['BTC', 'ETH', 'DOGE', 'SOL'] }
}

export const push = (arg: Record<string, string>, data: unknown[]): object => ({ arg, data })

export function tradeRow(
  instId: string,
  tradeId: string,
  ts: number,
  px: string,
  sz: string,
  side: 'buy' | 'sell'
): object {
  return { instId, tradeId, px, sz, side, ts: String(ts), count: '1', source: '0', seqId: Number(tradeId) * 7 }
}

/** The same trade as `/api/v5/market/trades` lists it (no `count`/`seqId`). */
export function restTradeRow(row: object): object {
  const { instId, tradeId, px, sz, side, ts, source } = row as Record<string, string>
  return { instId, side, sz, px, source, tradeId, ts }
}

/** funding-rate push row: `fundingTime` is the next settlement, the one after it `intervalHours` later. */
export function fundingRow(
  instId: string,
  ts: number,
  rate: string,
  fundingTime: number,
  intervalHours: number
): object {
  return {
    formulaType: 'withRate',
    fundingRate: rate,
    fundingTime: String(fundingTime),
    impactValue: '20000.0000000000000000',
    instId,
    instType: 'SWAP',
    interestRate: '0.0001000000000000',
    maxFundingRate: '0.00375',
    method: 'current_period',
    minFundingRate: '-0.00375',
    nextFundingRate: '',
    nextFundingTime: String(fundingTime + intervalHours * HOUR),
    premium: '0.0000604121295194',
    settFundingRate: '0.0000912345678901',
    settState: 'settled',
    ts: String(ts)
  }
}

/** open-interest push row: `oi` contracts, `oiCcy` coins, `oiUsd` USD. */
export function openInterestRow(instId: string, contracts: string, ts: number, withUsd = true): object {
  const coins = Number(contracts) * (CT_VAL[instId] ?? 1)
  const row: Record<string, string> = {
    instId,
    instType: 'SWAP',
    oi: contracts,
    oiCcy: String(coins),
    ts: String(ts)
  }
  if (withUsd) row['oiUsd'] = String(coins * Number(MARK[instId] ?? '1'))
  return row
}

export function markPriceRow(instId: string, ts: number): object {
  return { instId, instType: 'SWAP', markPx: MARK[instId] ?? '1', ts: String(ts) }
}

/** liquidation-orders push row: one instrument, its liquidation orders in `details` (sz in contracts). */
export function liquidationRow(
  instId: string,
  details: { side: 'buy' | 'sell'; bkPx: string; sz: string; ts: number }[]
): object {
  const [base, quote] = instId.split('-') as [string, string]
  return {
    details: details.map((d) => ({
      bkLoss: '0',
      bkPx: d.bkPx,
      ccy: '',
      posSide: d.side === 'sell' ? 'long' : 'short',
      side: d.side,
      sz: d.sz,
      ts: String(d.ts)
    })),
    instFamily: `${base}-${quote}`,
    instId,
    instType: 'SWAP',
    uly: `${base}-${quote}`
  }
}

/** long-short-account-ratio answer: `[ts, ratio]` rows, newest first. */
export function longShortBody(rows: [number, string][]): object {
  return { code: '0', msg: '', data: rows.map(([ts, r]) => [String(ts), r]) }
}
