/**
 * @module
 * OKX v5 market discovery and per-instrument units. `GET /api/v5/public/instruments?instType=SWAP` lists
 * every perpetual swap (USDT-, USDC- and coin-margined) in one answer (the endpoint does not page); we keep
 * the USDT-settled linear swaps in state `live`. OKX quotes sizes in **contracts**: one contract of a
 * linear swap is `ctVal × ctMult` units of `ctValCcy` (the base coin), e.g. 0.01 BTC for BTC-USDT-SWAP,
 * 0.1 ETH for ETH-USDT-SWAP, 10,000,000 PEPE for PEPE-USDT-SWAP. Prices are USDT per coin already.
 */

export interface OkxMarket {
  /** native instrument id, e.g. `BTC-USDT-SWAP` */
  readonly symbol: string
  /** the coin one contract is denominated in (`ctValCcy`), e.g. `BTC` */
  readonly base: string
  readonly quote: string
  /** coins per contract: ctVal × ctMult */
  readonly coinsPerContract: number
}

interface Instrument {
  instId?: unknown
  instType?: unknown
  settleCcy?: unknown
  ctType?: unknown
  ctVal?: unknown
  ctMult?: unknown
  ctValCcy?: unknown
  state?: unknown
}

/** `BTC-USDT-SWAP` → base and quote; null for anything else. */
const SWAP_ID = /^([A-Z0-9]+)-(USDT)-SWAP$/

/** Multiplies two decimals read from strings without binary noise (0.12 × 0.01 = 0.0012, not 0.0012000000000000001). */
export function mulDecimal(a: number, b: number): number {
  return Number((a * b).toPrecision(15))
}

/** The OKX `{"code":"0","msg":"","data":[...]}` envelope's data, or null when it is not one with code 0. */
export function okxData(body: unknown): unknown[] | null {
  const b = body as { code?: unknown; data?: unknown } | null
  if (b === null || typeof b !== 'object' || b.code !== '0' || !Array.isArray(b.data)) return null
  return b.data
}

/** Live USDT-settled linear swaps from an instruments answer; null when the body is not one. */
export function usdtSwaps(body: unknown): OkxMarket[] | null {
  const data = okxData(body)
  if (data === null) return null
  const out: OkxMarket[] = []
  for (const row of data as Instrument[]) {
    if (row === null || typeof row !== 'object') continue
    if (row.instType !== 'SWAP' || row.settleCcy !== 'USDT' || row.ctType !== 'linear' || row.state !== 'live') continue
    if (typeof row.instId !== 'string' || typeof row.ctValCcy !== 'string') continue
    const id = SWAP_ID.exec(row.instId)
    const ctVal = Number(row.ctVal)
    // ctMult is "1" on every linear swap seen; an empty one counts as 1
    const ctMult = row.ctMult === '' || row.ctMult === undefined ? 1 : Number(row.ctMult)
    if (id === null || !(ctVal > 0) || !(ctMult > 0)) continue
    out.push({ symbol: row.instId, base: row.ctValCcy, quote: id[2]!, coinsPerContract: mulDecimal(ctVal, ctMult) })
  }
  return out
}

/** Base coin of a USDT swap id without instrument data (`BTC-USDT-SWAP` → `BTC`), for a replay of a later hour. */
export function baseOf(instId: string): string {
  return SWAP_ID.exec(instId)?.[1] ?? instId.split('-', 1)[0]!
}
