/**
 * @module
 * Deribit options → normalized records. Every Deribit answer is a JSON-RPC 2.0 envelope
 * (`{"jsonrpc":"2.0","id":7,"result":…}` or `…"error":{"code","message"}`), over REST or the socket; the
 * transport names each answer's channel after the request's method and params
 * (`/public/get_book_summary_by_currency?currency=BTC&kind=option`), so REST answers, socket answers and
 * replays of both are read the same way. Unsolicited socket messages come on channel `ws`.
 *
 * - `public/get_book_summary_by_currency` / `_by_instrument` → one `option_quote` per option row. `ts` is the
 *   snapshot time of the chain poll (engine/options/chain-at.ts), exchange time in ms: for a by-currency answer
 *   (one whole-chain poll) the newest `creation_timestamp` of its rows, shared by all of them (rows of one answer
 *   carry creation times a few ms apart; the per-row times are not kept); for a by-instrument answer
 *   (DERIBIT_SYMBOLS) the start of its poll pass as the transport marked it (`pollPass`), or the row's own
 *   `creation_timestamp` without a mark (recordings made without marks). `mark_price`, `bid_price`, `ask_price` in the base coin
 *   for inverse BTC/ETH options (linear USDC options quote USDC per coin: divided by `underlying_price` here so
 *   the record stays in base coin); `mark_iv` in percent as sent (52.3 = 52.3%; unlike `markprice.options`,
 *   whose `iv` is a fraction); `open_interest` and `volume` (24 h) in contracts = coins (Deribit: "for options
 *   … the underlying base currency coin"); `underlying_price` USD (index or the expiry's future). A bid, ask
 *   or IV that is missing, null, "" or 0 (no order on that side, no IV) is null; a missing volume is 0; a
 *   value present but not a number (or negative) makes the row malformed. Rows of expired instruments (expiry at or before the
 *   snapshot time: an answer around 08:00 UTC can still hold them) are skipped, not counted.
 * - `public/get_instruments` → instrument meta (expiry, linear or inverse); no record.
 * - `public/set_heartbeat`, `public/test` answers and `heartbeat` notifications → protocol chatter.
 * - An `error` envelope → `error` (venue_errors); subscription notifications and stray answers → `unknown`.
 */
import type { NormalizedRecord } from '../../engine/records/types.js'
import { DERIBIT_PATHS, instrumentFromName, optionInstruments, type InstrumentMeta } from './deribit-instruments.js'
import { WS_CHANNEL, type Outcome, type VenueNormalizer } from './normalizer.js'

const EXCHANGE = 'deribit'

/** One row of a book summary answer (json-schema/book_summary.json; only the fields used). */
interface BookSummaryRow {
  instrument_name?: unknown
  creation_timestamp?: unknown
  underlying_price?: unknown
  mark_price?: unknown
  mark_iv?: unknown
  open_interest?: unknown
  volume?: unknown
  bid_price?: unknown
  ask_price?: unknown
}

interface RpcEnvelope {
  id?: unknown
  method?: unknown
  params?: unknown
  result?: unknown
  error?: unknown
}

const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v)
/** A field without a value: missing, null or "". */
const absent = (v: unknown): boolean => v === undefined || v === null || v === ''

/** A field the quote can do without (bid, ask, IV): null when absent or 0, undefined when not a number ≥ 0. */
function optional(v: unknown): number | null | undefined {
  if (absent(v) || v === 0) return null
  return isNum(v) && v > 0 ? v : undefined
}

const isCreationTime = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v > 0

/** The snapshot time of a whole-chain answer: its rows' newest creation time; null when it has none. */
function snapshotTime(rows: unknown): number | null {
  if (!Array.isArray(rows)) return null
  let ts: number | null = null
  for (const row of rows as (BookSummaryRow | null)[]) {
    const t = row?.creation_timestamp
    if (isCreationTime(t) && (ts === null || t > ts)) ts = t
  }
  return ts
}

export class DeribitNormalizer implements VenueNormalizer {
  readonly venue = EXCHANGE
  /** per instrument: expiry and kind, from get_instruments or else from the name */
  private readonly instruments = new Map<string, InstrumentMeta>()
  /** book summary rows skipped because the instrument had expired */
  expiredRows = 0
  /** newest quote time seen, epoch ms: instruments expired before it are forgotten at the next list */
  private newestTs = 0
  /** start of the current DERIBIT_SYMBOLS poll pass, epoch ms; null before the first mark */
  private passTs: number | null = null

  /** Known option instruments (from instrument lists or seen in quotes). */
  instrument(name: string): InstrumentMeta | undefined {
    return this.instruments.get(name)
  }

