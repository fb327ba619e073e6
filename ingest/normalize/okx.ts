/**
 * @module
 * OKX v5 USDT swaps → normalized records. Socket pushes are `{"arg":{"channel",...},"data":[...]}`; events
 * (`{"event":"subscribe"|"unsubscribe"|"channel-conn-count"|"notice",...}`) are protocol chatter and
 * `{"event":"error","code","msg"}` is a venue error. REST answers are `{"code":"0","msg":"","data":[...]}`,
 * told apart by their path; a non-zero `code` is a venue error.
 *
 * **OKX sizes are contracts.** Trades `sz`, open interest `oi` and liquidation `sz` are converted to coins
 * with the instrument's contract value (`ctVal × ctMult` from the instruments answer): 1 BTC-USDT-SWAP
 * contract = 0.01 BTC. Prices (`px`, `bkPx`, `markPx`) are already USDT per coin.
 *
 * - `trades` → trade. `side` is the taker's. OKX aggregates fills of one taker order per push (`count`) and
 *   `tradeId` is the last fill's id; OKX does not document ids as contiguous, so ids reveal no gaps (see
 *   docs/sources.md); an id seen among the last RECENT_IDS of the instrument is a duplicate and skipped.
 * - `reconnect` markers (pushed by the transport when a connection reopens) and `/api/v5/market/trades`
 *   answers (rows like the socket's, newest first) → the trades missed while it was down
 *   (`trade-window.ts`), mapped like socket trades.
 * - `funding-rate` → funding: `fundingRate` is a decimal fraction per interval, `fundingTime` the next
 *   settlement, interval = `nextFundingTime − fundingTime` (1 h, 4 h and 8 h markets exist). Sampled once
 *   per FUNDING_SAMPLE_MS per market and whenever `fundingTime` moves (a settlement happened). A row
 *   without `fundingRate` (missing, "" or null: seen in real pushes) has nothing to record and is skipped
 *   (`unknown`); without `fundingTime` the record has no next funding time.
 * - `open-interest` → open_interest (pushed every few seconds when it changes; one record per market per
 *   OI_SAMPLE_MS): `oi` contracts × contract value = coins; USD from `oiUsd`, else (missing, "" or "0")
 *   coins × latest mark.
 * - `mark-price` → no record; the latest mark goes into funding records and USD values (a row without
 *   `markPx`, or "0", is skipped: `unknown`).
 * - `liquidation-orders` (instType SWAP, every swap) → liquidation per detail row: `side` of the
 *   liquidation order (`sell` closes a long), bankruptcy price `bkPx`, `sz` contracts → coins. Rows of
 *   swaps we do not follow (coin- and USDC-margined) carry other contract units and are skipped.
 * - `/api/v5/rubik/stat/contracts/long-short-account-ratio?ccy=` → long_short of that coin's USDT swap,
 *   rows `[ts, ratio]`, each reading once.
 * - `/api/v5/public/instruments` → market meta (contract values).
 */
import { DEFAULT_FUNDING_INTERVAL_HOURS, type NormalizedRecord } from '../../engine/records/types.js'
import { WS_CHANNEL, type Outcome, type VenueNormalizer } from './normalizer.js'
import { baseOf, mulDecimal, okxData, usdtSwaps, type OkxMarket } from './okx-markets.js'
import {
  MarketTrades,
  NO_GAPS,
  RECONNECT_CHANNEL,
  closeWindowUnfilled,
  openReconnectWindows,
  serveFill,
  type ReconnectGaps,
  type TradesOf
} from './trade-window.js'

export { RECENT_IDS } from './trade-window.js'

/** One funding record per market per minute: OKX pushes every 30 to 90 s, the rate moves slowly. */
export const FUNDING_SAMPLE_MS = 60_000
/** One open-interest record per market per minute: OKX pushes a change every 3 s. */
export const OI_SAMPLE_MS = 60_000
const HOUR_MS = 3_600_000
const EXCHANGE = 'okx'

interface Market {
  /** null: an instrument the instruments answer did not list as a live USDT linear swap */
  meta: OkxMarket | null
  readonly symbol: string
  /** latest mark price, USDT per coin; NaN until the first */
  mark: number
  intervalHours: number
  fundingAt: number
  fundingTime: number
  oiAt: number
  pendingOi: { ts: number; coins: number } | null
  lastLongShortTs: number
  /** recent trade ids, newest trade, reconnect window */
  readonly trades: MarketTrades
}

