/**
 * @module
 * One pass over a batch of chain whale events writes both tables' TSV (the chain sources' hot path, docs/sources.md):
 *
 * - `events`: chain_whale_events lines, CHAIN_EVENT_COLUMNS order (chain-event-store.ts), every event;
 * - `transfers`: whale_transfers lines, byte for byte what `encodeTsv('whale_transfer', records)`
 *   (engine/records/tsv.ts) writes for `records`, the events that count in flows (`transferRecordOf`: not
 *   circular, priced) and are not in `skip` (keys already stored, `eventKey`).
 *
 * Fields go one by one into byte buffers (byte-sink.ts): no line string, no batch string. The float texts
 * both lines share (amount, USD) are formatted once per event, a block's number, hash and time text once per
 * block (its events come one after another), and the whale_transfers line copies the fields it shares with
 * the chain_whale_events line from that line's bytes instead of encoding them again. Escaping and number
 * text follow each encoder's rules exactly (TabSeparated escapes where the encoders escape, `String(n)` for
 * numbers, `\N` for null);
 * test/unit/whale-chain-batch-tsv.test.ts checks the bytes against both previous encoders.
 */
import type { WhaleTransferRecord } from '../records/types.js'
import { sqlTime } from '../store/sql-time.js'
import { ByteSink } from './byte-sink.js'
import type { ChainWhaleEvent } from './tx-events.js'

export type ChainEventStatus = 'pending' | 'confirmed' | 'retracted'

/** rough bytes of one line (hashes, addresses, numbers; swaps add pools): the sinks' first sizes */
const EVENT_LINE_BYTES = 400
const TRANSFER_LINE_BYTES = 240

const TAB = 9
const NEWLINE = 10
const QUOTE = 39
const COMMA = 44
const OPEN = 91
const CLOSE = 93
const NULL = '\\N'

/** a nullable string column: `\N` or the escaped text */
function nullableText(sink: ByteSink, v: string | null): void {
  if (v === null) sink.raw(NULL)
  else sink.escaped(v)
}

/**
 * A line's end after repeat_count for an event without a label: `\t<circular>\t<internal>\t\N<tail>`, indexed
 * by circular * 2 + internal.
 */
function lineEnds(tail: string): Buffer[] {
  const ends: Buffer[] = []
  for (const circular of ['false', 'true'])
    for (const internal of ['false', 'true']) ends.push(Buffer.from(`\t${circular}\t${internal}\t${NULL}${tail}`))
  return ends
}

/**
 * `<block_number>\t<block_hash>\t<ts text>\t` of the last event's block (events of a block come one after
 * another: built once per block, then copied). block_hash is written unescaped, as before.
 */
class BlockText {
  private number = Number.NaN
  private hash = ''
  private ts = Number.NaN
  private bytes: Buffer = Buffer.alloc(0)

  of(e: ChainWhaleEvent): Buffer {
    if (e.block_number !== this.number || e.ts !== this.ts || e.block_hash !== this.hash) {
      this.number = e.block_number
      this.hash = e.block_hash
      this.ts = e.ts
      this.bytes = Buffer.from(`${String(e.block_number)}\t${e.block_hash}\t${sqlTime(e.ts)}\t`, 'utf8')
    }
    return this.bytes
  }
}

/** the identity of an event (and of its whale_transfers row) */
export function eventKey(e: { tx_hash: string; log_index: number; address: string }): string {
  return `${e.tx_hash}:${e.log_index}:${e.address}`
}

/** what a `ChainBatchEncoder.add` put into flows */
export interface ChainBatchPart {
  /** the whale_transfers records written, in event order */
  readonly records: WhaleTransferRecord[]
  /** the events behind `records`, same order */
  readonly counted: ChainWhaleEvent[]
}

export interface ChainBatchTsv extends ChainBatchPart {
  /** chain_whale_events TSV of every event */
  readonly events: Buffer
  /** whale_transfers TSV of `records`; null when flows were not asked for */
  readonly transfers: Buffer | null
}

export interface FlowOptions {
  /** eventKey of rows already in whale_transfers: left out of `transfers` */
  readonly skip?: ReadonlySet<string> | null
}

/**
 * Encodes batches of events with `status` at `version` (retracted rows are deletions), and with `flows` their
 * whale_transfers rows too, appended to the same two sinks: a write group of several ranges (the EVM
 * source's backfill) holds their bytes, not their event objects. `finish` hands out the bytes once.
 */
export class ChainBatchEncoder {
  private readonly tail: string
  private readonly ends: Buffer[]
  private readonly block = new BlockText()
  private readonly sink: ByteSink
  private readonly wt: ByteSink | null
  /** events encoded so far */
  count = 0

  /** `expectedEvents`: the sinks' first size (they grow by doubling) */
  constructor(status: ChainEventStatus, version: number, flows: boolean, expectedEvents: number) {
    this.tail = `\t${status}\t${version}\t${status === 'retracted' ? 1 : 0}\n`
    this.ends = lineEnds(this.tail)
    this.sink = new ByteSink(expectedEvents * EVENT_LINE_BYTES)
    this.wt = flows ? new ByteSink(expectedEvents * TRANSFER_LINE_BYTES) : null
  }

