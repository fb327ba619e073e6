/**
 * @module
 * Chain-derived whale events in the store (schemas/018_chain_whale_events.sql) and each chain source's
 * checkpoint (engine_state, key `chain:<name>`): the columns and reads. The rows themselves are written through
 * the ingest pipeline (ingest/sources/chain/chain-event-rows.ts). Writes are idempotent by (chain, tx_hash,
 * log_index, address): the detail table keeps the newest version of a key, and `confirmedKeys` lets a source
 * skip whale_transfers rows it already wrote before a restart. All SQL uses bound parameters.
 */
import type { Store } from '../store/store.js'
import type { ChainWhaleEvent } from './tx-events.js'
import { encodeChainBatch, eventKey, type ChainEventStatus } from './chain-batch-tsv.js'

export type { ChainEventStatus }
export { eventKey }

export const CHAIN_EVENT_COLUMNS = [
  'chain',
  'tx_hash',
  'log_index',
  'address',
  'block_number',
  'block_hash',
  'ts',
  'counterparty',
  'event_type',
  'token',
  'amount',
  'token_in',
  'amount_in',
  'usd_value',
  'price_source',
  'hops',
  'pools',
  'repeat_count',
  'circular',
  'internal',
  'label',
  'status',
  'version',
  'is_deleted'
] as const

/**
 * One TSV line per event in CHAIN_EVENT_COLUMNS order (TabSeparated escaping, \N for null), as UTF-8 bytes
 * (chain-batch-tsv.ts, which writes the whale_transfers rows in the same pass when asked).
 */
export function chainEventsTsv(events: readonly ChainWhaleEvent[], status: ChainEventStatus, version: number): Buffer {
  return encodeChainBatch(events, status, version, null).events
}

interface EventRow extends Omit<ChainWhaleEvent, 'ts' | 'pools'> {
  readonly ts: string
  readonly pools: string[]
  readonly status: ChainEventStatus
}

function fromRow(r: EventRow): ChainWhaleEvent {
  const { status: _status, ...rest } = r as EventRow & { version?: unknown; is_deleted?: unknown }
  delete (rest as { version?: unknown }).version
  delete (rest as { is_deleted?: unknown }).is_deleted
  return {
    ...rest,
    log_index: Number(r.log_index),
    block_number: Number(r.block_number),
    hops: Number(r.hops),
    repeat_count: Number(r.repeat_count),
    circular: Boolean(r.circular),
    internal: Boolean(r.internal),
    ts: Date.parse(`${r.ts.replace(' ', 'T')}Z`)
  }
}

/** Events of `chain` in blocks [from, to] still in force with `status` (FINAL: newest version per key). */
export async function chainEventsIn(
  store: Store,
  chain: string,
  from: number,
  to: number,
  status: ChainEventStatus
): Promise<ChainWhaleEvent[]> {
  const rows = await store.query<EventRow>(
    `SELECT * EXCEPT (version, is_deleted) FROM chain_whale_events FINAL
     WHERE chain = {chain:String} AND block_number >= {from:UInt64} AND block_number <= {to:UInt64}
       AND status = {status:String}
     ORDER BY block_number, tx_hash, log_index, address`,
    { chain, from, to, status }
  )
  return rows.map(fromRow)
}

/** Keys of the whale_transfers rows of `chain` in blocks [from, to] (written before a restart). */
export async function confirmedKeys(store: Store, chain: string, from: number, to: number): Promise<Set<string>> {
  const rows = await store.query<{ tx_hash: string; log_index: number; address: string }>(
    `SELECT DISTINCT tx_hash, log_index, address FROM whale_transfers
     WHERE chain = {chain:String} AND block_number >= {from:UInt64} AND block_number <= {to:UInt64}`,
    { chain, from, to }
  )
  return new Set(rows.map((r) => eventKey({ ...r, log_index: Number(r.log_index) })))
}

/**
 * The highest block from `from` on with whale_transfers rows of `chain`, or null. At a start, rows up to it may
 * come from a write group whose checkpoint was never saved (its detail insert failed, or the process died, after
 * the pipeline wrote its flow rows): every range up to it is checked with `confirmedKeys`, since the next
 * groups need not end where that one did.
 */
export async function writtenUpTo(store: Store, chain: string, from: number): Promise<number | null> {
  const rows = await store.query<{ b: number | null }>(
    `SELECT maxOrNull(block_number) AS b FROM whale_transfers
     WHERE chain = {chain:String} AND block_number >= {from:UInt64}`,
    { chain, from }
  )
  const b = rows[0]?.b ?? null
  return b === null ? null : Number(b)
}

export interface Checkpoint {
  /** last block whose confirmed events are written */
  readonly block: number
  readonly hash: string
}

const checkpointKey = (chain: string): string => `chain:${chain}`

export async function loadCheckpoint(store: Store, chain: string): Promise<Checkpoint | null> {
  const rows = await store.query<{ value: string }>(
    'SELECT argMax(value, updated) AS value FROM engine_state WHERE key = {k:String} GROUP BY key',
    { k: checkpointKey(chain) }
  )
  const raw = rows[0]?.value
  if (raw === undefined) return null
  const parsed = JSON.parse(raw) as Checkpoint
  return { block: Number(parsed.block), hash: String(parsed.hash) }
}

export async function saveCheckpoint(store: Store, chain: string, cp: Checkpoint): Promise<void> {
  await store.command(
    'INSERT INTO engine_state (key, value, updated) VALUES ({key:String}, {value:String}, now64(3))',
    { key: checkpointKey(chain), value: JSON.stringify(cp) }
  )
}
