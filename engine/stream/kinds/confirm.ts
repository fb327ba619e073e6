/**
 * @module
 * `confirm:<base>`: both directions' confirmation of a base (as GET /v1/confirm). A channel is a state, not
 * a feed: it is recomputed on a tick when the live state changed since its last computation, and at least
 * every CONFIRM_REFRESH_MS (its 24 h windows slide), and published only when the composite, action,
 * confirmation, score or confidence of either direction changed. A computation reads the store; one that
 * fails is counted (the hub's `confirm_errors`) and retried on the next tick.
 */
import { buildConfirmInputs } from '../../live/confirm-inputs.js'
import { confirm, type ConfirmResult, type Direction } from '../../confirm/confirm.js'
import { arity, readMarket } from '../channel-name.js'
import type { Channel, ChannelKind, KindContext, KindRuntime } from './kind.js'
import { requireBase } from './perp-markets.js'

export interface ConfirmSpec {
  readonly type: 'confirm'
  readonly name: string
  readonly base: string
}

/** A confirm channel is recomputed at least this often even without new records (24 h windows slide), ms. */
export const CONFIRM_REFRESH_MS = 10_000

/** The channel's data: both directions. */
export interface ConfirmBoth {
  readonly symbol: string
  readonly long: ConfirmResult
  readonly short: ConfirmResult
}

interface ConfirmState {
  /** the latest verdict (null until the first computation succeeded), and its change key */
  current: ConfirmBoth | null
  currentKey: string
  /** when and at which live-state version it was last computed */
  computedAt: number
  computedVersion: number
  /** the first computation, started with the channel (its failure is counted; the snapshot retries) */
  ready: Promise<void>
}

type ConfirmChannel = Channel<ConfirmSpec, ConfirmState>

const DIRECTIONS: readonly Direction[] = ['long', 'short']

/** What a published change is judged on, per direction. */
const changeKey = (both: ConfirmBoth): string =>
  DIRECTIONS.map((d) => {
    const r = both[d]
    return `${r.composite}|${r.action}|${r.confirmation}|${r.score}|${r.confidence}`
  }).join('/')

class ConfirmChannels implements KindRuntime<ConfirmSpec, ConfirmState> {
  constructor(private readonly ctx: KindContext<ConfirmSpec, ConfirmState>) {}

  create(spec: ConfirmSpec): ConfirmState {
    requireBase(this.ctx.live, spec.base)
    const state: ConfirmState = {
      current: null,
      currentKey: '',
      computedAt: 0,
      computedVersion: -1,
      ready: Promise.resolve()
    }
    // observed at once (a subscriber awaits it only later): a failure is counted; the snapshot retries it
    state.ready = this.refresh(spec.base, state, null).catch(() => this.ctx.countError())
    return state
  }

  ready(ch: ConfirmChannel): Promise<void> {
    return ch.state.ready
  }

  async snapshot(ch: ConfirmChannel): Promise<unknown> {
    // the first computation failed (the store was down): try once more, a failure reaches the subscriber
    if (ch.state.current === null) await this.refresh(ch.spec.base, ch.state, null)
    return ch.state.current
  }

  /**
   * Recomputes the channels due. One channel's failing input query (the store is down) does not stop the
   * others: each failure is counted, and the first is thrown once every channel was tried.
   */
  async tick(nowMs: number): Promise<void> {
    let failure: unknown
    for (const ch of [...this.ctx.channels.values()]) {
      const st = ch.state
      if (st.computedVersion === this.ctx.live.version && nowMs - st.computedAt < CONFIRM_REFRESH_MS) continue
      try {
        await this.refresh(ch.spec.base, st, ch)
      } catch (err) {
        this.ctx.countError()
        failure ??= err
      }
    }
    if (failure !== undefined) throw failure
  }

  /** Recomputes a channel's verdict; publishes it on `publishTo` when it changed. */
  private async refresh(base: string, st: ConfirmState, publishTo: ConfirmChannel | null): Promise<void> {
    const now = this.ctx.now()
    const version = this.ctx.live.version
    const inputs = await buildConfirmInputs(base, now, this.ctx.live)
    const both: ConfirmBoth = {
      symbol: base,
      long: confirm(base, 'long', inputs, now),
      short: confirm(base, 'short', inputs, now)
    }
    st.computedAt = now
    st.computedVersion = version
    const key = changeKey(both)
    if (key === st.currentKey) return
    st.current = both
    st.currentKey = key
    if (publishTo) this.ctx.publish(publishTo, both)
  }
}

export const confirmKind: ChannelKind<ConfirmSpec, ConfirmState> = {
  type: 'confirm',
  parse({ raw, parts, rest }) {
    arity(parts, 2, Infinity, raw, 'confirm:<base>, e.g. confirm:BTC')
    const { base } = readMarket(rest, raw, true)
    return { type: 'confirm', name: `confirm:${base}`, base }
  },
  base: (spec) => spec.base,
  start: (ctx) => new ConfirmChannels(ctx)
}
