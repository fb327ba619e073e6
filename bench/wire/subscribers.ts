/**
 * @module
 * Subscriber side of the wire benchmark, a child process (IPC) holding N `ws` sockets to one server
 * (Tidewatch's /v1/stream or the bare relay). The receive time (bench/wire/clock.ts) is read first thing
 * in each frame's handler; the frame's trades are then matched to the venue's send stamps, which the
 * parent forwards from the venue process:
 * - Tidewatch: a `trades:` update's trades by `exchange|symbol|trade_id`, a `candles:` update of a forming
 *   candle by `exchange|symbol|close` (the close is the price of the trade that made it; closed candles
 *   are pushed on a timer and not measured). Sequence numbers are checked per socket and channel: an
 *   update whose seq is not the previous + 1 is a gap.
 * - bare: each frame is one raw venue message, matched by its trade id.
 * Latencies are kept per phase of the send (live, burst, after a burst); a delivery that arrives before its
 * stamp waits in `pending` until the stamp comes (stamps are kept for the whole run: a few hundred thousand).
 */
import WebSocket from 'ws'
import { monoMs } from './clock.js'
import type { WireMarket } from './markets.js'

interface Init {
  readonly kind: 'tidewatch' | 'bare'
  readonly url: string
  readonly subs: string[][]
  readonly markets: WireMarket[]
}

type Cmd = { stamps: (string | number)[] } | { cmd: 'report' } | { cmd: 'close' }

/** sockets opened at once while connecting */
const CONNECT_PARALLEL = 50
/** longest a delivery waits for its stamp before it counts as unmatched, ms */
const STAMP_WAIT_MS = 30_000

/** send time (bench/wire/clock.ts) and phase index per trade key and price key, for the whole run */
const stamps = new Map<string, number>()
const phaseOf = new Map<string, number>()
/** latencies per phase index, ms; kind 0 = trades frames, 1 = candle frames */
const lat: number[][][] = [[], []]
/** deliveries that came before their stamp: [key, receive time, kind], matched when stamps arrive */
let pending: [string, number, number][] = []
const counts = {
  frames: 0,
  trade_deliveries: 0,
  candle_updates: 0,
  closed_candles: 0,
  /** deliveries with no stamp by the end of the run (a trade the venue did not send: a REST backfill's) */
  unmatched: 0,
  expected_trade_deliveries: 0,
  seq_gaps: 0,
  snapshots: 0,
  closed_sockets: 0
}
/** messages of the channels the server refused */
const refused = new Set<string>()
/** trades-channel subscribers per base (expected deliveries of a trade of that base) */
const tradeSubs = new Map<string, number>()
/** venue|symbol -> base */
const baseOf = new Map<string, string>()

function record(key: string, t: number, kind: number): void {
  const s = stamps.get(key)
  if (s === undefined) pending.push([key, t, kind])
  else (lat[kind]![phaseOf.get(key)!] ??= []).push(t - s)
}

function onStamps(batch: (string | number)[]): void {
  for (let i = 0; i < batch.length; i += 4) {
    const key = batch[i] as string
    const priceKey = batch[i + 1] as string
    const t = batch[i + 2] as number
    const phase = batch[i + 3] as number
    stamps.set(key, t)
    phaseOf.set(key, phase)
    stamps.set(priceKey, t)
    phaseOf.set(priceKey, phase)
    const market = key.slice(0, key.lastIndexOf('|'))
    counts.expected_trade_deliveries += tradeSubs.get(baseOf.get(market) ?? '') ?? 0
  }
  if (pending.length) {
    const again = pending
    pending = []
    const now = monoMs()
    // a stamp comes within the IPC's delay; past STAMP_WAIT_MS none will (not a trade the venue sent)
    for (const [key, t, kind] of again) {
      if (now - t > STAMP_WAIT_MS && !stamps.has(key)) counts.unmatched++
      else record(key, t, kind)
    }
  }
}

interface Update {
  type: string
  channel: string
  seq: number
  data: unknown
}

