/**
 * @module
 * `options:<BTC|ETH>`: the option chain summary of a currency (as GET /v1/options/chain), pushed whole
 * once per tick when a quote of that currency arrived since the last tick.
 */
import type { NormalizedRecord } from '../../records/types.js'
import { OPTIONS_CURRENCIES } from '../../live/options-book.js'
import type { OptionsCurrency } from '../../options/chain-types.js'
import { arity, ChannelError } from '../channel-name.js'
import type { Channel, ChannelKind, KindContext, KindRuntime } from './kind.js'

export interface OptionsSpec {
  readonly type: 'options'
  readonly name: string
  readonly currency: string
}

class OptionsChannels implements KindRuntime<OptionsSpec, null> {
  /** currencies with a new quote since the last tick (the instrument's prefix: BTC of BTC-27JUN25-...) */
  private readonly dirty = new Set<string>()

  constructor(private readonly ctx: KindContext<OptionsSpec, null>) {}

  create(): null {
    return null
  }

  snapshot(ch: Channel<OptionsSpec, null>, nowMs: number): unknown {
    return this.ctx.live.options.chain(ch.spec.currency as OptionsCurrency, nowMs)
  }

  onRecords(records: readonly NormalizedRecord[]): void {
    if (this.ctx.channels.size === 0) return
    for (const r of records) {
      if (r.kind === 'option_quote') this.dirty.add(r.instrument.slice(0, r.instrument.indexOf('-')))
    }
  }

  tick(nowMs: number): void {
    for (const currency of this.dirty) {
      const ch = this.ctx.channels.get(`options:${currency}`)
      if (ch) this.ctx.publish(ch, this.ctx.live.options.chain(currency as OptionsCurrency, nowMs))
    }
    this.dirty.clear()
  }
}

export const optionsKind: ChannelKind<OptionsSpec, null> = {
  type: 'options',
  parse({ raw, parts }) {
    arity(parts, 2, 2, raw, 'options:<BTC|ETH>')
    const currency = parts[1]!.toUpperCase()
    if (!(OPTIONS_CURRENCIES as readonly string[]).includes(currency)) {
      throw new ChannelError('invalid_channel', `${raw}: options are served for ${OPTIONS_CURRENCIES.join(' and ')}`)
    }
    return { type: 'options', name: `options:${currency}`, currency }
  },
  // the currency is the base the plan's symbol list is checked against
  base: (spec) => spec.currency,
  start: (ctx) => new OptionsChannels(ctx)
}
