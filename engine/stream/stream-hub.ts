/**
 * @module
 * The push stream's channels (docs/stream.md), independent of any socket library. The hub keeps what every
 * channel shares: the registry of live channels (references, idle retention for RETAIN_MS), each channel's
 * sequence log (numbering, retention, `from_seq` resume), and publishing: an update is encoded once per
 * encoding and handed to a Publisher (uWS pub/sub fans it out). What a channel carries is its kind's
 * (engine/stream/kinds/, one file per channel type): the hub routes live records and ticks to the kinds,
 * and they publish through it.
 *
 * - trades, candles and funding are pushed as records arrive (one update per channel per applied batch);
 * - screener, options, whales and confirm are derived: changes coalesce into at most one update per
 *   channel per tick (TICK_MS).
 * Only channels somebody subscribed to (or did within the retention window) exist; records for other
 * channels cost a map lookup.
 */
import type { LiveState } from '../live/live-state.js'
import type { NormalizedRecord } from '../records/types.js'
import { ChannelLog, RETAIN_MS, type Retained } from './channel-log.js'
import { encodeFrame, type Encoding, type ServerMessage } from './frames.js'
import type { Channel, ChannelKind, KindRuntime, SpecBase, StreamSources } from './kinds/kind.js'
import { CHANNEL_KINDS } from './kinds/registry.js'

export type { Channel } from './kinds/kind.js'

/** Derived channels coalesce into one update per tick, ms. */
export const TICK_MS = 1_000

/** Where encoded frames go: uWS pub/sub in the server, a recorder in unit tests. */
export interface Publisher {
  publish(topic: string, frame: string | Uint8Array, binary: boolean): void
  subscribers(topic: string): number
}

export const topicOf = (encoding: Encoding, channel: string): string => (encoding === 'json' ? 'j|' : 'm|') + channel

/** One kind in this hub: its runtime, its channels, its failures. */
interface Slot {
  readonly runtime: KindRuntime
  readonly channels: Map<string, HubChannel>
  errors: number
}

interface HubChannel extends Channel {
  readonly slot: Slot
  /** subscriptions holding it; at 0 it is kept RETAIN_MS for resume, then dropped */
  refs: number
  idleSince: number
}

export interface StreamHubStats {
  readonly channels: number
  /** updates numbered and retained, all channels */
  readonly updates: number
  /** frames handed to subscribers (one per subscriber per update) */
  readonly messages: number
  /** confirm channel refreshes that failed (retried next tick) */
  readonly confirm_errors: number
}

export interface StreamHubOptions {
  readonly tickMs?: number
  readonly now?: () => number
  /** sources beside the live state that kinds read (kinds/kind.ts, StreamSources) */
  readonly sources?: Omit<StreamSources, 'live'>
  /**
   * The kinds served.
   * @default CHANNEL_KINDS, the registry (parseChannel reads names of those only; tests may serve their own)
   */
  readonly kinds?: readonly ChannelKind[]
}

export class StreamHub {
  private readonly channels = new Map<string, HubChannel>()
  private readonly slots = new Map<string, Slot>()
  /** kinds with the hook, in registry order (no per-batch check of optional hooks) */
  private readonly recordReaders: KindRuntime[] = []
  private readonly tickers: KindRuntime[] = []
  private pub: Publisher | null = null
  private readonly now: () => number
  private readonly tickMs: number
  private updates = 0
  private messages = 0

  constructor(live: LiveState, opts: StreamHubOptions = {}) {
    this.now = opts.now ?? Date.now
    this.tickMs = opts.tickMs ?? TICK_MS
    const sources: StreamSources = { ...opts.sources, live }
    for (const kind of opts.kinds ?? CHANNEL_KINDS) this.start(kind, sources)
    live.observe({
      apply: (records) => this.onRecords(records),
      rebuilt: () => this.seed()
    })
  }

  private start(kind: ChannelKind, sources: StreamSources): void {
    if (this.slots.has(kind.type)) throw new Error(`two channel kinds of type '${kind.type}'`)
    const channels = new Map<string, HubChannel>()
    const runtime = kind.start({
      ...sources,
      now: this.now,
      channels,
      publish: (ch, data) => this.publish(ch, data),
      countError: () => void slot.errors++
    })
    const slot: Slot = { runtime, channels, errors: 0 }
    this.slots.set(kind.type, slot)
    if (runtime.onRecords) this.recordReaders.push(runtime)
    if (runtime.tick) this.tickers.push(runtime)
  }

