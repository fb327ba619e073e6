/**
 * @module
 * `whales:<chain|all>[:<significance>]`: collapsed whale events (the rules of GET /v1/whales/events) at or
 * above a significance. The snapshot is the newest SNAPSHOT_WHALE_EVENTS of the last 24 h; once per tick,
 * the kind's WhaleFeed reports new events and events whose repeat_count grew, and each channel gets those
 * it matches. The feed runs only while a whale channel exists.
 */
import { CHAINS, type Chain } from '../../records/types.js'
import { collapseEvents, type WhaleEvent } from '../../whales/collapse.js'
import { atLeast, SIGNIFICANCE_LEVELS, type Significance } from '../../whales/significance.js'
import { arity, ChannelError } from '../channel-name.js'
import { WhaleFeed } from '../whale-feed.js'
import type { Channel, ChannelKind, KindContext, KindRuntime } from './kind.js'

export interface WhalesSpec {
  readonly type: 'whales'
  readonly name: string
  /** null: every chain */
  readonly chain: Chain | null
  readonly min: Significance
}

/** Whale events in a whales channel's snapshot (newest of the last 24 h). */
export const SNAPSHOT_WHALE_EVENTS = 20
/** Default minimum significance of `whales:<chain|all>` (the same default as GET /v1/whales/events). */
export const WHALES_DEFAULT_MIN: Significance = 'medium'

const DAY_MS = 86_400_000

const matches = (spec: WhalesSpec, e: WhaleEvent): boolean =>
  (spec.chain === null || e.chain === spec.chain) && atLeast(e.significance, spec.min)

class WhaleChannels implements KindRuntime<WhalesSpec, null> {
  private readonly feed: WhaleFeed

  constructor(private readonly ctx: KindContext<WhalesSpec, null>) {
    this.feed = new WhaleFeed(ctx.live.whales)
  }

  create(): null {
    // the first whale channel: what is present now is its snapshot's history, not news
    if (this.ctx.channels.size === 0) this.feed.baseline(this.ctx.now())
    return null
  }

  snapshot(ch: Channel<WhalesSpec, null>, nowMs: number): unknown {
    const events = collapseEvents(this.ctx.live.whales.since(nowMs - DAY_MS, nowMs))
      .filter((e) => matches(ch.spec, e))
      .slice(-SNAPSHOT_WHALE_EVENTS)
      .reverse()
    return { events }
  }

  tick(nowMs: number): void {
    if (this.ctx.channels.size === 0) return this.feed.reset()
    const events = this.feed.changed(nowMs)
    if (events.length === 0) return
    for (const ch of this.ctx.channels.values()) {
      const mine = events.filter((e) => matches(ch.spec, e))
      if (mine.length) this.ctx.publish(ch, { events: mine })
    }
  }
}

export const whalesKind: ChannelKind<WhalesSpec, null> = {
  type: 'whales',
  parse({ raw, parts }) {
    arity(parts, 2, 3, raw, 'whales:<chain|all>[:<significance>], e.g. whales:all:high')
    const c = parts[1]!.toLowerCase()
    if (c !== 'all' && !(CHAINS as readonly string[]).includes(c)) {
      throw new ChannelError('invalid_channel', `${raw}: chain '${parts[1]}' is not all or one of ${CHAINS.join(', ')}`)
    }
    const min = (parts[2]?.toLowerCase() ?? WHALES_DEFAULT_MIN) as Significance
    if (!SIGNIFICANCE_LEVELS.includes(min)) {
      throw new ChannelError(
        'invalid_channel',
        `${raw}: significance '${parts[2]}' is not one of ${SIGNIFICANCE_LEVELS.join(', ')}`
      )
    }
    return { type: 'whales', name: `whales:${c}:${min}`, chain: c === 'all' ? null : (c as Chain), min }
  },
  base: () => null,
  start: (ctx) => new WhaleChannels(ctx)
}
