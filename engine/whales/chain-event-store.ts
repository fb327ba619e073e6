/**
 * @module
 * Storage of chain-derived whale events (schemas/018_chain_whale_events.sql) and of each chain source's
 * checkpoint (engine_state, key `chain:<name>`). Writes are idempotent by (chain, tx_hash, log_index,
 * address): the detail table keeps the newest version of a key, and `confirmedKeys` lets a source skip
 * whale_transfers rows it already wrote before a restart. All SQL uses bound parameters.
 */
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { insertVia } from '../store/file-insert.js'
import type { Store } from '../store/store.js'
import type { ChainWhaleEvent } from './tx-events.js'
import { encodeChainBatch, eventKey, type ChainEventStatus } from './chain-batch-tsv.js'
import { releaseSinkBytes } from './sink-pool.js'

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

/**
 * One directory under the OS temp dir for event batches the engine reads itself; files are named by process
 * id and removed after their insert (only a crash mid-insert leaves one). null: it could not be made.
 */
let fileDir: string | null | undefined
let fileSeq = 0

function eventsFileDir(): string | null {
  if (fileDir === undefined) {
    const dir = path.join(os.tmpdir(), 'tidewatch-chain-events')
    try {
      fs.mkdirSync(dir, { recursive: true })
      fileDir = dir
    } catch {
      fileDir = null
    }
  }
  return fileDir
}

/**
 * Payloads from this size on are inserted as two halves at once, bytes. One insert of a range's events
 * (~13 MB per 20,000 busy transactions) parses in parallel but sorts, compresses and writes its part on one
 * thread, so while the source waits for it the second core idles; two halves in flight measured ~5% more
 * logs/s on the chain decode benchmark (docs/sources.md, "Decode path, 2026-11-24 session 10"). Smaller
 * payloads (live blocks, pending events) go in whole: two parts would cost merges for nothing.
 */
export const CHAIN_EVENTS_SPLIT_BYTES = 8 * 1024 * 1024

/**
 * Inserts one batch of chainEventsTsv bytes: from `splitFrom` bytes on as two inserts at once, each half
 * ending at a line's end (TabSeparated escapes newlines inside fields, so a newline byte only ends a line).
 * Resolves once every insert settled; rejects with the first failure. The rows are idempotent by key under
 * FINAL, so a retry after a failure of either half writes nothing twice.
 */
export async function insertChainEventsTsv(
  store: Store,
  data: Buffer,
  splitFrom = CHAIN_EVENTS_SPLIT_BYTES
): Promise<void> {
  const cut = data.length >= splitFrom ? data.indexOf(NEWLINE, data.length >> 1) + 1 : 0
  if (cut <= 0 || cut >= data.length) return insertPart(store, data)
  const settled = await Promise.allSettled([
    insertPart(store, data.subarray(0, cut)),
    insertPart(store, data.subarray(cut))
  ])
  for (const r of settled) if (r.status === 'rejected') throw r.reason
}

const NEWLINE = 10

/**
 * One insert under a dedup token derived from its bytes. On chDB the engine reads the bytes from a
 * short-lived file (`Store.insertFile`, engine/store/file-insert.ts): measured on the chain benchmark's 360,000
 * events (bench/chain/store-probe.ts, docs/sources.md), 1.2 s against 2.0 s for the inline insert, half of
 * which was chDB's handling of inline bytes. A file that cannot be written falls back to the inline insert
 * (the dedup block ids of a token differ between the two paths; the rows stay idempotent by key under FINAL).
 */
async function insertPart(store: Store, data: Buffer): Promise<void> {
  const batch = {
    table: 'chain_whale_events',
    columns: CHAIN_EVENT_COLUMNS,
    format: 'TSV' as const,
    dedupToken: `chain_whale_events:${crypto.createHash('sha1').update(data).digest('hex')}`
  }
  // the engine reads the file unless the store reads no files or the directory's path is a file() glob
  const dir = eventsFileDir()
  if (dir === null || insertVia(store, dir) === 'inline' || !store.insertFile) {
    await store.insert({ ...batch, data })
    return
  }
  const file = path.join(dir, `${process.pid}-${fileSeq++}.tsv`)
  try {
    await fs.promises.writeFile(file, data)
  } catch {
    await fs.promises.unlink(file).catch(() => undefined)
    await store.insert({ ...batch, data })
    return
  }
  try {
    await store.insertFile({ ...batch, file, skipLines: 0 })
  } finally {
    await fs.promises.unlink(file).catch(() => undefined)
  }
}

/** Writes events with `status` at `version` (epoch ms or a counter: newer wins); retracted rows are deletions. */
export async function writeChainEvents(
  store: Store,
  events: readonly ChainWhaleEvent[],
  status: ChainEventStatus,
  version: number
): Promise<void> {
  if (events.length === 0) return
  const data = chainEventsTsv(events, status, version)
  await insertChainEventsTsv(store, data)
  // stored: the sink's buffer goes back for the next batch (sink-pool.ts); after a failure it is left to the GC
  releaseSinkBytes(data)
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