type Row = Record<string, unknown>

/** OKX sends numbers as strings; a missing or empty field is NaN. */
const num = (v: unknown): number => (typeof v === 'string' && v !== '' ? Number(v) : Number.NaN)
/** A field without a value: missing, null or "" (OKX sends "" for values it does not have). */
const absent = (v: unknown): boolean => v === undefined || v === null || v === ''
const msTs = (v: unknown): number => {
  const n = num(v)
  return Number.isSafeInteger(n) && n > 0 ? n : Number.NaN
}

const CCY_PARAM = /[?&]ccy=([A-Z0-9]+)/
const INST_PARAM = /[?&]instId=([A-Z0-9-]+)/

export class OkxNormalizer implements VenueNormalizer {
  readonly venue = EXCHANGE
  private readonly markets = new Map<string, Market>()
  /** trades skipped as already seen */
  duplicates = 0

  /** `gaps` hears of reconnect windows and their fills (the transport fetches; a replay only counts). */
  constructor(private readonly gaps: ReconnectGaps = NO_GAPS) {}

  /** Markets known from the instruments answer. */
  marketMeta(instId: string): OkxMarket | null {
    return this.markets.get(instId)?.meta ?? null
  }

  private market(symbol: string): Market {
    let m = this.markets.get(symbol)
    if (m === undefined) {
      m = {
        meta: null,
        symbol,
        mark: Number.NaN,
        intervalHours: DEFAULT_FUNDING_INTERVAL_HOURS, // until a push shows both funding times
        fundingAt: -Infinity,
        fundingTime: Number.NaN,
        oiAt: -Infinity,
        pendingOi: null,
        lastLongShortTs: 0,
        trades: new MarketTrades()
      }
      this.markets.set(symbol, m)
    }
    return m
  }

  normalize(channel: string, msg: unknown, recvTs: number, out: NormalizedRecord[]): Outcome {
    if (msg === null || typeof msg !== 'object' || Array.isArray(msg)) return 'malformed'
    if (channel === WS_CHANNEL) return this.socket(msg as Row, recvTs, out)
    if (channel === RECONNECT_CHANNEL) return this.reconnect(msg)
    return this.rest(channel, msg as Row, out)
  }

  private socket(msg: Row, recvTs: number, out: NormalizedRecord[]): Outcome {
    const event = msg['event']
    if (event !== undefined) return event === 'error' ? 'error' : 'control'
    const arg = msg['arg'] as Row | undefined
    const data = msg['data']
    if (arg === null || typeof arg !== 'object' || !Array.isArray(data)) return 'unknown'
    let each: (row: Row) => Outcome
    switch (arg['channel']) {
      case 'trades':
        each = (row) => this.trade(row, true, out)
        break
      case 'funding-rate':
        each = (row) => this.funding(row, recvTs, out)
        break
      case 'open-interest':
        each = (row) => this.openInterest(row, out)
        break
      case 'mark-price':
        each = (row) => this.markPrice(row, out)
        break
      case 'liquidation-orders':
        each = (row) => this.liquidation(row, out)
        break
      default:
        return 'unknown'
    }
    // the good rows of a push still count; one bad row makes the message malformed
    let outcome: Outcome = 'ok'
    for (const row of data) {
      const o = row !== null && typeof row === 'object' ? each(row as Row) : 'malformed'
      if (o !== 'ok' && outcome === 'ok') outcome = o
    }
    return outcome
  }

  /** One trade from the socket or from a trades page (`fromSocket` false); ids seen before are skipped. */
  private trade(d: Row, fromSocket: boolean, out: NormalizedRecord[]): Outcome {
    const id = d['tradeId']
    const ts = msTs(d['ts'])
    const price = num(d['px'])
    const contracts = num(d['sz'])
    const side = d['side']
    if (typeof d['instId'] !== 'string' || typeof id !== 'string' || id === '' || Number.isNaN(ts)) return 'malformed'
    if ((side !== 'buy' && side !== 'sell') || !(price > 0) || !(contracts > 0)) return 'malformed'
    const m = this.market(d['instId'])
    if (m.meta === null) return 'unknown' // no contract value: the size cannot be converted
    if (m.trades.recent.has(id)) {
      this.duplicates++
      return 'duplicate'
    }
    m.trades.accept(id, ts, fromSocket)
    out.push({
      kind: 'trade',
      ts,
      exchange: EXCHANGE,
      market: 'perp',
      symbol: m.symbol,
      base: m.meta.base,
      quote: m.meta.quote,
      side,
      price,
      qty: mulDecimal(contracts, m.meta.coinsPerContract),
      trade_id: id
    })
    return 'ok'
  }

