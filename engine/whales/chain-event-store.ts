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
import type { WhaleTransferRecord } from '../records/types.js'
import { escapeTsv } from '../records/tsv.js'
import type { Store } from '../store/store.js'
import type { ChainWhaleEvent } from './tx-events.js'

export type ChainEventStatus = 'pending' | 'confirmed' | 'retracted'

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

/** the identity of an event (and of its whale_transfers row) */
export function eventKey(e: { tx_hash: string; log_index: number; address: string }): string {
  return `${e.tx_hash}:${e.log_index}:${e.address}`
}

const nullable = (v: string | number | null): string =>
  v === null ? '\\N' : typeof v === 'number' ? String(v) : escapeTsv(v)

/** `2026-11-23 22:41:05.123` (UTC): DateTime64(3) text, ~10x cheaper than toISOString + replace */
function tsText(ms: number): string {
  const d = new Date(ms)
  const p2 = (n: number): string => (n < 10 ? `0${n}` : String(n))
  const msPart = d.getUTCMilliseconds()
  return `${d.getUTCFullYear()}-${p2(d.getUTCMonth() + 1)}-${p2(d.getUTCDate())} ${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())}.${msPart < 10 ? '00' : msPart < 100 ? '0' : ''}${msPart}`
}

/**
 * Grows a byte buffer that strings are written into as UTF-8, so a batch's TSV is never one long JS string
 * (a 13 MB rope of per-row strings, flattened and encoded again by Buffer.from, cost more than building it).
 */
class ByteSink {
  private buf: Buffer
  private len = 0
  constructor(bytes: number) {
    this.buf = Buffer.allocUnsafe(Math.max(bytes, 1024))
  }
  write(s: string): void {
    // UTF-8 takes at most 3 bytes per UTF-16 unit; Buffer.write truncates silently when short of room
    const need = this.len + s.length * 3
    if (need > this.buf.length) {
      const next = Buffer.allocUnsafe(Math.max(need, this.buf.length * 2))
      this.buf.copy(next, 0, 0, this.len)
      this.buf = next
    }
    this.len += this.buf.write(s, this.len, 'utf8')
  }
  bytes(): Buffer {
    return this.buf.subarray(0, this.len)
  }
}

/** rough bytes of one TSV line (hashes, addresses, numbers; swaps add pools): the sink's first size */
const LINE_BYTES = 400

/**
 * One TSV line per event in CHAIN_EVENT_COLUMNS order (TabSeparated escaping, \N for null), as UTF-8 bytes.
 * The ts text is computed once per distinct ts in a row (events of one block share it).
 */
export function chainEventsTsv(events: readonly ChainWhaleEvent[], status: ChainEventStatus, version: number): Buffer {
  const tail = `\t${status}\t${version}\t${status === 'retracted' ? 1 : 0}\n`
  const sink = new ByteSink(events.length * LINE_BYTES)
  let lastTs = Number.NaN
  let ts = ''
  for (const e of events) {
    if (e.ts !== lastTs) {
      lastTs = e.ts
      ts = tsText(e.ts)
    }
    // addresses in pools are hex or base58: no quote or backslash to escape inside the array literal
    const pools = e.pools.length === 0 ? '[]' : `[${e.pools.map((p) => `'${p}'`).join(',')}]`
    sink.write(
      `${e.chain}\t${e.tx_hash}\t${e.log_index}\t${escapeTsv(e.address)}\t${e.block_number}\t${e.block_hash}\t` +
        `${ts}\t${escapeTsv(e.counterparty)}\t${e.event_type}\t${escapeTsv(e.token)}\t${e.amount}\t` +
        `${nullable(e.token_in)}\t${nullable(e.amount_in)}\t${nullable(e.usd_value)}\t${nullable(e.price_source)}\t` +
        `${e.hops}\t${pools}\t${e.repeat_count}\t${e.circular}\t${e.internal}\t${nullable(e.label)}` +
        tail
    )
  }
  return sink.bytes()
}

/** Characters ClickHouse's `file()` expands as globs: a directory holding one is not used for file inserts. */
const GLOB = /[*?{}[\]]/

/**
 * One directory under the OS temp dir for event batches the engine reads itself; files are named by process
 * id and removed after their insert (only a crash mid-insert leaves one). null: inline only.
 */
let fileDir: string | null | undefined
let fileSeq = 0

function eventsFileDir(): string | null {
  if (fileDir === undefined) {
    const dir = path.join(os.tmpdir(), 'tidewatch-chain-events')
    try {
      fs.mkdirSync(dir, { recursive: true })
      fileDir = GLOB.test(dir) ? null : dir
    } catch {
      fileDir = null
    }
  }
  return fileDir
}

/**
 * Inserts one batch of chainEventsTsv bytes, under a dedup token derived from the bytes. On chDB the engine
 * reads the batch from a short-lived file (`Store.insertFile`): measured on the chain benchmark's 360,000
 * events (bench/chain/store-probe.ts, docs/sources.md), 1.2 s against 2.0 s for the inline insert, half of
 * which was chDB's handling of inline bytes. A file that cannot be written falls back to the inline insert
 * (the dedup block ids of a token differ between the two paths; the rows stay idempotent by key under FINAL).
 */
export async function insertChainEventsTsv(store: Store, data: Buffer): Promise<void> {
  const batch = {
    table: 'chain_whale_events',
    columns: CHAIN_EVENT_COLUMNS,
    format: 'TSV' as const,
    dedupToken: `chain_whale_events:${crypto.createHash('sha1').update(data).digest('hex')}`
  }
  const dir = store.insertFile ? eventsFileDir() : null
  if (dir === null || !store.insertFile) {
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
  await insertChainEventsTsv(store, chainEventsTsv(events, status, version))
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
