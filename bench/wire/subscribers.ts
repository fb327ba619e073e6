/**
 * @module
 * Subscriber side of the wire benchmark, a child process (IPC) holding N `ws` sockets to one server
 * (Tidewatch's /v1/stream or the bare relay). The receive time (bench/wire/clock.ts) is read first thing
 * in each frame's handler; each delivered trade is kept as (market index, trade seq, receive time, kind)
 * and written to a file at the end, where the parent matches it to the venue's send time:
 * - Tidewatch: a `trades:` update's trades by trade id, a `candles:` update of a forming candle by its close
 *   (the price of the trade that made it; closed candles are pushed on a timer and not measured). Sequence
 *   numbers are checked per socket and channel: an update whose seq is not the previous + 1 is a gap.
 * - bare: each frame is one raw venue message, matched by its trade id.
 */
import fs from 'node:fs'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import WebSocket from 'ws'
import { monoMs } from './clock.js'
import { ID_BASE, seqOfPrice, type WireMarket, type WireVenue } from './markets.js'

interface Init {
  readonly kind: 'tidewatch' | 'bare'
  readonly url: string
  readonly subs: string[][]
  readonly markets: WireMarket[]
}

type Cmd = { cmd: 'report'; file: string } | { cmd: 'stop' }

/** sockets opened at once while connecting */
const CONNECT_PARALLEL = 50
/** fields per delivery: market index, trade seq, receive time (ms), kind (0 trade, 1 forming candle) */
const FIELDS = 4

let deliveries = new Float64Array(FIELDS << 20)
let used = 0
const counts = {
  frames: 0,
  trade_deliveries: 0,
  candle_updates: 0,
  closed_candles: 0,
  /** deliveries of a market the run does not list (none expected) */
  unknown_market: 0,
  seq_gaps: 0,
  snapshots: 0,
  closed_sockets: 0
}
/** this process's own event-loop delay: a receive time read late shows here, not in the server */
const loopDelay = monitorEventLoopDelay({ resolution: 10 })
loopDelay.enable()

/** messages of the channels the server refused */
const refused = new Set<string>()
/** exchange|symbol -> market index */
const indexOf = new Map<string, number>()
let markets: WireMarket[] = []

function keep(exchange: string, symbol: string, seq: number, t: number, kind: number): void {
  const i = indexOf.get(`${exchange}|${symbol}`)
  if (i === undefined) {
    counts.unknown_market++
    return
  }
  if (used + FIELDS > deliveries.length) {
    const bigger = new Float64Array(deliveries.length * 2)
    bigger.set(deliveries)
    deliveries = bigger
  }
  deliveries[used++] = i
  deliveries[used++] = seq
  deliveries[used++] = t
  deliveries[used++] = kind
}

const seqOfId = (exchange: string, id: string | number): number => Number(id) - ID_BASE[exchange as WireVenue] + 1

interface Frame {
  type: string
  channel: string
  seq: number
  data: unknown
  channels?: string[]
  errors?: { message: string }[]
}

function tidewatchSocket(ws: WebSocket, channels: string[], done: () => void): void {
  const last = new Map<string, number>()
  let waiting = -1
  ws.on('message', (raw: Buffer) => {
    const t = monoMs()
    counts.frames++
    const m = JSON.parse(raw.toString('utf8')) as Frame
    if (m.type === 'ack') {
      // refused channels (a base no market has under that name) get no snapshot
      for (const e of m.errors ?? []) refused.add(e.message)
      waiting = m.channels!.length
      if (waiting === 0) done()
      return
    }
    if (m.type === 'snapshot') {
      last.set(m.channel, m.seq)
      counts.snapshots++
      if (--waiting === 0) done()
      return
    }
    if (m.type !== 'update') return
    const prev = last.get(m.channel)
    if (prev !== undefined && m.seq !== prev + 1) counts.seq_gaps++
    last.set(m.channel, m.seq)
    if (m.channel.startsWith('trades:')) {
      for (const tr of m.data as { exchange: string; symbol: string; trade_id: string }[]) {
        counts.trade_deliveries++
        keep(tr.exchange, tr.symbol, seqOfId(tr.exchange, tr.trade_id), t, 0)
      }
    } else {
      const c = m.data as { exchange: string; symbol: string; close: number; closed: boolean }
      if (c.closed) counts.closed_candles++
      else {
        counts.candle_updates++
        const i = indexOf.get(`${c.exchange}|${c.symbol}`)
        if (i !== undefined) keep(c.exchange, c.symbol, seqOfPrice(markets[i]!, c.close), t, 1)
      }
    }
  })
  ws.send(JSON.stringify({ op: 'subscribe', id: 1, channels }))
}

type RawRow = { s?: string; i?: string; instId?: string; tradeId?: string }

function bareSocket(ws: WebSocket, channels: string[], done: () => void): void {
  ws.on('message', (raw: Buffer) => {
    const t = monoMs()
    counts.frames++
    const text = raw.toString('utf8')
    if (text === '{"type":"subscribed"}') return done()
    const m = JSON.parse(text) as { stream?: string; data: { s: string; a: number } | RawRow[] }
    counts.trade_deliveries++
    if (m.stream) {
      const d = m.data as { s: string; a: number }
      keep('binance', d.s, seqOfId('binance', d.a), t, 0)
      return
    }
    const row = (m.data as RawRow[])[0]!
    if (row.instId) keep('okx', row.instId, seqOfId('okx', row.tradeId!), t, 0)
    else keep('bybit', row.s!, seqOfId('bybit', row.i!), t, 0)
  })
  ws.send(JSON.stringify({ op: 'subscribe', channels }))
}

function open(init: Init, channels: string[]): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(init.url, { perMessageDeflate: false })
    ws.once('error', reject)
    ws.once('close', () => counts.closed_sockets++)
    ws.once('open', () => {
      const done = (): void => resolve(ws)
      if (init.kind === 'tidewatch') tidewatchSocket(ws, channels, done)
      else bareSocket(ws, channels, done)
    })
  })
}

async function main(init: Init): Promise<void> {
  markets = init.markets
  markets.forEach((m, i) => indexOf.set(`${m.exchange}|${m.symbol}`, i))
  const sockets: WebSocket[] = []
  const t0 = performance.now()
  for (let i = 0; i < init.subs.length; i += CONNECT_PARALLEL) {
    sockets.push(...(await Promise.all(init.subs.slice(i, i + CONNECT_PARALLEL).map((chs) => open(init, chs)))))
  }
  process.on('message', (m: Cmd) => {
    if (m.cmd === 'report') {
      fs.writeFileSync(m.file, deliveries.subarray(0, used))
      const ms = (ns: number): number => Math.round(ns / 1e4) / 100
      const event_loop_delay_ms = {
        p50: ms(loopDelay.percentile(50)),
        p99: ms(loopDelay.percentile(99)),
        max: ms(loopDelay.max)
      }
      process.send!({ report: { counts, refused: [...refused], event_loop_delay_ms } })
    } else {
      for (const ws of sockets) ws.terminate()
      process.exit(0)
    }
  })
  process.send!({ connected: sockets.length, ms: Math.round(performance.now() - t0), refused: [...refused] })
}

process.once('message', (init: Init) => void main(init))
