/**
 * @module
 * Venue side of the wire benchmark, a child process (IPC): the local protocol servers the tests use
 * (test/helpers/venues: Binance USD-M, Bybit v5 linear, OKX v5 swaps, Deribit options) listing every market
 * of bench/wire/markets.ts, then on command a trade schedule: rate phases (live, 10x bursts) of one-trade
 * messages in each venue's wire shape, markets drawn by weight. The send time of every trade is kept by
 * market and trade seq and handed to the parent at the end of the run (nothing crosses processes while it
 * runs); trade ids and prices map back to that seq (`ID_BASE`, `priceOf`).
 *
 * Clock: `process.hrtime` (CLOCK_MONOTONIC on Linux), one clock for every process of the machine, immune
 * to wall-clock steps; the subscriber processes read the same clock on receive.
 */
import { BinanceTestServer } from '../../test/helpers/venues/binance-server.js'
import { EXCHANGE_INFO } from '../../test/helpers/venues/binance-fixtures.js'
import { BybitTestServer } from '../../test/helpers/venues/bybit-server.js'
import {
  INSTRUMENTS as BYBIT_INSTRUMENTS,
  tradeRow as bybitTradeRow
} from '../../test/helpers/venues/bybit-fixtures.js'
import { OkxTestServer } from '../../test/helpers/venues/okx-server.js'
import { instrument as okxInstrument } from '../../test/helpers/venues/okx-fixtures.js'
import { DeribitTestServer } from '../../test/helpers/venues/deribit-server.js'
import { chain } from '../../test/helpers/venues/deribit-fixtures.js'
import { mulberry32 } from '../mulberry32.js'
import { priceOf, wireMarkets } from './markets.js'
import { monoMs } from './clock.js'

export interface Phase {
  readonly name: string
  readonly seconds: number
  /** messages per second, all venues together */
  readonly rate: number
}

type Cmd = { cmd: 'run'; phases: Phase[] } | { cmd: 'prime' } | { cmd: 'held'; holders: number } | { cmd: 'stop' }

/** send tick, ms: each tick sends rate x tick / 1000 messages back to back */
const TICK_MS = 5

const markets = wireMarkets()
const binance = new BinanceTestServer({ pingMs: 60_000 })
const bybit = new BybitTestServer({ pageSize: 1_000 })
const okx = new OkxTestServer()
const deribit = new DeribitTestServer({ heartbeatMs: 10_000 })

function listMarkets(): void {
  const bn = EXCHANGE_INFO.symbols[0]!
  const bb = BYBIT_INSTRUMENTS[0] as Record<string, unknown>
  for (const m of markets) {
    if (m.exchange === 'binance') {
      if (!EXCHANGE_INFO.symbols.some((s) => s.symbol === m.symbol))
        EXCHANGE_INFO.symbols.push({ ...bn, symbol: m.symbol, pair: m.symbol, baseAsset: m.base })
      binance.openInterest.set(m.symbol, '1000')
      binance.longShort.set(m.symbol, '1')
    } else if (m.exchange === 'bybit') {
      if (!BYBIT_INSTRUMENTS.some((s) => (s as { symbol: string }).symbol === m.symbol))
        BYBIT_INSTRUMENTS.push({ ...bb, symbol: m.symbol, baseCoin: m.base })
      bybit.setTicker(m.symbol)
      bybit.ratios.set(m.symbol, ['0.5', '0.5'])
    } else {
      if (!okx.instruments.some((i) => i['instId'] === m.symbol)) okx.instruments.push(okxInstrument(m.symbol, '1'))
      okx.longShort.set(m.base, '1')
    }
  }
  const now = Date.now()
  deribit.chains.set('BTC', chain('BTC', now))
  deribit.chains.set('ETH', chain('ETH', now))
}

/** send time (bench/wire/clock.ts) of each trade per market index, by the market's trade seq (1-based) */
const sendTimes: number[][] = markets.map(() => [0])
/** phase index of each trade per market index (-1: the priming trade) */
const sendPhases: number[][] = markets.map(() => [-1])
const phaseIndex = new Map<string, number>()