  attach(pub: Publisher): void {
    this.pub = pub
  }

  /** How often `tick` should run, ms (the server's supervisor runs it: engine/runtime/supervisor.ts). */
  get tickEveryMs(): number {
    return this.tickMs
  }

  stats(): StreamHubStats {
    return {
      channels: this.channels.size,
      updates: this.updates,
      messages: this.messages,
      confirm_errors: this.slots.get('confirm')?.errors ?? 0
    }
  }

  /** Reloads what kinds derive from the store (forming candles); the live state calls it after each rebuild. */
  async seed(): Promise<void> {
    for (const slot of this.slots.values()) await slot.runtime.rebuilt?.()
  }

  /**
   * Takes a reference on a channel (`spec`: parseChannel's), creating it; throws ApiError when its symbol
   * has no market. Call `release` when the subscription ends.
   */
  acquire(spec: SpecBase): Channel {
    let ch = this.channels.get(spec.name)
    if (!ch) {
      const slot = this.slots.get(spec.type)
      if (!slot) throw new Error(`the hub serves no channel kind '${spec.type}'`)
      const now = this.now()
      const state = slot.runtime.create(spec)
      ch = { spec, log: new ChannelLog(now), state, slot, refs: 0, idleSince: now }
      this.channels.set(spec.name, ch)
      slot.channels.set(spec.name, ch)
      slot.runtime.added?.(ch)
    }
    ch.refs++
    return ch
  }

  release(name: string): void {
    const ch = this.channels.get(name)
    if (!ch || ch.refs === 0) return
    if (--ch.refs === 0) ch.idleSince = this.now()
  }

  private drop(ch: HubChannel): void {
    this.channels.delete(ch.spec.name)
    ch.slot.channels.delete(ch.spec.name)
    ch.slot.runtime.removed?.(ch)
  }

  /** The channel's state now and the seq of the last update it includes. */
  async snapshot(ch: Channel): Promise<{ seq: number; data: unknown }> {
    const runtime = this.slots.get(ch.spec.type)!.runtime
    await runtime.ready?.(ch)
    const now = this.now()
    const seq = ch.log.seq
    const data = runtime.snapshot(ch, now)
    return { seq, data: data instanceof Promise ? await data : data }
  }

  /** Retained updates from `fromSeq` on, or null when a fresh snapshot is needed. */
  resume(ch: Channel, fromSeq: number): Retained[] | null {
    return ch.log.since(fromSeq, this.now())
  }

  private publish(ch: Channel, data: unknown): void {
    const now = this.now()
    const seq = ch.log.append(data, now)
    this.updates++
    const pub = this.pub
    if (!pub) return
    const msg: ServerMessage = { type: 'update', channel: ch.spec.name, seq, data }
    for (const enc of ['json', 'msgpack'] as const) {
      const topic = topicOf(enc, ch.spec.name)
      const n = pub.subscribers(topic)
      if (n === 0) continue
      pub.publish(topic, encodeFrame(msg, enc), enc === 'msgpack')
      this.messages += n
    }
  }

  /** Counts a frame sent outside pub/sub (acks, snapshots, replays). */
  countSent(n = 1): void {
    this.messages += n
  }

  /** A batch the live state applied: every kind that reads records sees it, in registry order. */
  private onRecords(records: readonly NormalizedRecord[]): void {
    for (const runtime of this.recordReaders) runtime.onRecords!(records)
  }

  /**
   * One pass, every `tickEveryMs` under the server's supervisor: each kind's tick (derived channels
   * publish what coalesced), then retention (expired updates, idle channels past RETAIN_MS). A kind whose
   * tick fails does not stop the others nor retention; the pass then rejects with the first failure (the
   * supervisor counts it).
   */
  async tick(): Promise<void> {
    const now = this.now()
    let failure: unknown
    for (const runtime of this.tickers) {
      try {
        const pending = runtime.tick!(now)
        if (pending) await pending
      } catch (err) {
        failure ??= err
      }
    }
    for (const ch of this.channels.values()) {
      ch.log.expire(now)
      if (ch.refs === 0 && now - ch.idleSince > RETAIN_MS) this.drop(ch)
    }
    // reported once the pass is complete: the supervisor counts it
    if (failure !== undefined) throw failure
  }
}
