/**
 * @module
 * Deribit BTC/ETH options (`SOURCES=deribit`): the transport. Discovers the live options of each currency
 * over REST (`public/get_instruments`, which Deribit rate-limits on its own and recommends reading from its
 * server-cached REST answer) at start, hourly and just after each 08:00 UTC expiry; polls the whole chain of
 * each currency with `public/get_book_summary_by_currency` (kind=option) over one JSON-RPC WebSocket every
 * 30 s (or each DERIBIT_SYMBOLS instrument with `public/get_book_summary_by_instrument`); keeps the socket up
 * with Deribit's heartbeats. Everything the venue sends goes through one bounded RawQueue to the normalizer
 * (`ingest/normalize/deribit.ts`) and, with RECORD_DIR, to the recorder.
 *
 * Why polling and not the `ticker.{instrument}.{interval}` channel: the chain snapshot (OI totals, put/call
 * ratios, max pain) needs open interest and 24 h volume of every option at one moment. One book summary
 * request per currency (~1 KB per option) gives exactly that for ~1,000 options; tickers would need one
 * channel per option (2,000+ subscriptions, paced at Deribit's ~3.3 subscribe requests/s, and resubscribed
 * after every reconnect) and push updates every 100 ms that a 30 s snapshot would throw away.
 */
import type { Logger } from '../../engine/log.js'
import { isLiveRecords, type IngestItem } from '../encoded-chunk.js'
import { DeribitNormalizer } from '../normalize/deribit.js'
import {
  DERIBIT_PATHS,
  matchesSymbols,
  optionInstruments,
  type InstrumentMeta
} from '../normalize/deribit-instruments.js'
import { RpcSocket } from './deribit/rpc-socket.js'
import { nextDiscoveryAt, pollRequests } from './deribit/schedule.js'
import { snapshotMetrics } from './deribit/snapshot-metrics.js'
import { DEFAULT_BACKOFF, sleep, type BackoffOptions } from '../../engine/runtime/backoff.js'
import { discoverWithBackoff, rediscoverLoop } from './feed/discovery.js'
import { RestClient } from './feed/rest-client.js'
import { WeightLimiter } from './feed/weight-limiter.js'
import { VenueSource, type VenueHealth } from './feed/venue-source.js'

export interface DeribitTuning {
  /** book summary poll period per currency (or per DERIBIT_SYMBOLS instrument), ms. @default 30_000 */
  readonly pollEveryMs: number
  /** instrument rediscovery period (there is one after each 08:00 UTC expiry too), ms. @default 3_600_000 */
  readonly discoveryEveryMs: number
  /** `public/set_heartbeat` interval, s (Deribit's minimum is 10). @default 30 */
  readonly heartbeatSec: number
  /** no frame for this long (two heartbeats missed): the socket is stale and reopened, ms. @default 70_000 */
  readonly staleMs: number
  /** requests per minute over socket and REST (Deribit's default tier sustains 20 per second). @default 300 */
  readonly requestsPerMinute: number
  /** raw messages buffered between the socket/REST and the normalizer; more are dropped and counted. @default 1_000 */
  readonly queueCapacity: number
  readonly backoff: BackoffOptions
  /** wait for an answer, ms. @default 10_000 */
  readonly requestTimeoutMs: number
  /** no requests for this long after a `too_many_requests` answer, ms. @default 10_000 */
  readonly rateLimitPauseMs: number
}

export const DEFAULT_DERIBIT_TUNING: DeribitTuning = {
  pollEveryMs: 30_000,
  discoveryEveryMs: 3_600_000,
  heartbeatSec: 30,
  staleMs: 70_000,
  requestsPerMinute: 300,
  queueCapacity: 1_000,
  backoff: DEFAULT_BACKOFF,
  requestTimeoutMs: 10_000,
  rateLimitPauseMs: 10_000
}

/**
 * A poll pass is skipped while this many raw messages wait for the normalizer (the pipeline is behind):
 * a chain answer is ~0.5 MB, so at most ~25 MB of answers wait, and the next pass reads fresh data anyway.
 */
const POLL_BACKLOG = 50
/** `public/get_instruments` has its own limit (1 request/s sustained): we send at most one per 2 s. */
const INSTRUMENTS_PER_MINUTE = 30

export interface DeribitSourceOptions {
  /** JSON-RPC WebSocket endpoint, e.g. wss://www.deribit.com/ws/api/v2 */
  readonly wsUrl: string
  /** REST base, e.g. https://www.deribit.com/api/v2 */
  readonly restUrl: string
  /** DERIBIT_CURRENCIES: BTC and/or ETH */
  readonly currencies: readonly string[]
  /** DERIBIT_SYMBOLS: instrument names or expiry prefixes (`BTC-27MAR26`); empty: every option */
  readonly symbols: readonly string[]
  readonly log: Logger
  readonly recordDir?: string | undefined
  readonly tuning?: Partial<DeribitTuning>
}

/** Instrument lists are repeated at the top of each recording file, so every file replays on its own. */
const isSticky = (channel: string): boolean => channel.startsWith(DERIBIT_PATHS.instruments)

export class DeribitSource extends VenueSource {
  readonly name = 'deribit'
  readonly normalizer = new DeribitNormalizer()
  private readonly tuning: DeribitTuning
  private readonly rest: RestClient
  private readonly instrumentsLimiter = new WeightLimiter(INSTRUMENTS_PER_MINUTE, 2)
  private readonly rpc: RpcSocket
  private instruments: readonly InstrumentMeta[] = []

