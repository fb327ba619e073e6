/**
 * @module
 * Main-thread CPU per venue trade message on the server's live path, in one process and without sockets
 * (`node dist/bench/wire/path-cpu.js`; docs/benchmarks.md "Wire"): the wire benchmark's markets and
 * subscriptions, each venue's trade messages in its wire shape (the local venue servers' fixtures) pushed
 * into the venue's RawQueue as its socket would, then what the server does with them: the feed pump
 * (normalize, TSV chunk), the pipeline's lane and table batcher, the live state's books, the stream hub's
 * kinds (trades, candles) and the fan-out, whose sockets only count the frames handed to them. The store
 * discards its inserts (they run on the store's threads in the server; a batch a second is not per
 * message), and the socket writes are the wire benchmark's to measure.
 *
 * Messages go in rounds of DRAIN messages pushed at once, each round awaited to the end of its event-loop
 * turn: DRAIN 1 is the live rate (every message drained alone), larger ones a burst (messages queue while
 * the pump works). CPU is the process's user + system time (µs resolution; nothing else runs) per message,
 * after WARM messages of warm-up; each drain size runs ROUNDS times alternating, median reported.
 */
import { performance } from 'node:perf_hooks'
import { aggTradeEvent } from '../../test/helpers/venues/binance-fixtures.js'
import { tradeMessage, tradeRow as bybitTradeRow } from '../../test/helpers/venues/bybit-fixtures.js'
import {
  instrument as okxInstrument,
  push as okxPush,
  tradeRow as okxTradeRow
} from '../../test/helpers/venues/okx-fixtures.js'
import { silentLogger } from '../../engine/log.js'
import { LiveState } from '../../engine/live/live-state.js'
import type { Store } from '../../engine/store/store.js'
import { StreamHub, topicOf } from '../../engine/stream/stream-hub.js'
import { parseChannel } from '../../engine/stream/channels.js'
import { IngestPipeline } from '../../ingest/pipeline.js'
import { runSource } from '../../ingest/run-source.js'
import { BinanceNormalizer } from '../../ingest/normalize/binance.js'
import { BybitNormalizer } from '../../ingest/normalize/bybit.js'
import { OkxNormalizer } from '../../ingest/normalize/okx.js'
import type { VenueNormalizer } from '../../ingest/normalize/normalizer.js'
import { WS_CHANNEL } from '../../ingest/normalize/normalizer.js'
import { FeedCounters } from '../../ingest/sources/feed/feed-counters.js'
import { RawQueue } from '../../ingest/sources/feed/raw-queue.js'
import { runVenueFeed } from '../../ingest/sources/feed/venue-feed.js'
import type { Source } from '../../ingest/sources/source.js'
import { Fanout, type FanoutSocket } from '../../server/http/uws-fanout.js'
import { mulberry32 } from '../mulberry32.js'
import { median } from '../stats.js'
import { priceOf, subscriptions, wireMarkets, type WireMarket, type WireVenue } from './markets.js'

const SUBSCRIBERS = Number(process.env['BENCH_PATH_SUBS'] ?? 100)
/** measured messages per drain size and round */
const MESSAGES = Number(process.env['BENCH_PATH_MESSAGES'] ?? 30_000)
const WARM = 20_000
const ROUNDS = Number(process.env['BENCH_PATH_ROUNDS'] ?? 3)
const DRAINS = (process.env['BENCH_PATH_DRAINS'] ?? '1,25').split(',').map(Number)

/** A store that takes every insert and keeps nothing (the live path's main-thread work is measured). */
const discard: Store = {
  kind: 'chdb',
  command: async () => undefined,
  query: async () => [],
  insert: async () => undefined,
  // eslint-disable-next-line require-yield -- no rows
  stream: async function* () {
    return
  },
  close: async () => undefined
}

/** A subscriber's socket: counts what the fan-out hands it. */
class CountingSocket implements FanoutSocket {
  readonly closed = false
  pending: (string | Uint8Array)[] | null = null
  frames = 0
  bytes = 0
  write(frames: readonly (string | Uint8Array)[]): number {
    this.frames += frames.length
    for (const f of frames) this.bytes += f.length
    return 0
  }
}

interface Feed {
  readonly venue: WireVenue
  readonly queue: RawQueue
  readonly normalizer: VenueNormalizer
}

/** Trade message texts in each venue's wire shape, as the local venue servers send them. */
class Messages {
  private readonly seq: number[]
  private readonly rnd = mulberry32(0x3a7e)
  private readonly cum: number[] = []
  private total = 0

  constructor(private readonly markets: readonly WireMarket[]) {
    this.seq = markets.map(() => 0)
    for (const m of markets) this.cum.push((this.total += m.weight))
  }

  /** The market index of the next message, drawn by weight. */
  pick(): number {
    const x = this.rnd() * this.total
    let lo = 0
    let hi = this.cum.length - 1
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (this.cum[mid]! < x) lo = mid + 1
      else hi = mid
    }
    return lo
  }

  text(i: number): string {
    const m = this.markets[i]!
    const seq = ++this.seq[i]!
    const price = priceOf(m, seq)
    const qty = (0.001 + this.rnd() * 2).toFixed(3)
    const buy = this.rnd() < 0.5
    const ts = Date.now()
    if (m.exchange === 'binance') {
      const data = aggTradeEvent(m.symbol, 1_000 + seq, ts, price, qty, !buy)
      return JSON.stringify({ stream: `${m.symbol.toLowerCase()}@aggTrade`, data })
    }
    if (m.exchange === 'bybit')
      return JSON.stringify(
        tradeMessage(m.symbol, ts, [bybitTradeRow(m.symbol, ts, buy ? 'Buy' : 'Sell', qty, price, String(seq))])
      )
    const row = okxTradeRow(m.symbol, String(500_000_000 + seq), ts, price, qty, buy ? 'buy' : 'sell')
    return JSON.stringify(okxPush({ channel: 'trades', instId: m.symbol }, [row]))
  }
}

