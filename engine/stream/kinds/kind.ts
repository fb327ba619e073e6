/**
 * @module
 * The contract between the stream hub and a channel kind (one per channel type: `trades`, `candles`, ...).
 * A kind owns everything about its type: how a name of that type reads (`parse`), which base it names for
 * the plan check (`base`), and, per hub, how its channels are created, snapshotted and fed (`start`). The
 * hub (engine/stream/stream-hub.ts) owns what every channel shares: references, idle retention, the
 * sequence log, resume, and publishing. Adding a kind: docs/stream.md, "Adding a channel kind".
 */
import type { LiveState } from '../../live/live-state.js'
import type { SignalBus } from '../../signals/signal-event.js'
import type { NormalizedRecord } from '../../records/types.js'
import type { ChannelLog } from '../channel-log.js'
import type { NodeIntelChain } from '../../chain/chains.js'
import type { NewPair } from '../../nodeintel/new-pairs.js'
import type { TokenRiskChange } from '../../nodeintel/recheck.js'
import type { Feature } from '../../access/plans.js' // node intelligence: per-kind plan feature

/** What every channel spec has. */
export interface SpecBase {
  /** the channel type, the part of the name before the first ':' (lower case) */
  readonly type: string
  /** canonical name: the topic, and the `channel` of every frame about it */
  readonly name: string
}

/** A channel name split for parsing. */
export interface ChannelName {
  /** as the client sent it */
  readonly raw: string
  /** `raw` split on ':' (parts[0] is the type as sent) */
  readonly parts: readonly string[]
  /** everything after `<type>:`; a symbol may hold colons itself (BTC/USDT:USDT, BINANCE:BTCUSDT.P) */
  readonly rest: string
}

/** A channel as its kind sees it. The hub keeps the channel's references and idle time beside these. */
export interface Channel<S extends SpecBase = SpecBase, St = unknown> {
  readonly spec: S
  /** sequence numbers and retained updates (ChannelLog); the hub appends to it when the kind publishes */
  readonly log: ChannelLog
  /** what the kind keeps per channel: `create`'s result */
  readonly state: St
}

/** What node intelligence offers the stream: the chains' pair feeds. */
export interface NewPairsSource {
  /** hears every chain's pairs as their verdicts settle */
  subscribe(fn: (p: NewPair) => void): void
  /** the newest pairs of a chain, newest first */
  recent(chain: NodeIntelChain, n: number): readonly NewPair[]
}

/** What node intelligence offers the stream: the re-checks' changes of watched tokens. */
export interface TokenRiskSource {
  /** hears every chain's changes as they are recorded */
  subscribe(fn: (c: TokenRiskChange) => void): void
  /** the newest changes of a chain, newest first */
  recent(chain: NodeIntelChain, n: number): readonly TokenRiskChange[]
}

/**
 * The in-process sources kinds read. A kind fed by another source (e.g. the signal bus) adds an optional
 * field for it here; the server passes it as `new StreamHub(live, { sources: { ... } })`.
 */
export interface StreamSources {
  readonly live: LiveState
  /** the signal events the `signals:` channels push; absent: those channels stay quiet */
  readonly signals?: SignalBus
  /** new DEX pairs (docs/node-intel.md) with their honeypot verdicts (`newpairs:` channels); absent: those channels stay quiet */
  readonly newPairs?: NewPairsSource
  /** verdict changes of watched tokens (`tokenrisk:` channels); absent: those channels stay quiet */
  readonly tokenRisk?: TokenRiskSource
}

/** What the hub gives one kind (each kind has its own context: `channels` are that kind's). */
export interface KindContext<S extends SpecBase = SpecBase, St = unknown> extends StreamSources {
  /** epoch ms (the hub's clock; tests set it) */
  now(): number
  /** this kind's channels by canonical name, subscribed or idle within the retention window, oldest first */
  readonly channels: ReadonlyMap<string, Channel<S, St>>
  /** numbers an update of `ch`, retains it for resume and hands it, encoded once per encoding, to its subscribers */
  publish(ch: Channel<S, St>, data: unknown): void
  /** counts a failure of this kind's work (a refresh whose input query failed); shown in the hub's stats */
  countError(): void
}

/**
 * One kind's part of one hub, made by `ChannelKind.start`. Optional hooks are called only when present:
 * a kind that does not read records or ticks costs nothing there.
 */
export interface KindRuntime<S extends SpecBase = SpecBase, St = unknown> {
  /**
   * The state of a new channel. Throws ApiError `unknown_symbol` when its symbol has no market; nothing is
   * created then. Called before the channel joins `ctx.channels`.
   */
  create(spec: S): St
  /** the channel joined `ctx.channels` (index it for routing) */
  added?(ch: Channel<S, St>): void
  /** the channel left `ctx.channels` (idle past the retention window) */
  removed?(ch: Channel<S, St>): void
  /** resolves when the channel's state can be snapshotted (a first computation in flight) */
  ready?(ch: Channel<S, St>): Promise<void>
  /**
   * The channel's state at `nowMs`, the `data` of its snapshot frame. It must include every update already
   * published on it (the hub read the channel's seq just before), and nothing it will publish later.
   */
  snapshot(ch: Channel<S, St>, nowMs: number): unknown
  /** live records as the live state applied them, every batch (one update per channel per batch at most) */
  onRecords?(records: readonly NormalizedRecord[]): void
  /**
   * Once per hub tick (TICK_MS): publish what coalesced. A rejection is reported after the other kinds
   * ran and every channel's retention was applied (the hub's supervisor counts it).
   */
  tick?(nowMs: number): void | Promise<void>
  /** the live state was rebuilt from the store (reload what the kind derives from it) */
  rebuilt?(): Promise<void>
}

/** One channel type. The registry (kinds/registry.ts) lists one per type. */
export interface ChannelKind<S extends SpecBase = SpecBase, St = unknown> {
  readonly type: S['type']
  /** a plan feature the subscriber's key needs besides `stream` (node intelligence: `newpairs:` needs `nodeintel`) */
  readonly feature?: Feature
  /** Reads a name of this type into its spec, with its canonical name; throws ChannelError naming what is wrong. */
  parse(name: ChannelName): S
  /** The base asset the channel is about (checked against the plan's symbols), or null. */
  base(spec: S): string | null
  /**
   * This kind's part of a new hub (once per hub). A kind fed by a source other than the live records
   * subscribes to it here and publishes through `ctx.publish`.
   */
  start(ctx: KindContext<S, St>): KindRuntime<S, St>
}