  /** appends `events`; the flow side leaves out events whose eventKey is in `skip` (rows already stored) */
  add(events: readonly ChainWhaleEvent[], skip: ReadonlySet<string> | null): ChainBatchPart {
    const { sink, wt, ends, tail, block } = this
    const records: WhaleTransferRecord[] = []
    const counted: ChainWhaleEvent[] = []
    this.count += events.length
    for (const e of events) {
      const amount = String(e.amount)
      const usd = e.usd_value === null ? null : String(e.usd_value)
      // where the fields the whale_transfers line repeats are: it copies them from here
      const chainAt = sink.length
      sink.raw(e.chain)
      const chainEnd = sink.length
      sink.byte(TAB)
      sink.raw(e.tx_hash)
      const txEnd = sink.length
      sink.byte(TAB)
      sink.num(e.log_index)
      sink.byte(TAB)
      const addressAt = sink.length
      sink.escaped(e.address)
      const addressEnd = sink.length
      sink.byte(TAB)
      sink.copy(block.of(e))
      // counterparty, event_type, token, amount: the same text, in the same order, on both lines
      const sharedAt = sink.length
      sink.escaped(e.counterparty)
      sink.byte(TAB)
      sink.raw(e.event_type)
      sink.byte(TAB)
      sink.escaped(e.token)
      sink.byte(TAB)
      sink.raw(amount)
      const sharedEnd = sink.length
      sink.byte(TAB)
      nullableText(sink, e.token_in)
      sink.byte(TAB)
      if (e.amount_in === null) sink.raw(NULL)
      else sink.num(e.amount_in)
      sink.byte(TAB)
      sink.raw(usd ?? NULL)
      sink.byte(TAB)
      nullableText(sink, e.price_source)
      sink.byte(TAB)
      sink.num(e.hops)
      sink.byte(TAB)
      // addresses in pools are hex or base58: no quote or backslash to escape inside the array literal
      sink.byte(OPEN)
      for (let i = 0; i < e.pools.length; i++) {
        if (i > 0) sink.byte(COMMA)
        sink.byte(QUOTE)
        sink.raw(e.pools[i]!)
        sink.byte(QUOTE)
      }
      sink.byte(CLOSE)
      sink.byte(TAB)
      sink.num(e.repeat_count)
      if (e.label === null) sink.copy(ends[(e.circular ? 2 : 0) + (e.internal ? 1 : 0)]!)
      else {
        sink.raw(e.circular ? '\ttrue\t' : '\tfalse\t')
        sink.raw(e.internal ? 'true\t' : 'false\t')
        sink.escaped(e.label)
        sink.raw(tail)
      }
      // as transferRecordOf: circular or unpriced events stay out of flows
      if (wt === null || e.circular || usd === null) continue
      if (skip !== null && skip.has(eventKey(e))) continue
      // encodeTsv's whale_transfer line: ts as epoch ms, string fields escaped, numbers as String(n)
      // chain and tx_hash went into the events line unescaped: escaped here, byte for byte
      wt.num(e.ts)
      wt.byte(TAB)
      wt.escapedFrom(sink, chainAt, chainEnd)
      wt.byte(TAB)
      wt.escapedFrom(sink, chainEnd + 1, txEnd)
      wt.byte(TAB)
      wt.num(e.log_index)
      wt.byte(TAB)
      wt.num(e.block_number)
      wt.byte(TAB)
      wt.copyFrom(sink, addressAt, addressEnd)
      wt.byte(TAB)
      wt.copyFrom(sink, sharedAt, sharedEnd)
      wt.byte(TAB)
      wt.raw(usd)
      wt.byte(NEWLINE)
      records.push(transferRecordOf(e)!)
      counted.push(e)
    }
    return { records, counted }
  }

  /** the encoded bytes (views of the sinks' buffers: hand them to releaseSinkBytes once stored) */
  finish(): { readonly events: Buffer; readonly transfers: Buffer | null } {
    return { events: this.sink.bytes(), transfers: this.wt === null ? null : this.wt.bytes() }
  }
}

/**
 * Encodes `events` with `status` at `version` (retracted rows are deletions), and with `flows` their
 * whale_transfers rows too.
 */
export function encodeChainBatch(
  events: readonly ChainWhaleEvent[],
  status: ChainEventStatus,
  version: number,
  flows: FlowOptions | null
): ChainBatchTsv {
  const encoder = new ChainBatchEncoder(status, version, flows !== null, events.length)
  const { records, counted } = encoder.add(events, flows?.skip ?? null)
  return { ...encoder.finish(), records, counted }
}

/**
 * The whale_transfers row of an event, or null when it stays out of flows: circular routes, and events
 * without a USD value (whale_transfers.usd_value is not nullable, and 0 would be a lie).
 */
export function transferRecordOf(e: ChainWhaleEvent): WhaleTransferRecord | null {
  if (e.circular || e.usd_value === null) return null
  return {
    kind: 'whale_transfer',
    ts: e.ts,
    chain: e.chain,
    tx_hash: e.tx_hash,
    log_index: e.log_index,
    block_number: e.block_number,
    address: e.address,
    counterparty: e.counterparty,
    event_type: e.event_type,
    token: e.token,
    amount: e.amount,
    usd_value: e.usd_value
  }
}