  /** A connection reopened: a window per instrument of it that has traded (`trade-window.ts`). */
  private reconnect(msg: unknown): Outcome {
    return openReconnectWindows(msg, this.tradesOf, this.gaps)
  }

  /** An error answer instead of a trades page: the instrument's open window closes unfilled. */
  private pageFailed(instId: string | undefined): void {
    closeWindowUnfilled(instId, this.tradesOf, this.gaps)
  }

  private readonly tradesOf: TradesOf = (s) => this.markets.get(s)?.trades

  /** A trades page: the trades of the instrument's open reconnect window that were missed. */
  private recentTrades(channel: string, body: Row, out: NormalizedRecord[]): Outcome {
    const instId = INST_PARAM.exec(channel)?.[1]
    const data = okxData(body)
    if (instId === undefined || data === null) return 'malformed'
    let outcome: Outcome = 'ok'
    const page: { id: string; ts: number; row: Row }[] = []
    for (const r of data as (Row | null)[]) {
      const ts = msTs(r?.['ts'])
      const id = r?.['tradeId']
      if (r === null || typeof r !== 'object' || typeof id !== 'string' || Number.isNaN(ts)) outcome = 'malformed'
      else page.push({ id, ts, row: r })
    }
    page.reverse() // OKX lists newest first
    return serveFill(instId, page, outcome, this.tradesOf, this.gaps, ({ row }) => this.trade(row, false, out))
  }

  private funding(d: Row, recvTs: number, out: NormalizedRecord[]): Outcome {
    if (typeof d['instId'] !== 'string') return 'malformed'
    if (absent(d['fundingRate'])) return 'unknown' // no rate, no record: skipped, not an error
    const rate = num(d['fundingRate'])
    const fundingTime = msTs(d['fundingTime']) // NaN when absent: a record without next_funding_ts
    if (!Number.isFinite(rate) || (!absent(d['fundingTime']) && Number.isNaN(fundingTime))) return 'malformed'
    const m = this.market(d['instId'])
    const hours = (msTs(d['nextFundingTime']) - fundingTime) / HOUR_MS
    if (Number.isInteger(hours) && hours >= 1 && hours <= 24) m.intervalHours = hours
    // the REST row has no ts; a push has one. Without it the receive time stands in (recorded, so replays agree)
    const pushed = msTs(d['ts'])
    const ts = Number.isNaN(pushed) ? recvTs : pushed
    if (ts - m.fundingAt < FUNDING_SAMPLE_MS && Object.is(fundingTime, m.fundingTime)) return 'ok'
    m.fundingAt = ts
    m.fundingTime = fundingTime
    out.push({
      kind: 'funding',
      ts,
      exchange: EXCHANGE,
      symbol: m.symbol,
      base: m.meta?.base ?? baseOf(m.symbol),
      funding_rate: rate,
      interval_hours: m.intervalHours,
      next_funding_ts: Number.isNaN(fundingTime) ? null : fundingTime,
      mark_price: Number.isNaN(m.mark) ? null : m.mark,
      index_price: null
    })
    return 'ok'
  }

  private openInterest(d: Row, out: NormalizedRecord[]): Outcome {
    const ts = msTs(d['ts'])
    const contracts = num(d['oi'])
    // `oiUsd` is optional: absent, or "0" while contracts are open, gives coins × the latest mark
    const usd = num(d['oiUsd'])
    if (typeof d['instId'] !== 'string' || Number.isNaN(ts) || !(contracts >= 0)) return 'malformed'
    if (!absent(d['oiUsd']) && !(usd >= 0)) return 'malformed'
    const m = this.market(d['instId'])
    // coins from contracts × contract value; `oiCcy` (coins) only for an instrument without meta
    const coins = m.meta ? mulDecimal(contracts, m.meta.coinsPerContract) : num(d['oiCcy'])
    if (!(coins >= 0)) return 'unknown'
    if (ts - m.oiAt < OI_SAMPLE_MS) return 'ok'
    m.oiAt = ts
    if (usd > 0 || coins === 0) this.emitOi(m, ts, coins, usd > 0 ? usd : 0, out)
    else if (Number.isNaN(m.mark)) m.pendingOi = { ts, coins }
    else this.emitOi(m, ts, coins, coins * m.mark, out)
    return 'ok'
  }

