/**
 * @module
 * One pass over a batch of chain whale events writes both tables' TSV (the chain sources' hot path, issue 15):
 *
 * - `events`: chain_whale_events lines, CHAIN_EVENT_COLUMNS order (chain-event-store.ts), every event;
 * - `transfers`: whale_transfers lines, byte for byte what `encodeTsv('whale_transfer', records)`
 *   (engine/records/tsv.ts) writes for `records`, the events that count in flows (`transferRecordOf`: not
 *   circular, priced) and are not in `skip` (keys already stored, `eventKey`).
 *
 * The strings both lines share (the escaped address, counterparty and token, the amount and USD numbers) are
 * formatted once per event, the ts texts once per distinct ts in a row (events of one block share it), and
 * lines go straight into byte buffers (ByteSink), never into one long JS string. Escaping and number text
 * follow each encoder's rules exactly (TabSeparated escapes for the record encoder's string fields, `String(n)`
 * for numbers, `\N` for null); test/unit/whale-chain-batch-tsv.test.ts checks the bytes against both.
 */
import type { WhaleTransferRecord } from '../records/types.js'
import { escapeTsv } from '../records/tsv.js'
import { ByteSink } from './byte-sink.js'
import type { ChainWhaleEvent } from './tx-events.js'

export type ChainEventStatus = 'pending' | 'confirmed' | 'retracted'

/** rough bytes of one line (hashes, addresses, numbers; swaps add pools): the sinks' first sizes */
const EVENT_LINE_BYTES = 400
const TRANSFER_LINE_BYTES = 240

/** `2026-11-23 22:41:05.123` (UTC): DateTime64(3) text, ~10x cheaper than toISOString + replace */
export function tsText(ms: number): string {
  const d = new Date(ms)
  const p2 = (n: number): string => (n < 10 ? `0${n}` : String(n))
  const msPart = d.getUTCMilliseconds()
  return `${d.getUTCFullYear()}-${p2(d.getUTCMonth() + 1)}-${p2(d.getUTCDate())} ${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())}.${msPart < 10 ? '00' : msPart < 100 ? '0' : ''}${msPart}`
}

const nullable = (v: string | number | null): string =>
  v === null ? '\\N' : typeof v === 'number' ? String(v) : escapeTsv(v)

/** the identity of an event (and of its whale_transfers row) */
export function eventKey(e: { tx_hash: string; log_index: number; address: string }): string {
  return `${e.tx_hash}:${e.log_index}:${e.address}`
}

export interface ChainBatchTsv {
  /** chain_whale_events TSV of every event */
  readonly events: Buffer
  /** whale_transfers TSV of `records`; null when flows were not asked for */
  readonly transfers: Buffer | null
  /** the whale_transfers records written, in event order */
  readonly records: WhaleTransferRecord[]
  /** the events behind `records`, same order */
  readonly counted: ChainWhaleEvent[]
}

export interface FlowOptions {
  /** eventKey of rows already in whale_transfers: left out of `transfers` */
  readonly skip?: ReadonlySet<string> | null
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
  const tail = `\t${status}\t${version}\t${status === 'retracted' ? 1 : 0}\n`
  const sink = new ByteSink(events.length * EVENT_LINE_BYTES)
  const wt = flows === null ? null : new ByteSink(events.length * TRANSFER_LINE_BYTES)
  const skip = flows?.skip ?? null
  const records: WhaleTransferRecord[] = []
  const counted: ChainWhaleEvent[] = []
  let lastTs = Number.NaN
  let ts = ''
  let tsMs = ''
  let lastChain: string | null = null
  let chainEsc = ''
  for (const e of events) {
    if (e.ts !== lastTs) {
      lastTs = e.ts
      ts = tsText(e.ts)
      tsMs = String(e.ts)
    }
    const address = escapeTsv(e.address)
    const counterparty = escapeTsv(e.counterparty)
    const token = escapeTsv(e.token)
    const amount = String(e.amount)
    const usd = e.usd_value === null ? '\\N' : String(e.usd_value)
    // addresses in pools are hex or base58: no quote or backslash to escape inside the array literal
    const pools = e.pools.length === 0 ? '[]' : `[${e.pools.map((p) => `'${p}'`).join(',')}]`
    sink.write(
      `${e.chain}\t${e.tx_hash}\t${e.log_index}\t${address}\t${e.block_number}\t${e.block_hash}\t` +
        `${ts}\t${counterparty}\t${e.event_type}\t${token}\t${amount}\t` +
        `${nullable(e.token_in)}\t${nullable(e.amount_in)}\t${usd}\t${nullable(e.price_source)}\t` +
        `${e.hops}\t${pools}\t${e.repeat_count}\t${e.circular}\t${e.internal}\t${nullable(e.label)}` +
        tail
    )
    // transferRecordOf (chain-event-store.ts): circular or unpriced events stay out of flows
    if (wt === null || e.circular || e.usd_value === null) continue
    if (skip !== null && skip.has(eventKey(e))) continue
    if (e.chain !== lastChain) {
      lastChain = e.chain
      chainEsc = escapeTsv(e.chain)
    }
    wt.write(
      `${tsMs}\t${chainEsc}\t${escapeTsv(e.tx_hash)}\t${e.log_index}\t${e.block_number}\t${address}\t` +
        `${counterparty}\t${e.event_type}\t${token}\t${amount}\t${usd}\n`
    )
    records.push({
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
    })
    counted.push(e)
  }
  return { events: sink.bytes(), transfers: wt === null ? null : wt.bytes(), records, counted }
}