  normalize(channel: string, msg: unknown, _recvTs: number, out: NormalizedRecord[]): Outcome {
    if (msg === null || typeof msg !== 'object' || Array.isArray(msg)) return 'malformed'
    const m = msg as RpcEnvelope
    if (m.error !== undefined) return m.error !== null && typeof m.error === 'object' ? 'error' : 'malformed'
    if (channel === WS_CHANNEL) return this.unsolicited(m)
    if (!('result' in m)) return 'malformed'
    switch (channel.split('?', 1)[0]) {
      case DERIBIT_PATHS.bookSummaryByCurrency:
        return this.bookSummary(m.result, out, snapshotTime(m.result))
      case DERIBIT_PATHS.bookSummaryByInstrument:
        return this.bookSummary(m.result, out, this.passTs)
      case DERIBIT_PATHS.pollPass:
        if (!isNum(m.result) || !Number.isSafeInteger(m.result) || m.result <= 0) return 'malformed'
        this.passTs = m.result
        return 'control'
      case DERIBIT_PATHS.instruments:
        return this.instrumentList(m)
      case DERIBIT_PATHS.setHeartbeat:
      case DERIBIT_PATHS.test:
        return 'control'
    }
    return 'unknown'
  }

  /** Socket messages that answer no request of ours: heartbeats, subscriptions, stray answers. */
  private unsolicited(m: RpcEnvelope): Outcome {
    if (m.method === 'heartbeat') {
      const type = (m.params as { type?: unknown } | null)?.type
      return type === 'heartbeat' || type === 'test_request' ? 'control' : 'malformed'
    }
    return 'unknown'
  }

  private instrumentList(body: RpcEnvelope): Outcome {
    const list = optionInstruments(body)
    if (list === null) return 'malformed'
    // bounded: expired instruments leave the map (their rows would be skipped anyway)
    for (const [name, meta] of this.instruments) if (meta.expiryMs <= this.newestTs) this.instruments.delete(name)
    for (const meta of list) this.instruments.set(meta.name, meta)
    return 'ok'
  }

  /** `snapshotTs`: the time every row's quote carries (null: each row its own creation time). */
  private bookSummary(rows: unknown, out: NormalizedRecord[], snapshotTs: number | null): Outcome {
    if (!Array.isArray(rows)) return 'malformed'
    let outcome: Outcome = 'ok'
    for (const row of rows as (BookSummaryRow | null)[]) {
      // the good rows of an answer are kept; one bad row marks the whole answer malformed (counted once)
      if (row === null || typeof row !== 'object' || !this.quote(row, snapshotTs, out)) outcome = 'malformed'
    }
    return outcome
  }

  /** Appends the quote of one row; false when the row is malformed. Non-options and expired rows: true, nothing. */
  private quote(r: BookSummaryRow, snapshotTs: number | null, out: NormalizedRecord[]): boolean {
    const name = r.instrument_name
    if (typeof name !== 'string') return false
    const meta = this.meta(name)
    if (meta === null) return true // a future or perpetual: not an option quote
    const created = r.creation_timestamp
    const underlying = r.underlying_price
    const mark = r.mark_price
    const oi = r.open_interest
    if (!isCreationTime(created)) return false
    if (!isNum(underlying) || !(underlying > 0) || !isNum(mark) || mark < 0 || !isNum(oi) || oi < 0) return false
    const volume = absent(r.volume) ? 0 : r.volume
    const bid = optional(r.bid_price)
    const ask = optional(r.ask_price)
    const iv = optional(r.mark_iv)
    if (!isNum(volume) || volume < 0 || bid === undefined || ask === undefined || iv === undefined) return false
    const ts = snapshotTs ?? created
    if (ts > this.newestTs) this.newestTs = ts
    if (meta.expiryMs <= ts) {
      this.expiredRows++
      return true
    }
    // linear options: USDC per coin → base coin; inverse: already base coin
    const k = meta.linear ? 1 / underlying : 1
    out.push({
      kind: 'option_quote',
      ts,
      exchange: EXCHANGE,
      instrument: meta.name, // the map's string, not a slice of the (large) answer text
      underlying_price: underlying,
      mark_price: mark * k,
      mark_iv: iv,
      open_interest: oi,
      volume_24h: volume,
      bid: bid === null ? null : bid * k,
      ask: ask === null ? null : ask * k
    })
    return true
  }

  private meta(name: string): InstrumentMeta | null {
    const known = this.instruments.get(name)
    if (known !== undefined) return known
    const guessed = instrumentFromName(name)
    if (guessed !== null) this.instruments.set(name, guessed)
    return guessed
  }
}