  private emitOi(m: Market, ts: number, coins: number, usd: number, out: NormalizedRecord[]): void {
    m.pendingOi = null
    out.push({
      kind: 'open_interest',
      ts,
      exchange: EXCHANGE,
      symbol: m.symbol,
      base: m.meta?.base ?? baseOf(m.symbol),
      oi_base: coins,
      oi_usd: usd
    })
  }

  private markPrice(d: Row, out: NormalizedRecord[]): Outcome {
    const mark = num(d['markPx'])
    if (typeof d['instId'] !== 'string') return 'malformed'
    if (absent(d['markPx']) || mark === 0) return 'unknown' // no mark to take: skipped
    if (!(mark > 0)) return 'malformed'
    const m = this.market(d['instId'])
    m.mark = mark
    const p = m.pendingOi
    if (p) this.emitOi(m, p.ts, p.coins, p.coins * mark, out)
    return 'ok'
  }

  private liquidation(d: Row, out: NormalizedRecord[]): Outcome {
    const details = d['details']
    if (typeof d['instId'] !== 'string' || !Array.isArray(details)) return 'malformed'
    const meta = this.markets.get(d['instId'])?.meta
    if (!meta) return 'ok' // a coin- or USDC-margined swap: not followed, other contract units
    let outcome: Outcome = 'ok'
    for (const row of details as (Row | null)[]) {
      const side = row?.['side']
      const ts = msTs(row?.['ts'])
      const price = num(row?.['bkPx'])
      const contracts = num(row?.['sz'])
      if ((side !== 'buy' && side !== 'sell') || Number.isNaN(ts) || !(price > 0) || !(contracts > 0)) {
        outcome = 'malformed'
        continue
      }
      out.push({
        kind: 'liquidation',
        ts,
        exchange: EXCHANGE,
        symbol: meta.symbol,
        base: meta.base,
        side,
        price,
        qty: mulDecimal(contracts, meta.coinsPerContract)
      })
    }
    return outcome
  }

  private rest(channel: string, body: Row, out: NormalizedRecord[]): Outcome {
    const path = channel.split('?', 1)[0]
    if (body['code'] !== '0') {
      if (path === '/api/v5/market/trades') this.pageFailed(INST_PARAM.exec(channel)?.[1])
      return typeof body['code'] === 'string' ? 'error' : 'malformed'
    }
    switch (path) {
      case '/api/v5/public/instruments':
        return this.instruments(body)
      case '/api/v5/rubik/stat/contracts/long-short-account-ratio':
        return this.longShort(channel, body, out)
      case '/api/v5/rubik/stat/trading-data/support-coin':
        return 'ok' // read by the transport (which coins have statistics)
      case '/api/v5/market/trades':
        return this.recentTrades(channel, body, out)
    }
    return 'unknown'
  }

  private instruments(body: Row): Outcome {
    const markets = usdtSwaps(body)
    if (markets === null) return 'malformed'
    for (const meta of markets) this.market(meta.symbol).meta = meta
    return 'ok'
  }

  private longShort(channel: string, body: Row, out: NormalizedRecord[]): Outcome {
    const ccy = CCY_PARAM.exec(channel)?.[1]
    const rows = okxData(body)
    if (ccy === undefined || rows === null) return 'malformed'
    const m = this.market(`${ccy}-USDT-SWAP`)
    let outcome: Outcome = 'ok'
    const fresh: { ts: number; ratio: number }[] = []
    for (const row of rows) {
      const ts = Array.isArray(row) ? msTs(row[0]) : Number.NaN
      const ratio = Array.isArray(row) ? num(row[1]) : Number.NaN
      if (Number.isNaN(ts) || !(ratio >= 0)) outcome = 'malformed'
      else if (ts > m.lastLongShortTs) fresh.push({ ts, ratio })
    }
    // OKX lists newest first; records go out oldest first, each reading once
    fresh.sort((a, b) => a.ts - b.ts)
    for (const r of fresh) {
      out.push({
        kind: 'long_short',
        ts: r.ts,
        exchange: EXCHANGE,
        symbol: m.symbol,
        base: m.meta?.base ?? ccy,
        long_short_ratio: r.ratio,
        long_account: null,
        short_account: null
      })
    }
    if (fresh.length) m.lastLongShortTs = fresh.at(-1)!.ts
    return outcome
  }
}