function sendTrade(i: number, phase: number, rnd: () => number): void {
  const m = markets[i]!
  const times = sendTimes[i]!
  const seq = times.length
  const price = priceOf(m, seq)
  const qty = (0.001 + rnd() * 2).toFixed(3)
  const buy = rnd() < 0.5
  times.push(monoMs())
  sendPhases[i]!.push(phase)
  const ts = Date.now()
  if (m.exchange === 'binance') binance.trade(m.symbol, ts, price, qty, !buy)
  else if (m.exchange === 'bybit')
    bybit.trades(m.symbol, [bybitTradeRow(m.symbol, ts, buy ? 'Buy' : 'Sell', qty, price, String(seq))])
  else okx.trade(m.symbol, ts, price, qty, buy ? 'buy' : 'sell')
}

async function run(phases: Phase[]): Promise<void> {
  const cum: number[] = []
  let total = 0
  for (const m of markets) cum.push((total += m.weight))
  const rnd = mulberry32(0x3a7e)
  const pick = (): number => {
    const x = rnd() * total
    let lo = 0
    let hi = cum.length - 1
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (cum[mid]! < x) lo = mid + 1
      else hi = mid
    }
    return lo
  }
  const sentBy: Record<string, number> = {}
  for (const p of phases) {
    const idx = phaseIndex.get(p.name) ?? phaseIndex.size
    phaseIndex.set(p.name, idx)
    // the parent samples the receivers' CPU at each phase boundary (one message per phase)
    process.send!({ phase: p.name })
    const start = monoMs()
    const end = start + p.seconds * 1000
    let sent = 0
    // send what the rate owes at each tick: a slow tick catches up in the next one (the rate holds)
    while (monoMs() < end) {
      const owed = Math.floor(((monoMs() - start) / 1000) * p.rate) - sent
      for (let i = 0; i < owed; i++) sendTrade(pick(), idx, rnd)
      sent += owed
      await new Promise((r) => setTimeout(r, TICK_MS))
    }
    sentBy[p.name] = (sentBy[p.name] ?? 0) + sent
  }
  process.send!({ ran: sentBy, phases: Object.fromEntries(phaseIndex), sendTimes, sendPhases })
}

async function main(): Promise<void> {
  await Promise.all([binance.start(), bybit.start(), okx.start(), deribit.start()])
  listMarkets()
  process.on('message', (m: Cmd) => {
    if (m.cmd === 'run') void run(m.phases)
    else if (m.cmd === 'prime') {
      // one trade per market: every market exists in the receivers' state before channels are subscribed
      const rnd = mulberry32(1)
      for (let i = 0; i < markets.length; i++) sendTrade(i, -1, rnd)
      process.send!({ primed: markets.length })
    } else if (m.cmd === 'held') process.send!({ held: tradeStreamsHeld(m.holders), of: markets.length })
    else void Promise.all([binance.stop(), bybit.stop(), okx.stop(), deribit.stop()]).finally(() => process.exit(0))
  })
  process.send!({
    ready: true,
    markets,
    env: {
      BINANCE_WS_URL: binance.wsUrl,
      BINANCE_REST_URL: binance.restUrl,
      BYBIT_WS_URL: bybit.wsUrl,
      BYBIT_REST_URL: bybit.restUrl,
      OKX_WS_URL: okx.wsUrl,
      OKX_REST_URL: okx.restUrl,
      DERIBIT_WS_URL: deribit.wsUrl,
      DERIBIT_REST_URL: deribit.restUrl
    }
  })
}

/** Markets whose trade stream has at least `holders` subscribed connections (Tidewatch and the relay: 2). */
function tradeStreamsHeld(holders: number): number {
  const held = (subs: Set<string>[], key: string): boolean => subs.filter((s) => s.has(key)).length >= holders
  const of = (server: { clients: Set<{ subs: Set<string> }> }): Set<string>[] => [...server.clients].map((c) => c.subs)
  const bn = of(binance)
  const bb = of(bybit)
  const ok = of(okx)
  let n = 0
  for (const m of markets) {
    if (m.exchange === 'binance') n += held(bn, `${m.symbol.toLowerCase()}@aggTrade`) ? 1 : 0
    else if (m.exchange === 'bybit') n += held(bb, `publicTrade.${m.symbol}`) ? 1 : 0
    else n += held(ok, `trades|${m.symbol}`) ? 1 : 0
  }
  return n
}

void main()
