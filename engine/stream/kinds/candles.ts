/**
 * @module
 * `candles:<symbol>[@<exchange>]:<timeframe>`: one market's candle at one timeframe, from the kind's
 * CandleBook (engine/stream/candle-book.ts). The forming candle is pushed after each batch of trades, the
 * closed one when a trade of the next bucket arrives or CLOSE_GRACE_MS after the bucket ends (tick). The
 * book folds every perp trade in, watched or not, so a first subscriber's candle is complete; it is
 * reseeded from the candle tables at each live-state rebuild. Without a venue the channel follows the
 * history endpoints' default venue: Binance, then Bybit, then OKX.
 */
import type { NormalizedRecord } from '../../records/types.js'
import { TIMEFRAME_NAMES, type TimeframeName } from '../../history/timeframes.js'
import { CandleBook, type CandleEvent, type MarketCandles } from '../candle-book.js'
import { arity, ChannelError, marketName, readMarket } from '../channel-name.js'
import type { Channel, ChannelKind, KindContext, KindRuntime } from './kind.js'
import { perpMarkets, type PerpMarket } from './perp-markets.js'

export interface CandlesSpec {
  readonly type: 'candles'
  readonly name: string
  readonly base: string
  /** the venue named; null: the default venue of the base */
  readonly exchange: string | null
  readonly timeframe: TimeframeName
}

/** A candles channel's state: the market it follows, chosen when the channel is created. */
type CandlesChannel = Channel<CandlesSpec, PerpMarket>

const never = (): boolean => false

class CandleChannels implements KindRuntime<CandlesSpec, PerpMarket> {
  private readonly book = new CandleBook()
  /**
   * channels by market (`exchange|symbol`, the book's MarketCandles.key), then by timeframe index: the
   * routing of candle events, one lookup per market of a batch rather than one key built per timeframe
   */
  private readonly index = new Map<string, CandlesChannel[][]>()

  constructor(private readonly ctx: KindContext<CandlesSpec, PerpMarket>) {}

  create(spec: CandlesSpec): PerpMarket {
    return perpMarkets(this.ctx.live, spec.base, spec.exchange)[0]!
  }

  added(ch: CandlesChannel): void {
    const key = keyOf(ch)
    let byTf = this.index.get(key)
    if (!byTf) this.index.set(key, (byTf = TIMEFRAME_NAMES.map(() => [])))
    const tf = TIMEFRAME_NAMES.indexOf(ch.spec.timeframe)
    byTf[tf] = [...byTf[tf]!, ch]
  }

  removed(ch: CandlesChannel): void {
    const key = keyOf(ch)
    const byTf = this.index.get(key)
    if (!byTf) return
    const tf = TIMEFRAME_NAMES.indexOf(ch.spec.timeframe)
    byTf[tf] = byTf[tf]!.filter((c) => c !== ch)
    if (byTf.every((chs) => chs.length === 0)) this.index.delete(key)
  }

  snapshot(ch: CandlesChannel): unknown {
    const m = ch.state
    return { exchange: m.exchange, ...this.book.state(m.exchange, m.symbol, ch.spec.timeframe) }
  }

  onRecords(records: readonly NormalizedRecord[]): void {
    this.book.apply(records, this.index.size ? this.watched : never, this.push)
  }

  tick(nowMs: number): void {
    this.book.closeDue(nowMs, this.index.size ? this.watched : never, this.push)
  }

  rebuilt(): Promise<void> {
    return this.book.seed(this.ctx.live.store, this.ctx.now())
  }

  private readonly watched = (m: MarketCandles, tf: number): boolean => (this.index.get(m.key)?.[tf]?.length ?? 0) > 0

  private readonly push = (e: CandleEvent): void => {
    const byTf = this.index.get(`${e.exchange}|${e.symbol}`)
    for (const ch of byTf?.[TIMEFRAME_NAMES.indexOf(e.timeframe)] ?? NONE) {
      this.ctx.publish(ch, { exchange: e.exchange, closed: e.closed, ...e.candle })
    }
  }
}

const NONE: readonly CandlesChannel[] = []

/** the channel's market as the book keys it (MarketCandles.key) */
const keyOf = (ch: CandlesChannel): string => `${ch.state.exchange}|${ch.state.symbol}`

export const candlesKind: ChannelKind<CandlesSpec, PerpMarket> = {
  type: 'candles',
  parse({ raw, parts, rest }) {
    arity(parts, 3, Infinity, raw, 'candles:<symbol>:<timeframe>, e.g. candles:BTC:1m')
    const tf = parts[parts.length - 1]!
    const m = readMarket(rest.slice(0, -(tf.length + 1)), raw, false)
    const timeframe = tf as TimeframeName
    if (!(TIMEFRAME_NAMES as readonly string[]).includes(timeframe)) {
      throw new ChannelError('invalid_channel', `${raw}: timeframe '${tf}' is not one of ${TIMEFRAME_NAMES.join(', ')}`)
    }
    return { type: 'candles', name: `candles:${marketName(m)}:${timeframe}`, ...m, timeframe }
  },
  base: (spec) => spec.base,
  start: (ctx) => new CandleChannels(ctx)
}
