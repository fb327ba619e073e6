/**
 * @module
 * One push-stream connection, independent of the socket library: the socket is a StreamSocket. Ops run
 * one at a time in arrival order (at most MAX_PENDING_OPS queued; more are answered `too_many_pending`).
 * A subscribe is answered with an ack (accepted channels, errors per channel), then per accepted channel
 * a snapshot, or the retained updates from `from_seq`, and only then is the socket subscribed to the
 * channel's topic: nothing published before the snapshot is missed or repeated.
 */
import { ApiError, type StreamErrorCode } from '../../engine/errors.js'
import type { Plan } from '../../engine/access/plans.js'
import { AccessControl } from '../access/access-control.js'
import { ChannelError, channelBase, parseChannel, type ChannelSpec } from '../../engine/stream/channels.js'
import { kindOf } from '../../engine/stream/channels.js' // node intelligence: a kind's plan feature
import { cheapestPlanWith } from '../../engine/access/plans.js' // node intelligence
import type { Channel, StreamHub } from '../../engine/stream/stream-hub.js'
import { topicOf } from '../../engine/stream/stream-hub.js'
import {
  encodeFrame,
  type ChannelError as AckError,
  type Encoding,
  type ServerMessage
} from '../../engine/stream/frames.js'
import { parseClientMessage, ProtocolError, type ChannelRequest, type ClientOp } from './protocol.js'
import type { StreamCounters } from './counters.js'

/** Ops a connection may have queued before further ones are refused. */
export const MAX_PENDING_OPS = 16

/** What a session needs from a socket (the uWS adapter implements it; tests may too). */
export interface StreamSocket {
  /** false when the frame was not queued (connection over its hard backpressure limit or closed) */
  send(frame: string | Uint8Array, binary: boolean): boolean
  subscribe(topic: string): void
  unsubscribe(topic: string): void
  end(code: number, reason: string): void
}

/** The queue of a session with no op waiting: one settled promise shared by every idle session. */
const IDLE: Promise<void> = Promise.resolve()

/**
 * Memory per connection matters at 10,000 idle subscribers (docs/benchmarks.md, Push stream): a session
 * holds no closures, a single subscription (the common case) is a field rather than a map, and an idle
 * session's op queue is the shared settled promise.
 */
export class StreamSession {
  /**
   * The subscriptions: `one` while there is at most one, `many` (by channel name) from the second on; never
   * both. A channel's `spec.name` is its name (the hub keys channels by it).
   */
  private one: Channel | null = null
  private many: Map<string, Channel> | null = null
  private queue: Promise<void> = IDLE
  private pending = 0
  closed = false
  /** the key the connection was opened with (the service's per-key accounting) */
  keyId: string | null = null
  /** called once when the session closes, with the session (connection accounting; one shared function) */
  onClosed: ((session: StreamSession) => void) | null = null

  constructor(
    readonly sock: StreamSocket,
    private readonly hub: StreamHub,
    readonly plan: Plan,
    readonly encoding: Encoding,
    private readonly counters: StreamCounters,
    /** the service holds demo data: snapshots say `synthetic: true` */
    private readonly synthetic = false
  ) {}

  get subscriptions(): number {
    return this.many ? this.many.size : this.one ? 1 : 0
  }

  private subscribed(name: string): Channel | undefined {
    if (this.many) return this.many.get(name)
    return this.one !== null && this.one.spec.name === name ? this.one : undefined
  }

  private addSub(name: string, ch: Channel): void {
    if (this.many) this.many.set(name, ch)
    else if (this.one === null || this.one.spec.name === name) this.one = ch
    else {
      this.many = new Map([[this.one.spec.name, this.one]])
      this.many.set(name, ch)
      this.one = null
    }
  }

  private deleteSub(name: string): void {
    if (this.many) this.many.delete(name)
    else if (this.one !== null && this.one.spec.name === name) this.one = null
  }

  send(msg: ServerMessage): void {
    if (this.closed) return
    this.sendFrame(encodeFrame(msg, this.encoding))
  }

  /** A frame already encoded in this session's encoding (shared frames, e.g. the welcome). */
  sendFrame(frame: string | Uint8Array): void {
    if (this.closed) return
    if (!this.sock.send(frame, this.encoding === 'msgpack')) this.counters.droppedFrames++
    else this.hub.countSent()
  }

  error(code: StreamErrorCode, message: string, id?: string | number): void {
    this.counters.clientErrors++
    this.send({ type: 'error', code, message, ...(id !== undefined && { id }) })
  }

  /** A client frame; the bytes are read before this returns (the caller may reuse them). */
  onMessage(bytes: Uint8Array, binary: boolean): void {
    let op: ClientOp
    try {
      op = parseClientMessage(bytes, binary)
    } catch (err) {
      if (err instanceof ProtocolError) return this.error(err.code, err.message, err.id)
      throw err
    }
    if (this.pending >= MAX_PENDING_OPS) {
      return this.error(
        'too_many_pending',
        `at most ${MAX_PENDING_OPS} ops may wait; this ${op.op} was not processed`,
        op.id
      )
    }
    this.pending++
    this.queue = this.queue
      .then(() => this.run(op))
      .catch(() => this.error('internal', 'the op failed; retry it', op.id))
      .finally(() => {
        // nothing waits behind this op: drop the chain, back to the shared settled promise
        if (--this.pending === 0) this.queue = IDLE
      })
  }