  constructor(private readonly opts: DeribitSourceOptions) {
    const tuning = { ...DEFAULT_DERIBIT_TUNING, ...opts.tuning }
    super({ log: opts.log, recordDir: opts.recordDir, queueCapacity: tuning.queueCapacity, sticky: isSticky })
    this.tuning = tuning
    const t = tuning
    this.rest = new RestClient(opts.restUrl, opts.log)
    this.rpc = new RpcSocket({
      url: opts.wsUrl,
      log: opts.log,
      queue: this.queue,
      limiter: new WeightLimiter(t.requestsPerMinute, Math.max(1, Math.floor(t.requestsPerMinute / 30))),
      heartbeatSec: t.heartbeatSec,
      staleMs: t.staleMs,
      backoff: t.backoff,
      requestTimeoutMs: t.requestTimeoutMs,
      rateLimitPauseMs: t.rateLimitPauseMs
    })
  }

  protected health(): VenueHealth {
    const socket = this.rpc.socket
    return {
      markets: this.instruments.length,
      // one JSON-RPC socket: stale by frames (FeedSocket) plus stale by no heartbeat or answer (RpcSocket)
      connections: {
        connected: this.rpc.connected,
        connections: 1,
        reconnects: socket.reconnects,
        stale: socket.stale + this.rpc.stale
      },
      // polled snapshots carry no sequence numbers: nothing to find or fill (gaps reported as 0)
      rest: { errors: this.rest.errors + this.rpc.failed, rateLimited: this.rest.rateLimited + this.rpc.rateLimited }
    }
  }

  override async *items(signal: AbortSignal): AsyncIterable<IngestItem> {
    const feed = super.items(signal)
    // whole-chain polls are snapshots: their metrics rows feed /v1/options/history
    const derive = this.opts.symbols.length === 0
    for await (const item of feed) {
      if (derive && isLiveRecords(item)) yield* snapshotMetrics(item.records)
      yield item
    }
  }

  /** Discovery, then the socket, the poller and rediscovery until `signal` aborts. */
  protected async runTransport(signal: AbortSignal): Promise<void> {
    this.phase = 'discovery'
    const found = await discoverWithBackoff((s) => this.discover(s), this.tuning.backoff, signal)
    if (found === null) return
    this.instruments = found
    if (found.length === 0) this.opts.log.warn({ symbols: this.opts.symbols }, 'deribit: no listed option matches')
    this.phase = 'live'
    this.opts.log.info({ instruments: found.length, currencies: this.opts.currencies }, 'deribit feed started')
    // after each 08:00 UTC expiry too, not only every discoveryEveryMs
    const nextDelayMs = (): number => nextDiscoveryAt(Date.now(), this.tuning.discoveryEveryMs) - Date.now()
    await Promise.all([
      this.rpc.run(signal),
      this.poll(signal),
      rediscoverLoop(
        nextDelayMs,
        (s) => this.discover(s),
        (next) => this.adopt(next),
        signal
      )
    ])
  }

  /** Options of every currency (filtered by DERIBIT_SYMBOLS); null when a request failed. */
  private async discover(signal: AbortSignal): Promise<InstrumentMeta[] | null> {
    const all: InstrumentMeta[] = []
    for (const currency of this.opts.currencies) {
      const path = `${DERIBIT_PATHS.instruments}?currency=${currency}&kind=option&expired=false`
      const text = await this.rest.getQueued(this.queue, path, 1, this.instrumentsLimiter, signal)
      if (text === null) return null
      let list: InstrumentMeta[] | null = null
      try {
        list = optionInstruments(JSON.parse(text))
      } catch {
        // counted as a parse error by the pump, which sees the same text
      }
      if (list === null) return null
      all.push(...list)
    }
    const only = this.opts.symbols
    return only.length ? all.filter((i) => matchesSymbols(i.name, only)) : all
  }

  /** One pass over the chain every `pollEveryMs`; answers reach the normalizer through the queue. */
  private async poll(signal: AbortSignal): Promise<void> {
    const perInstrument = this.opts.symbols.length > 0
    while (!signal.aborted) {
      const started = Date.now()
      const behind = this.queue.length >= POLL_BACKLOG
      if (behind) this.opts.log.warn({ queued: this.queue.length }, 'deribit poll skipped: the normalizer is behind')
      // a DERIBIT_SYMBOLS pass is one snapshot of the chosen instruments: its start marks the quotes' time
      // (a mark dropped by a full queue leaves the pass's quotes on the previous pass's time, adding to it)
      if (perInstrument && !behind) {
        this.queue.push({ channel: DERIBIT_PATHS.pollPass, text: JSON.stringify({ result: started }), recvTs: started })
      }
      for (const req of behind ? [] : pollRequests(this.opts.currencies, this.instruments, perInstrument, started)) {
        if (signal.aborted) return
        await this.rpc.call(req.method, req.params, signal)
      }
      await sleep(Math.max(0, started + this.tuning.pollEveryMs - Date.now()), signal)
    }
  }

  /** A rediscovered list replaces the last one; the next poll pass reads the new chain. */
  private adopt(found: InstrumentMeta[]): void {
    const known = new Set(this.instruments.map((i) => i.name))
    const listed = found.filter((i) => !known.has(i.name)).length
    const gone = this.instruments.length - (found.length - listed)
    this.instruments = found
    if (listed || gone) this.opts.log.info({ listed, gone }, 'deribit instruments changed')
  }
}