function tidewatchSocket(ws: WebSocket, channels: string[], done: () => void): void {
  const last = new Map<string, number>()
  let waiting = -1
  ws.on('message', (raw: Buffer) => {
    const t = monoMs()
    counts.frames++
    const m = JSON.parse(raw.toString('utf8')) as Update & { channels?: string[]; errors?: { message: string }[] }
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
        record(`${tr.exchange}|${tr.symbol}|${tr.trade_id}`, t, 0)
      }
    } else {
      const c = m.data as { exchange: string; symbol: string; close: number; closed: boolean }
      if (c.closed) counts.closed_candles++
      else {
        counts.candle_updates++
        record(`${c.exchange}|${c.symbol}|${c.close}`, t, 1)
      }
    }
  })
  ws.send(JSON.stringify({ op: 'subscribe', id: 1, channels }))
}

/** the trade key of a raw venue message (Binance aggTrade, Bybit publicTrade, OKX trades) */
function rawKey(text: string): string | null {
  const m = JSON.parse(text) as {
    stream?: string
    data: { s: string; a: number } | { s?: string; i?: string; instId?: string; tradeId?: string }[]
  }
  if (m.stream) {
    const d = m.data as { s: string; a: number }
    return `binance|${d.s}|${d.a}`
  }
  const row = (m.data as { s?: string; i?: string; instId?: string; tradeId?: string }[])[0]
  if (!row) return null
  return row.instId ? `okx|${row.instId}|${row.tradeId}` : `bybit|${row.s}|${row.i}`
}

function bareSocket(ws: WebSocket, channels: string[], done: () => void): void {
  ws.on('message', (raw: Buffer) => {
    const t = monoMs()
    counts.frames++
    const text = raw.toString('utf8')
    if (text === '{"type":"subscribed"}') return done()
    const key = rawKey(text)
    if (key === null) return
    counts.trade_deliveries++
    record(key, t, 0)
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

function pct(xs: number[], p: number): number {
  if (xs.length === 0) return Number.NaN
  return Math.round(xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]! * 100) / 100
}

function summary(xs: number[] | undefined): Record<string, number> {
  const s = Float64Array.from(xs ?? []).sort()
  const arr = Array.from(s)
  return { n: arr.length, p50_ms: pct(arr, 50), p99_ms: pct(arr, 99), p99_9_ms: pct(arr, 99.9), max_ms: pct(arr, 100) }
}

async function main(init: Init): Promise<void> {
  for (const m of init.markets) baseOf.set(`${m.exchange}|${m.symbol}`, m.base)
  for (const chs of init.subs)
    for (const c of chs) if (c.startsWith('trades:')) tradeSubs.set(c.slice(7), (tradeSubs.get(c.slice(7)) ?? 0) + 1)
  const sockets: WebSocket[] = []
  const t0 = performance.now()
  for (let i = 0; i < init.subs.length; i += CONNECT_PARALLEL) {
    sockets.push(...(await Promise.all(init.subs.slice(i, i + CONNECT_PARALLEL).map((chs) => open(init, chs)))))
  }
  process.on('message', (m: Cmd) => {
    if ('stamps' in m) onStamps(m.stamps)
    else if (m.cmd === 'report') {
      const phases = (kind: number): Record<number, Record<string, number>> =>
        Object.fromEntries(lat[kind]!.map((xs, i) => [i, summary(xs)]))
      const all = lat[0]!.map((xs, i) => [...(xs ?? []), ...(lat[1]![i] ?? [])])
      process.send!({
        report: {
          counts: { ...counts, unmatched: counts.unmatched + pending.length },
          refused: [...refused],
          trades: phases(0),
          candles: phases(1),
          all: Object.fromEntries(all.map((xs, i) => [i, summary(xs)]))
        }
      })
    } else {
      for (const ws of sockets) ws.terminate()
      process.exit(0)
    }
  })
  process.send!({ connected: sockets.length, ms: Math.round(performance.now() - t0), refused: [...refused] })
}

process.once('message', (init: Init) => void main(init))
