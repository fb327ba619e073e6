/**
 * @module
 * `signals:<base>` and `signals:all`: the signal events (HIGH, MEDIUM, VETO, SIGNAL; docs/signals.md) as
 * they are published on the signal bus, one update per event. Fed by the SignalBus (StreamSources
 * `signals`), not by live records. Events that belong to one API key (forwarded inbound alerts, `key_id`)
 * are never pushed: they go to that key's webhooks only. The snapshot is the newest events this server
 * published since it started; older ones are listed by GET /v1/signals.
 */
import type { SignalEvent } from '../../signals/signal-event.js'
import { arity, readMarket } from '../channel-name.js'
import type { Channel, ChannelKind, KindContext, KindRuntime } from './kind.js'
import { requireBase } from './perp-markets.js'

/** Events a snapshot carries at most, oldest first. */
export const SNAPSHOT_SIGNALS = 20
/** Recent events kept for snapshots, every base together: hours of events of a busy market. */
const RECENT_MAX = 500
/** The name part meaning every base (`signals:all`). */
const ALL = 'all'

export interface SignalsSpec {
  readonly type: 'signals'
  readonly name: string
  /** null: every base (`signals:all`) */
  readonly base: string | null
}

type SignalsChannel = Channel<SignalsSpec, null>

/** An event as pushed: the fields of GET /v1/signals (a key's own alerts are never pushed, so no key_id). */
export function signalWire(e: SignalEvent): unknown {
  return {
    id: e.id,
    event: e.event,
    ts: e.ts,
    symbol: e.symbol,
    direction: e.direction,
    confidence: e.confidence,
    composite: e.composite,
    action: e.action,
    source: e.source
  }
}

class SignalChannels implements KindRuntime<SignalsSpec, null> {
  /** the newest events, oldest first, with their base (cut back to RECENT_MAX when twice that) */
  private recent: { readonly symbol: string; readonly wire: unknown }[] = []

  constructor(private readonly ctx: KindContext<SignalsSpec, null>) {
    ctx.signals?.subscribe((e) => this.published(e))
  }

  create(spec: SignalsSpec): null {
    if (spec.base !== null) requireBase(this.ctx.live, spec.base)
    return null
  }

  snapshot(ch: SignalsChannel): unknown {
    const base = ch.spec.base
    const mine = base === null ? this.recent : this.recent.filter((r) => r.symbol === base)
    return mine.slice(-SNAPSHOT_SIGNALS).map((r) => r.wire)
  }

  private published(e: SignalEvent): void {
    if (e.key_id) return
    const wire = signalWire(e)
    this.recent.push({ symbol: e.symbol, wire })
    if (this.recent.length > 2 * RECENT_MAX) this.recent = this.recent.slice(-RECENT_MAX)
    for (const name of [`signals:${e.symbol}`, `signals:${ALL}`]) {
      const ch = this.ctx.channels.get(name)
      if (ch) this.ctx.publish(ch, [wire])
    }
  }
}

export const signalsKind: ChannelKind<SignalsSpec, null> = {
  type: 'signals',
  parse({ raw, parts, rest }) {
    arity(parts, 2, Infinity, raw, 'signals:<base> or signals:all, e.g. signals:BTC')
    if (rest.toLowerCase() === ALL) return { type: 'signals', name: `signals:${ALL}`, base: null }
    const { base } = readMarket(rest, raw, true)
    return { type: 'signals', name: `signals:${base}`, base }
  },
  base: (spec) => spec.base,
  start: (ctx) => new SignalChannels(ctx)
}