const turnEnd = (): Promise<void> => new Promise((r) => setImmediate(r))

async function main(): Promise<void> {
  const markets = wireMarkets()
  const store = discard
  const pipeline = new IngestPipeline(store, { batchRows: 50_000, flushMs: 1_000, queueRows: 500_000 }, silentLogger())
  const live = new LiveState(store)
  pipeline.live = live
  const hub = new StreamHub(live)
  let dropped = 0
  const fanout = new Fanout<CountingSocket>((n) => (dropped += n))
  hub.attach({ publish: (topic, frame) => fanout.publish(topic, frame), subscribers: (t) => fanout.subscribers(t) })

  const okx = new OkxNormalizer()
  okx.normalize(
    '/api/v5/public/instruments?instType=SWAP',
    { code: '0', msg: '', data: markets.filter((m) => m.exchange === 'okx').map((m) => okxInstrument(m.symbol, '1')) },
    Date.now(),
    []
  )
  const feeds: Feed[] = [
    { venue: 'binance', queue: new RawQueue(100_000), normalizer: new BinanceNormalizer() },
    { venue: 'bybit', queue: new RawQueue(100_000), normalizer: new BybitNormalizer() },
    { venue: 'okx', queue: new RawQueue(100_000), normalizer: okx }
  ]
  const feedOf = new Map(feeds.map((f) => [f.venue, f]))
  const stop = new AbortController()
  const runs = feeds.map((f) => {
    const source: Source = {
      name: f.venue,
      synthetic: false,
      status: () => ({ name: f.venue, synthetic: false, connected: true, last_event_ts: null, rows: 0 }),
      items: (signal) =>
        runVenueFeed(
          {
            normalizer: f.normalizer,
            queue: f.queue,
            counters: new FeedCounters(),
            log: silentLogger(),
            sticky: () => false,
            transport: (s) => new Promise<void>((r) => s.addEventListener('abort', () => r())),
            onStopped: () => undefined
          },
          signal
        )
    }
    return runSource(source, pipeline, stop.signal, silentLogger())
  })

  const messages = new Messages(markets)
  const queueOf = markets.map((m) => feedOf.get(m.exchange)!.queue)
  const send = (i: number, text: string): void => {
    queueOf[i]!.push({ channel: WS_CHANNEL, text, recvTs: Date.now() })
  }
  // every market exists before channels are subscribed (as the wire benchmark primes them)
  for (let i = 0; i < markets.length; i++) send(i, messages.text(i))
  await turnEnd()
  const sockets: CountingSocket[] = []
  for (const channels of subscriptions(markets, SUBSCRIBERS, 0x5eed)) {
    const sock = new CountingSocket()
    sockets.push(sock)
    for (const name of channels) {
      hub.acquire(parseChannel(name))
      fanout.subscribe(topicOf('json', name), sock)
    }
  }

  /** Sends `n` messages in rounds of `drain`, each round to the end of its turn; CPU µs per message. */
  const run = async (n: number, drain: number): Promise<number> => {
    // made before the clock starts: making them is the venue's work
    const picks: number[] = []
    const texts: string[] = []
    for (let k = 0; k < n; k++) {
      const i = messages.pick()
      picks.push(i)
      texts.push(messages.text(i))
    }
    const cpu0 = process.cpuUsage()
    for (let k = 0; k < n; k += drain) {
      for (let j = k; j < Math.min(n, k + drain); j++) send(picks[j]!, texts[j]!)
      await turnEnd()
    }
    const cpu = process.cpuUsage(cpu0)
    return (cpu.user + cpu.system) / n
  }

  await run(WARM, 1)
  await run(WARM, DRAINS.at(-1)!)
  const byDrain = new Map<number, number[]>(DRAINS.map((d) => [d, []]))
  const t0 = performance.now()
  for (let r = 0; r < ROUNDS; r++) for (const d of DRAINS) byDrain.get(d)!.push(await run(MESSAGES, d))
  const frames = sockets.reduce((s, x) => s + x.frames, 0)
  const out = {
    markets: markets.length,
    subscribers: SUBSCRIBERS,
    messages_per_round: MESSAGES,
    rounds: ROUNDS,
    seconds: Math.round((performance.now() - t0) / 100) / 10,
    cpu_us_per_message: Object.fromEntries(
      [...byDrain].map(([d, xs]) => [
        `drain_${d}`,
        { median: Math.round(median(xs) * 10) / 10, rounds: xs.map((x) => Math.round(x * 10) / 10) }
      ])
    ),
    live_applied: live.counters.applied,
    live_dropped: live.counters.dropped,
    frames_to_sockets: frames,
    frames_dropped: dropped
  }
  console.log(JSON.stringify(out, null, 2))
  stop.abort()
  await Promise.all(runs)
  await pipeline.close(Date.now() + 1_000)
}

void main()