  private async run(op: ClientOp): Promise<void> {
    if (this.closed) return
    switch (op.op) {
      case 'ping':
        return this.send({ type: 'pong', ...(op.id !== undefined && { id: op.id }), ts: Date.now() })
      case 'unsubscribe':
        return this.unsubscribe(op.channels, op.id)
      case 'subscribe':
        return this.subscribe(op.channels, op.id)
    }
  }

  private unsubscribe(channels: readonly ChannelRequest[], id?: string | number): void {
    const ok: string[] = []
    const errors: AckError[] = []
    for (const c of channels) {
      let spec: ChannelSpec
      try {
        spec = parseChannel(c.name)
      } catch (err) {
        errors.push(channelError(c.name, err))
        continue
      }
      if (!this.drop(spec.name)) {
        errors.push({ channel: c.name, code: 'not_subscribed', message: `not subscribed to ${spec.name}` })
      } else ok.push(spec.name)
    }
    this.ack('unsubscribe', ok, errors, id)
  }

  private drop(name: string): boolean {
    const ch = this.subscribed(name)
    if (!ch) return false
    this.deleteSub(name)
    this.counters.subscriptions--
    this.sock.unsubscribe(topicOf(this.encoding, name))
    this.hub.release(name)
    return true
  }

  private ack(op: string, channels: string[], errors: AckError[], id?: string | number): void {
    this.counters.clientErrors += errors.length
    this.send({ type: 'ack', op, ...(id !== undefined && { id }), channels, errors })
  }

  private async subscribe(channels: readonly ChannelRequest[], id?: string | number): Promise<void> {
    const accepted: { ch: Channel; fromSeq: number | null }[] = []
    const errors: AckError[] = []
    const limit = this.plan.stream.subscriptions
    for (const c of channels) {
      try {
        const spec = parseChannel(c.name)
        const base = channelBase(spec)
        if (base !== null) AccessControl.checkSymbol(this.plan, base, 'channel')
        // node intelligence: a kind may need a plan feature besides stream (newpairs: nodeintel)
        const feature = kindOf(spec.type).feature
        if (feature && !this.plan.features.has(feature)) {
          throw new ApiError(
            'forbidden',
            `${spec.name} needs the ${feature} feature, which the ${this.plan.name} plan lacks (the ${cheapestPlanWith(feature)} plan has it)`
          )
        }
        // subscribing again to a channel is a resubscribe (resume with from_seq, or a fresh snapshot)
        this.drop(spec.name)
        if (this.subscriptions >= limit) {
          errors.push({
            channel: c.name,
            code: 'subscription_limit',
            message: `the ${this.plan.name} plan allows ${limit} subscriptions per connection`
          })
          continue
        }
        const ch = this.hub.acquire(spec)
        this.addSub(spec.name, ch)
        this.counters.subscriptions++
        accepted.push({ ch, fromSeq: c.fromSeq })
      } catch (err) {
        errors.push(channelError(c.name, err))
      }
    }
    this.ack(
      'subscribe',
      accepted.map((a) => a.ch.spec.name),
      errors,
      id
    )
    for (const { ch, fromSeq } of accepted) {
      if (this.closed || this.subscribed(ch.spec.name) !== ch) continue
      const name = ch.spec.name
      const missed = fromSeq === null ? null : this.hub.resume(ch, fromSeq)
      if (missed) {
        for (const u of missed) this.send({ type: 'update', channel: name, seq: u.seq, data: u.data })
      } else {
        const snap = await this.hub.snapshot(ch)
        if (this.closed || this.subscribed(name) !== ch) continue
        this.send({
          type: 'snapshot',
          channel: name,
          seq: snap.seq,
          data: snap.data,
          ...(fromSeq !== null && { reset: true }),
          ...(this.synthetic && { synthetic: true })
        })
      }
      this.sock.subscribe(topicOf(this.encoding, name))
    }
  }

  /** The connection closed: releases every subscription. */
  close(): void {
    if (this.closed) return
    this.closed = true
    const names = this.many ? [...this.many.keys()] : this.one ? [this.one.spec.name] : []
    this.one = null
    this.many = null
    for (const name of names) {
      this.counters.subscriptions--
      this.hub.release(name)
      // the socket's topics go with it (a closed uWS socket is never touched: the adapter forgets it only)
      this.sock.unsubscribe(topicOf(this.encoding, name))
    }
    this.onClosed?.(this)
  }
}

function channelError(channel: string, err: unknown): AckError {
  if (err instanceof ChannelError) return { channel, code: err.code, message: err.message }
  if (err instanceof ApiError) return { channel, code: err.code, message: err.message }
  throw err
}
